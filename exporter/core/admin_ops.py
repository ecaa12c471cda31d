"""The RGW Admin Ops API over HTTP, signed with AWS Signature V4, stdlib only: the one
client both producers use.

One `GET /admin/bucket?stats=true` returns every bucket with its stats, so a poll costs
one request whatever the number of buckets. The body is returned undecoded: the buckets
parser decodes it a chunk at a time (inputs.buckets_part_from_json).
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from . import bounded_http
from .sigv4 import sigv4_headers

BUCKET_STATS = ("/admin/bucket", {"stats": "true", "format": "json"})


class AdminOpsError(RuntimeError):
    """A failed request, said without the keys."""


class AdminOps:
    def __init__(
        self,
        endpoint: str,
        access_key: str,
        secret_key: str,
        region: str = "us-east-1",
        verify_tls: bool = True,
        max_response_mb: int = bounded_http.MAX_RESPONSE_BYTES >> 20,
    ) -> None:
        parsed = urllib.parse.urlsplit(endpoint)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise AdminOpsError(f"the RGW endpoint must be http(s)://host:port, got {endpoint!r:.100}")
        self.endpoint = endpoint.rstrip("/")
        self._access_key = access_key
        self._secret_key = secret_key
        self.region = region or "us-east-1"
        self.max_bytes = max_response_mb << 20
        self.context = None
        if parsed.scheme == "https" and not verify_tls:
            self.context = ssl._create_unverified_context()  # the operator's explicit choice

    def __repr__(self) -> str:  # never let a secret reach a log line
        return f"AdminOps({self.endpoint!r}, access_key={self._access_key[:4]}...)"

    def get_raw(self, path: str, params: dict[str, str], timeout: float) -> bytes:
        url = f"{self.endpoint}{path}?{urllib.parse.urlencode(params)}"
        headers = sigv4_headers("GET", url, self._access_key, self._secret_key, self.region)
        request = urllib.request.Request(url, headers=headers)
        try:
            return bounded_http.get(request, timeout, self.context, self.max_bytes)
        except urllib.error.HTTPError as e:
            detail = bounded_http.printable(e.read(300).decode(errors="replace").strip())
            raise AdminOpsError(f"RGW Admin Ops {self.endpoint}{path}: HTTP {e.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as e:
            reason = bounded_http.printable(str(getattr(e, "reason", e)))
            raise AdminOpsError(f"RGW Admin Ops {self.endpoint}{path}: {reason}") from None

    def bucket_stats_raw(self, timeout: float) -> bytes:
        """Every bucket with its stats, one request, undecoded."""
        path, params = BUCKET_STATS
        return self.get_raw(path, params, timeout)

    @staticmethod
    def decode(path: str, body: bytes) -> Any:
        try:
            return json.loads(body)
        except json.JSONDecodeError as e:
            raise AdminOpsError(f"RGW Admin Ops {path}: invalid JSON: {e}") from None

    def decode_bucket_stats(self, body: bytes) -> Any:
        return self.decode(BUCKET_STATS[0], body)
