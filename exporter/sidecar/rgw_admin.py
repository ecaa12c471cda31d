"""RGW Admin Ops API client, signed with AWS Signature V4 using only the stdlib.

One `GET /admin/bucket?stats=true` returns every bucket with its stats, so a
poll costs one request whatever the number of buckets.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any


class RgwAdminError(RuntimeError):
    pass


@dataclass(frozen=True)
class RgwCredentials:
    access_key: str
    secret_key: str

    def __repr__(self) -> str:  # never let a secret reach a log line
        return f"RgwCredentials(access_key={self.access_key[:4]}..., secret_key=***)"


def _sign(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def sigv4_headers(
    method: str, url: str, creds: RgwCredentials, region: str, now: datetime.datetime | None = None
) -> dict[str, str]:
    parts = urllib.parse.urlsplit(url)
    now = now or datetime.datetime.now(datetime.timezone.utc)
    amz_date = now.strftime("%Y%m%dT%H%M%SZ")
    date = now.strftime("%Y%m%d")
    payload_hash = hashlib.sha256(b"").hexdigest()
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    canonical_query = "&".join(
        f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}" for k, v in sorted(query)
    )
    host = parts.netloc
    canonical_headers = f"host:{host}\nx-amz-content-sha256:{payload_hash}\nx-amz-date:{amz_date}\n"
    signed_headers = "host;x-amz-content-sha256;x-amz-date"
    canonical_request = "\n".join(
        [
            method,
            urllib.parse.quote(parts.path or "/"),
            canonical_query,
            canonical_headers,
            signed_headers,
            payload_hash,
        ]
    )
    scope = f"{date}/{region}/s3/aws4_request"
    string_to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical_request.encode()).hexdigest()]
    )
    key = _sign(_sign(_sign(_sign(("AWS4" + creds.secret_key).encode(), date), region), "s3"), "aws4_request")
    signature = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
    return {
        "Authorization": f"AWS4-HMAC-SHA256 Credential={creds.access_key}/{scope}, "
        f"SignedHeaders={signed_headers}, Signature={signature}",
        "x-amz-date": amz_date,
        "x-amz-content-sha256": payload_hash,
    }


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

    def get(self, path: str, params: dict[str, str], timeout: float) -> Any:
        url = f"{self.endpoint}{path}?{urllib.parse.urlencode(params)}"
        request = urllib.request.Request(url, headers=sigv4_headers("GET", url, self.creds, self.region))
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=self.context) as response:
                body = response.read()
        except urllib.error.HTTPError as e:
            detail = e.read(300).decode(errors="replace")
            raise RgwAdminError(f"RGW admin {path}: HTTP {e.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as e:
            raise RgwAdminError(f"RGW admin {path}: {getattr(e, 'reason', e)}") from None
        try:
            return json.loads(body)
        except json.JSONDecodeError as e:
            raise RgwAdminError(f"RGW admin {path}: invalid JSON: {e}") from None

    def bucket_stats(self, timeout: float) -> Any:
        return self.get("/admin/bucket", {"stats": "true"}, timeout)
