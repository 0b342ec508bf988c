"""SigV4 verification: the signature a request carries, recomputed with botocore's own signer.

The emulator is given the one access key it accepts and its secret; a request signed with another key, for
another service or region, long ago or not at all, or changed after signing, is refused with the reason.
"""

from __future__ import annotations

import datetime
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from botocore.auth import SIGV4_TIMESTAMP, SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

SERVICE = "bedrock-agentcore"
MAX_SKEW = datetime.timedelta(minutes=15)  # AWS refuses a signature more than 15 minutes from its clock
MAX_PRESIGNED_S = 300  # AgentCore's presigned WebSocket URLs live at most 5 minutes
CREDENTIAL = re.compile(r"(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request")
AUTHORIZATION = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/,\s]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request,"
    r"\s*SignedHeaders=(?P<headers>[a-z0-9;-]+),\s*Signature=(?P<signature>[0-9a-f]{64})$"
)


class SignatureRefused(Exception):
    """The request is not signed by the configured credentials; the message says how it fails."""


@dataclass(frozen=True)
class Signer:
    """Who may call: one access key and its secret."""

    access_key: str
    secret_key: str

    def verify(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes, region: str, now: datetime.datetime
    ) -> None:
        """Raise :class:`SignatureRefused` unless ``headers`` carry a valid SigV4 ``Authorization`` for this
        request (``url`` as the client addressed it: scheme, host, the path as sent, the query)."""
        lowered = {name.lower(): value for name, value in headers.items()}
        authorization = lowered.get("authorization")
        if not authorization:
            raise SignatureRefused("Missing Authentication Token")
        found = AUTHORIZATION.match(authorization.strip())
        if found is None:
            raise SignatureRefused("Authorization header is not a SigV4 (AWS4-HMAC-SHA256) signature")
        stamp = lowered.get("x-amz-date", "")
        signed_at = self._scope(found, stamp, region)
        if abs(now - signed_at) > MAX_SKEW:
            raise SignatureRefused(f"Signature expired: {stamp} is not within 15 minutes of the server's time")
        signed = found["headers"].split(";")
        if "host" not in signed or any(name not in lowered for name in signed):
            raise SignatureRefused("SignedHeaders names a header the request lacks, or leaves out host")
        request = AWSRequest(method=method, url=url, data=body, headers={name: lowered[name] for name in signed})
        request.context["timestamp"] = stamp
        auth = SigV4Auth(Credentials(self.access_key, self.secret_key), SERVICE, region)
        expected = auth.signature(auth.string_to_sign(request, auth.canonical_request(request)), request)
        if not hmac.compare_digest(expected, found["signature"]):
            raise SignatureRefused(
                "The request signature we calculated does not match the signature you provided. "
                "Check your AWS Secret Access Key and signing method."
            )

    def verify_presigned(self, url: str, host: str, region: str, now: datetime.datetime) -> None:
        """Raise :class:`SignatureRefused` unless ``url`` (as the client sent it, ``https://`` or ``wss://``) is a
        valid SigV4-presigned GET for ``host`` (its Host header), unexpired."""
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        params = dict(query)
        if params.get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" or "X-Amz-Signature" not in params:
            raise SignatureRefused("Missing Authentication Token")
        found = CREDENTIAL.fullmatch(params.get("X-Amz-Credential", ""))
        if found is None:
            raise SignatureRefused("X-Amz-Credential is not KEY/DATE/REGION/SERVICE/aws4_request")
        stamp = params.get("X-Amz-Date", "")
        signed_at = self._scope(found, stamp, region)
        try:
            expires = int(params.get("X-Amz-Expires", ""))
        except ValueError:
            raise SignatureRefused("X-Amz-Expires is missing or not a number of seconds") from None
        if not 0 < expires <= MAX_PRESIGNED_S:
            raise SignatureRefused(f"X-Amz-Expires must be 1 to {MAX_PRESIGNED_S} seconds")
        if now > signed_at + datetime.timedelta(seconds=expires) or signed_at - now > MAX_SKEW:
            raise SignatureRefused(f"Request has expired: signed at {stamp} for {expires} s")
        if params.get("X-Amz-SignedHeaders") != "host":
            raise SignatureRefused("X-Amz-SignedHeaders must be host")
        # the query exactly as signed: the URL's own pairs (still encoded) but the signature appended to them
        unsigned = "&".join(pair for pair in parts.query.split("&") if not pair.startswith("X-Amz-Signature="))
        https_url = urlunsplit(("https", parts.netloc, parts.path, unsigned, ""))
        request = AWSRequest(method="GET", url=https_url, headers={"host": host})
        request.context["timestamp"] = stamp
        auth = SigV4QueryAuth(Credentials(self.access_key, self.secret_key), SERVICE, region, expires=expires)
        expected = auth.signature(auth.string_to_sign(request, auth.canonical_request(request)), request)
        if not hmac.compare_digest(expected, params["X-Amz-Signature"]):
            raise SignatureRefused("The request signature we calculated does not match the signature you provided.")

    def _scope(self, found: re.Match, stamp: str, region: str) -> datetime.datetime:
        """When the request was signed, once its credential scope is this key's, this region's and this service's."""
        if found["key"] != self.access_key:
            raise SignatureRefused("The security token included in the request is invalid")
        if found["service"] != SERVICE or found["region"] != region:
            raise SignatureRefused(
                f"Credential should be scoped to a valid region and service ({region}/{SERVICE}), "
                f"not {found['region']}/{found['service']}"
            )
        try:
            signed_at = datetime.datetime.strptime(stamp, SIGV4_TIMESTAMP).replace(tzinfo=datetime.UTC)
        except ValueError:
            raise SignatureRefused("X-Amz-Date is missing or not a SigV4 timestamp") from None
        if stamp[:8] != found["date"]:
            raise SignatureRefused("X-Amz-Date is not the date of the credential scope")
        return signed_at
