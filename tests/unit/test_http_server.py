"""The exporter's HTTP(S) serving with the exporter-toolkit web config: real sockets, real TLS."""

from __future__ import annotations

import base64
import ssl
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import bcrypt
import pytest

from ceph_scale.core.config import ConfigError
from exporter.sidecar.http_server import load_web_config, serve


class Cached:
    """What the server reads from the collector: its last rendered exposition."""

    exposition = b"# HELP ceph_scale_x x\n# TYPE ceph_scale_x gauge\nceph_scale_x 1.0\n"


def self_signed(tmp: Path) -> tuple[Path, Path]:
    cert, key = tmp / "tls.crt", tmp / "tls.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def get(url: str, auth: tuple[str, str] | None = None, context=None):
    req = urllib.request.Request(url)
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode())
    return urllib.request.urlopen(req, timeout=5, context=context)


@pytest.fixture
def tls_server(tmp_path):
    cert, key = self_signed(tmp_path)
    hashed = bcrypt.hashpw(b"s3cret", bcrypt.gensalt(rounds=4)).decode()
    web = tmp_path / "web.yml"
    web.write_text(
        f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\nbasic_auth_users:\n  prometheus: '{hashed}'\n"
    )
    server = serve("127.0.0.1:0", "/metrics", Cached(), str(web))
    context = ssl.create_default_context(cafile=str(cert))
    yield f"https://127.0.0.1:{server.server_address[1]}", context
    server.shutdown()


def test_tls_with_basic_auth_serves_only_the_right_user(tls_server):
    base, context = tls_server
    with get(base + "/metrics", ("prometheus", "s3cret"), context) as r:
        assert r.status == 200 and b"ceph_scale_x 1.0" in r.read()
    for auth in (None, ("prometheus", "wrong"), ("nobody", "s3cret")):
        with pytest.raises(urllib.error.HTTPError) as e:
            get(base + "/metrics", auth, context)
        assert e.value.code == 401
    # The probes only, and nothing else, answer without credentials (a container healthcheck or a
    # kubelet probe has none).
    for path in ("/-/healthy", "/-/ready"):
        with get(base + path, None, context) as r:
            assert r.status == 200, path
    for path in ("/", "/metrics?x=1", "/-/healthy/../metrics", "/-/ready/../metrics"):
        with pytest.raises(urllib.error.HTTPError) as e:
            get(base + path, None, context)
        assert e.value.code == 401, path
    # Plain HTTP to the TLS port is refused.
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        get(base.replace("https", "http") + "/metrics", ("prometheus", "s3cret"))


def test_plain_http_and_routes():
    server = serve("127.0.0.1:0", "/metrics", Cached(), None)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert get(base + "/metrics").read() == Cached.exposition
        assert b"/metrics" in get(base + "/").read()
        assert get(base + "/-/healthy").status == 200
        with pytest.raises(urllib.error.HTTPError) as e:
            get(base + "/nope")
        assert e.value.code == 404
    finally:
        server.shutdown()


def test_not_ready_before_the_first_collection():
    class Empty:
        exposition = b""

    server = serve("127.0.0.1:0", "/metrics", Empty(), None)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for path in ("/metrics", "/-/ready"):
            with pytest.raises(urllib.error.HTTPError) as e:
                get(base + path)
            assert e.value.code == 503
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    "content, message",
    [
        ("tls_server_config:\n  cert_file: /nonexistent\n  key_file: /nonexistent\n", "cannot load"),
        ("tls_server_config:\n  cert_file: x\n", "needs cert_file and key_file"),
        ("basic_auth_users:\n  u: plaintext\n", "bcrypt hash"),
        ("tls_config: {}\n", "unknown key"),
        ("- a\n", "expected a mapping"),
        ("tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS1.3\n", "min_version must be one of"),
        ("tls_server_config:\n  cert_file: c\n  key_file: k\n  max_version: TLS14\n", "max_version must be one of"),
        (
            "tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS13\n  max_version: TLS12\n",
            "below min_version",
        ),
    ],
)
def test_bad_web_config_is_refused_clearly(tmp_path, content, message):
    web = tmp_path / "web.yml"
    web.write_text(content)
    with pytest.raises(ConfigError, match=message):
        serve("127.0.0.1:0", "/metrics", Cached(), str(web))


def test_ipv6_listen_address():
    server = serve("[::1]:0", "/metrics", Cached(), None)
    try:
        assert get(f"http://[::1]:{server.server_address[1]}/metrics").status == 200
    finally:
        server.shutdown()


