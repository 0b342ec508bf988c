"""Headless Chromium (Debian's package) driven over the DevTools protocol, with audio output faked.

No WebDriver and no browser download: Chromium is started with ``--remote-debugging-port`` and one page
is driven through its DevTools WebSocket (``Runtime.evaluate``, ``Input.insertText``,
``Page.captureScreenshot``), the same protocol Selenium's CDP bridge speaks.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from servers import free_port
from websockets.asyncio.client import ClientConnection, connect

CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-extensions",
    "--autoplay-policy=no-user-gesture-required",  # the audio context may start without a click
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    "--window-size=900,700",
)


def chromium_path() -> str:
    """Debian's chromium, which ./setup.sh installs; its absence fails the test that needs it, never skips
    it: a browser test that quietly does not run is a promise the suite does not keep."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise RuntimeError("no chromium (or chromium-browser) on PATH: ./setup.sh installs it (apt-get, as root)")
    return found


class Page:
    def __init__(self, connection: ClientConnection):
        self._connection = connection
        self._ids = itertools.count(1)

    async def call(self, method: str, **params: Any) -> dict:
        call_id = next(self._ids)
        await self._connection.send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            reply = json.loads(await asyncio.wait_for(self._connection.recv(), 60))
            if reply.get("id") == call_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    async def js(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises awaited); page exceptions raise here."""
        result = await self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout_s: float = 60.0) -> Any:
        deadline = time.monotonic() + timeout_s
        while not (value := await self.js(expression)):
            if time.monotonic() > deadline:
                raise TimeoutError(f"still false after {timeout_s} s: {expression}")
            await asyncio.sleep(0.05)
        return value

    async def type_text(self, selector: str, text: str) -> None:
        await self.js(f"document.querySelector({json.dumps(selector)}).focus()")
        await self.call("Input.insertText", text=text)

    async def press_enter(self) -> None:
        for kind in ("keyDown", "keyUp"):
            await self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key="Enter",
                code="Enter",
                windowsVirtualKeyCode=13,
                text="\r" if kind == "keyDown" else "",
            )

    async def screenshot(self, path: Path) -> None:
        shot = await self.call("Page.captureScreenshot", format="png")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))


@contextlib.asynccontextmanager
async def chromium_page(url: str, *flags: str) -> AsyncIterator[Page]:
    """A headless Chromium showing ``url``, started with ``flags`` besides the usual; stopped on exit."""
    port = free_port()
    profile = tempfile.TemporaryDirectory()
    proc = subprocess.Popen(
        [
            chromium_path(),
            *CHROMIUM_FLAGS,
            *flags,
            f"--remote-debugging-port={port}",
            f"--user-data-dir={profile.name}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its renderer and helper processes share its group, to stop them all
    )
    try:
        async with httpx.AsyncClient() as client:
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    targets = (await client.get(f"http://127.0.0.1:{port}/json/list")).json()
                    pages = [t for t in targets if t.get("type") == "page"]
                    if pages:
                        break
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("chromium did not open its DevTools port")
                await asyncio.sleep(0.1)
        async with connect(pages[0]["webSocketDebuggerUrl"], max_size=None, proxy=None) as connection:
            page = Page(connection)
            await page.call("Page.enable")
            await page.call("Page.navigate", url=url)
            await page.wait_for("document.readyState === 'complete'")
            yield page
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # a throwaway profile: nothing to shut down gracefully
        proc.wait()
        _remove_profile(profile)


def _remove_profile(profile: tempfile.TemporaryDirectory) -> None:
    """Remove the profile once the killed helpers have stopped writing into it: a helper still exiting can
    add a file while the folder is removed ("Directory not empty"), so a removal that fails is retried."""
    deadline = time.monotonic() + 30
    while True:
        try:
            profile.cleanup()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
