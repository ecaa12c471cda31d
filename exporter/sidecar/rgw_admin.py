"""RGW Admin Ops API client, signed with AWS Signature V4 using only the stdlib.

One `GET /admin/bucket?stats=true` returns every bucket with its stats, so a
poll costs one request whatever the number of buckets.
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from ..core.sigv4 import sigv4_headers


class RgwAdminError(RuntimeError):
    pass


@dataclass(frozen=True)
class RgwCredentials:
    access_key: str
    secret_key: str

    def __repr__(self) -> str:  # never let a secret reach a log line
        return f"RgwCredentials(access_key={self.access_key[:4]}..., secret_key=***)"


class RgwAdminClient:
    def __init__(
        self, endpoint: str, creds: RgwCredentials, region: str = "us-east-1", verify_tls: bool = True
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.creds = creds
        self.region = region
        self.context = None
        if self.endpoint.startswith("https") and not verify_tls:
            self.context = ssl._create_unverified_context()  # operator's explicit choice (verify_tls: false)

    def get_raw(self, path: str, params: dict[str, str], timeout: float) -> bytes:
        url = f"{self.endpoint}{path}?{urllib.parse.urlencode(params)}"
        request = urllib.request.Request(
            url, headers=sigv4_headers("GET", url, self.creds.access_key, self.creds.secret_key, self.region)
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=self.context) as response:
                body = response.read()
        except urllib.error.HTTPError as e:
            detail = e.read(300).decode(errors="replace")
            raise RgwAdminError(f"RGW admin {path}: HTTP {e.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as e:
            raise RgwAdminError(f"RGW admin {path}: {getattr(e, 'reason', e)}") from None
        return body

    @staticmethod
    def decode(path: str, body: bytes) -> Any:
        try:
            return json.loads(body)
        except json.JSONDecodeError as e:
            raise RgwAdminError(f"RGW admin {path}: invalid JSON: {e}") from None

    def bucket_stats_raw(self, timeout: float) -> bytes:
        """The bucket stats undecoded: the buckets source decodes them a chunk at a time (decode_bucket_stats on
        fallback)."""
        return self.get_raw("/admin/bucket", {"stats": "true"}, timeout)

    def decode_bucket_stats(self, body: bytes) -> Any:
        return self.decode("/admin/bucket", body)
