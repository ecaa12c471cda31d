"""Container healthcheck: the exporter answers /-/healthy (HTTP or HTTPS)."""

import os
import ssl
import sys
import urllib.request

port = os.environ.get("CEPH_SCALE_PORT", "9928")
scheme = os.environ.get("CEPH_SCALE_SCHEME", "http")
context = ssl._create_unverified_context() if scheme == "https" else None  # self-check on loopback only
try:
    with urllib.request.urlopen(f"{scheme}://127.0.0.1:{port}/-/healthy", timeout=5, context=context) as r:
        sys.exit(0 if r.status == 200 else 1)
except Exception:
    sys.exit(1)
