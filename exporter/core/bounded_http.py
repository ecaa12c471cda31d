"""One HTTP GET bounded as a whole: a deadline for the entire response (urllib's timeout
bounds each read only, so a body trickled a byte at a time never ends), a cap on its size (a
peer streaming without end would fill the memory), and no redirect (a 302 would carry the
request, its signed Authorization header included, to another host, whose answer would be
taken for the RGW's). Both producers read every HTTP peer through it: the RGW Admin Ops API,
the mgr prometheus module, ceph-exporter.
"""

from __future__ import annotations

import time
import urllib.request
from typing import Any

# The bucket stats of the study's 100,000 buckets are about 95 MB of JSON; twice that is
# room for larger bucket entries, and still bounded.
MAX_RESPONSE_BYTES = 256 * 1024**2
CHUNK = 1 << 16


class HttpLimitError(OSError):
    """The peer broke a bound: too slow, too large, or a redirect."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, _req: Any, _fp: Any, code: int, _msg: str, _headers: Any, newurl: str) -> None:
        raise HttpLimitError(f"redirect ({code}) to {printable(newurl, 100)} refused")


def printable(text: str, limit: int = 300) -> str:
    """Peer-supplied text for one log line: control characters escaped, length capped, so a
    body cannot forge or split log lines."""
    cut = text[:limit]
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut) + ("..." if len(text) > limit else "")


def get(
    request: urllib.request.Request, timeout: float, context: Any = None, max_bytes: int = MAX_RESPONSE_BYTES
) -> bytes:
    """The whole body within `timeout` seconds and `max_bytes`; HTTPError for an error status."""
    deadline = time.monotonic() + timeout
    handlers: list[Any] = [_NoRedirect()]
    if context is not None:
        handlers.append(urllib.request.HTTPSHandler(context=context))
    opener = urllib.request.build_opener(*handlers)
    with opener.open(request, timeout=timeout) as response:
        length = response.headers.get("Content-Length")
        if length is not None and length.isdigit() and int(length) > max_bytes:
            raise HttpLimitError(f"response of {int(length)} bytes is over the {max_bytes}-byte cap")
        chunks: list[bytes] = []
        size = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise HttpLimitError(f"response not complete within {timeout:g}s")
            sock = getattr(getattr(getattr(response, "fp", None), "raw", None), "_sock", None)
            if sock is not None:
                sock.settimeout(left)  # no single read may outlast the whole deadline
            chunk = response.read1(CHUNK) if hasattr(response, "read1") else response.read(CHUNK)
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > max_bytes:
                raise HttpLimitError(f"response over the {max_bytes}-byte cap")
            chunks.append(chunk)
