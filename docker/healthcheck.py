"""Container healthcheck: the exporter answers /-/healthy (HTTP or HTTPS).

/-/healthy needs no basic-auth password. With a web config that requires client
certificates, set CEPH_SCALE_CLIENT_CERT and CEPH_SCALE_CLIENT_KEY to a certificate
the exporter accepts.
"""

import os
import ssl
import sys
import urllib.request

port = os.environ.get("CEPH_SCALE_PORT", "9928")
scheme = os.environ.get("CEPH_SCALE_SCHEME", "http")
context = None
if scheme == "https":
    context = ssl._create_unverified_context()  # a self-check on loopback: the name is not the point
    cert = os.environ.get("CEPH_SCALE_CLIENT_CERT")
    if cert:
        context.load_cert_chain(cert, os.environ.get("CEPH_SCALE_CLIENT_KEY") or None)
try:
    with urllib.request.urlopen(f"{scheme}://127.0.0.1:{port}/-/healthy", timeout=5, context=context) as r:
        sys.exit(0 if r.status == 200 else 1)
except Exception:
    sys.exit(1)