def test_an_unknown_user_costs_what_a_known_one_with_a_wrong_password_does():
    """No user enumeration by timing (exporter-toolkit's dummy hash): an unknown user costs one
    bcrypt check against a hash of the configured cost, as a known user's wrong password does (it
    answered at once: 0.28 ms against 45.7 ms). Counted here, not timed: the times themselves are
    bench.hostile_scrape's (docs/security.md). A NUL byte in a password is a wrong password, not a
    traceback."""
    import base64

    import bcrypt

    from exporter.sidecar.http_server import BasicAuth

    configured = bcrypt.hashpw(b"right", bcrypt.gensalt(rounds=8))
    auth = BasicAuth({"prometheus": configured.decode()})
    checked: list[bytes] = []

    class Recording:
        def checkpw(self, password: bytes, hashed: bytes) -> bool:
            checked.append(hashed)
            return bcrypt.checkpw(password, hashed)

    auth._bcrypt = Recording()

    def refused(user: str, password: str) -> list[bytes]:
        checked.clear()
        header = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        assert auth.check(header) is False
        return list(checked)

    assert refused("prometheus", "wrong") == [configured]
    unknown = refused("nobody", "wrong")
    assert len(unknown) == 1 and unknown[0] != configured
    assert unknown[0][:7] == configured[:7] == b"$2b$08$"  # the same bcrypt cost
    assert refused("prometheus", "a\0b") == [configured]  # bcrypt refuses the NUL byte: a wrong password


def test_a_nul_byte_in_a_password_is_a_wrong_password_over_the_wire(tls_server, capfd):
    """It gave a traceback and an empty reply: now a 401, and nothing in the log."""
    url, context = tls_server
    with pytest.raises(urllib.error.HTTPError) as refused:
        get(url + "/metrics", auth=("prometheus", "s3\0cret"), context=context)
    assert refused.value.code == 401
    assert get(url + "/metrics", auth=("prometheus", "s3cret"), context=context).status == 200
    assert "Traceback" not in capfd.readouterr().err


def test_plain_http_to_the_tls_port_fills_no_log(tls_server, capfd):
    """The stock handler wrote a 25-line traceback per such connection (258 KB from 200)."""
    import socket
    import time

    url, _ = tls_server
    port = int(url.rsplit(":", 1)[1])
    for _ in range(20):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                conn.recv(100)
            except OSError:
                pass
    time.sleep(0.5)
    err = capfd.readouterr().err
    assert "Traceback" not in err and len(err) < 200, err[:500]


def test_verifying_client_certificates_needs_a_ca(tmp_path):
    from ceph_scale.core.config import ConfigError
    from exporter.sidecar.http_server import load_web_config

    cert, key = self_signed(tmp_path)
    web = tmp_path / "web.yml"
    web.write_text(
        f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n  client_auth_type: RequireAndVerifyClientCert\n"
    )
    with pytest.raises(ConfigError, match="needs client_ca_file"):
        load_web_config(str(web))


def test_tls_offers_only_forward_secret_aead_suites_and_refuses_tls10(tmp_path):
    from ceph_scale.core.config import ConfigError
    from exporter.sidecar.http_server import load_web_config

    cert, key = self_signed(tmp_path)
    web = tmp_path / "web.yml"
    web.write_text(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n")
    context, _ = load_web_config(str(web))
    tls12 = [c["name"] for c in context.get_ciphers() if c["protocol"] == "TLSv1.2"]
    assert tls12 and all(("GCM" in n or "CHACHA20" in n) and n.startswith("ECDHE") for n in tls12), tls12
    web.write_text(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n  min_version: TLS10\n")
    with pytest.raises(ConfigError, match="min_version must be one of TLS12, TLS13"):
        load_web_config(str(web))


def test_client_certificates_are_asked_for_only_where_they_are_verified(tmp_path):
    """exporter-toolkit never verifies under RequestClientCert (Python's TLS verifies every
    certificate it asks for, so it asks for none), and RequireAnyClientCert (any certificate,
    unverified) cannot be had: refused at start instead of served as a verifying mode."""
    cert, key = self_signed(tmp_path)
    web = tmp_path / "web.yml"
    base = f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n  client_ca_file: {cert}\n"
    expected = {"RequestClientCert": ssl.CERT_NONE, "VerifyClientCertIfGiven": ssl.CERT_OPTIONAL,
                "RequireAndVerifyClientCert": ssl.CERT_REQUIRED}  # fmt: skip
    for auth_type, mode in expected.items():
        web.write_text(base + f"  client_auth_type: {auth_type}\n")
        context, _ = load_web_config(str(web))
        assert context.verify_mode == mode, auth_type
    web.write_text(base + "  client_auth_type: RequireAnyClientCert\n")
    with pytest.raises(ConfigError, match="RequireAnyClientCert .* not supported"):
        load_web_config(str(web))
