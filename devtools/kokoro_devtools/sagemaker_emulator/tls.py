"""A throwaway certificate authority and the server's TLS context (ALPN ``h2``, else HTTP/1.1).

The SDK's CRT transport speaks HTTP/2 over TLS only (over plain ``http://`` it falls back to HTTP/1.1
and the call fails or hangs), so the emulator must offer TLS with ALPN ``h2`` and a certificate the
client trusts: point the client's ``SSL_CERT_FILE`` at the CA file written here. HTTP/1.1 is
there for boto3's ``InvokeEndpoint``, which the emulator also answers.
"""

from __future__ import annotations

import ssl
from pathlib import Path

import trustme


def server_context(ca_file: Path) -> ssl.SSLContext:
    """A TLS context for 127.0.0.1/localhost, signed by a fresh CA whose PEM is written to ``ca_file``."""
    ca = trustme.CA()
    ca_file.parent.mkdir(parents=True, exist_ok=True)
    ca.cert_pem.write_to_path(str(ca_file))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    context.set_alpn_protocols(["h2", "http/1.1"])
    return context
