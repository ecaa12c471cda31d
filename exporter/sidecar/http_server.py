"""HTTP(S) serving of the cached exposition, with the exporter-toolkit web config.

tls_server_config:
  cert_file: /etc/ceph-scale/tls.crt
  key_file: /etc/ceph-scale/tls.key
  client_ca_file: /etc/ceph-scale/ca.crt     # optional
  client_auth_type: RequireAndVerifyClientCert  # optional
  min_version: TLS12                          # optional
basic_auth_users:
  prometheus: $2y$10$...                      # bcrypt hash
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import re
import ssl
import threading

from ..core.config import ConfigError
from ..core.exposition import CONTENT_TYPE_LATEST
from ..core.http_serving import BoundedHandler, BoundedServer, GzipCache, accepts_gzip

WEB_KEYS = {"tls_server_config", "basic_auth_users", "http_server_config"}
TLS_KEYS = {"cert_file", "key_file", "client_ca_file", "client_auth_type", "min_version", "max_version"}
# exporter-toolkit's client_auth_type names and what Python's TLS does for each. It verifies
# every certificate it asks for, so RequestClientCert (ask, never verify, accept without one)
# asks for none: either way no client is refused for its certificate. RequireAnyClientCert
# (demand one but accept any) cannot be had: it is refused at start rather than served as
# RequireAndVerifyClientCert, which would refuse clients exporter-toolkit accepts.
CLIENT_AUTH = {
    "NoClientCert": ssl.CERT_NONE,
    "RequestClientCert": ssl.CERT_NONE,
    "VerifyClientCertIfGiven": ssl.CERT_OPTIONAL,
    "RequireAndVerifyClientCert": ssl.CERT_REQUIRED,
}
# exporter-toolkit's names; TLS 1.0 and 1.1 are refused at start: OpenSSL here no longer
# negotiates them, so accepting them would fail every handshake instead.
TLS_VERSIONS = {"TLS12": ssl.TLSVersion.TLSv1_2, "TLS13": ssl.TLSVersion.TLSv1_3}
# exporter-toolkit's (Go's) default TLS 1.2 suites: forward secret AEAD only, no static RSA
# key exchange, no CBC with SHA-1. TLS 1.3 suites are OpenSSL's own, all AEAD.
TLS12_CIPHERS = "ECDHE+AESGCM:ECDHE+CHACHA20"


BCRYPT_HASH = re.compile(r"\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}")


class BasicAuth:
    """bcrypt-checked users; a verified (user, password) pair is remembered by its
    salted digest, so 50 concurrent scrapers do not each pay a bcrypt round."""

    def __init__(self, users: dict[str, str]) -> None:
        try:
            import bcrypt  # python3-bcrypt
        except ImportError:
            raise ConfigError("basic_auth_users needs python3-bcrypt (apt install python3-bcrypt)") from None
        self._bcrypt = bcrypt
        self.users = {}
        for user, hashed in users.items():
            if not isinstance(hashed, str) or not BCRYPT_HASH.fullmatch(hashed):
                raise ConfigError(f"basic_auth_users.{user}: expected a bcrypt hash ($2y$<cost>$ and 53 characters)")
            self.users[str(user)] = hashed.encode()
        self._salt = os.urandom(16)
        self._ok: set[bytes] = set()
        self._lock = threading.Lock()
        # An unknown user is checked against a hash of the same cost as the configured ones,
        # as exporter-toolkit does: answering at once would tell which users exist.
        cost = max((int(h.split(b"$")[2]) for h in self.users.values()), default=10)
        self._dummy = bcrypt.hashpw(os.urandom(16).hex().encode(), bcrypt.gensalt(rounds=cost))

    def check(self, header: str | None) -> bool:
        if not header or not header.startswith("Basic "):
            return False
        try:
            user, _, password = base64.b64decode(header[6:], validate=True).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            return False
        hashed = self.users.get(user)
        if hashed is None:
            self._checkpw(password, self._dummy)
            return False
        key = hmac.new(self._salt, f"{user}\0{password}".encode(), hashlib.sha256).digest()
        with self._lock:
            if key in self._ok:
                return True
        if not self._checkpw(password, hashed):
            return False
        with self._lock:
            self._ok.add(key)
        return True

    def _checkpw(self, password: str, hashed: bytes) -> bool:
        try:
            return bool(self._bcrypt.checkpw(password.encode(), hashed))
        except ValueError:  # a NUL byte, which bcrypt refuses: a wrong password, not a fault
            return False


def load_web_config(path: str | None) -> tuple[ssl.SSLContext | None, BasicAuth | None]:
    if not path:
        return None, None
    import yaml

    with open(path, encoding="utf-8") as f:
        try:
            data = yaml.safe_load(f) or {}
        except yaml.YAMLError as e:
            raise ConfigError(f"{path}: invalid YAML: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping")
    bad = sorted(set(data) - WEB_KEYS)
    if bad:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(bad)}")
    if data.get("http_server_config"):
        raise ConfigError(f"{path}: http_server_config is not supported (HTTP/2 and extra headers are not served)")
    if "basic_auth_users" in data and not isinstance(data["basic_auth_users"], (dict, type(None))):
        raise ConfigError(f"{path}: basic_auth_users: expected a mapping of user: bcrypt hash")
    context = None
    tls = data.get("tls_server_config")
    if tls:
        bad = sorted(set(tls) - TLS_KEYS)
        if bad:
            raise ConfigError(f"{path}: tls_server_config: unknown key(s) {', '.join(bad)}")
        if not tls.get("cert_file") or not tls.get("key_file"):
            raise ConfigError(f"{path}: tls_server_config needs cert_file and key_file")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.set_ciphers(TLS12_CIPHERS)
        for key in ("min_version", "max_version"):
            if key in tls and tls[key] not in TLS_VERSIONS:
                raise ConfigError(f"{path}: tls_server_config.{key} must be one of {', '.join(sorted(TLS_VERSIONS))}")
        context.minimum_version = TLS_VERSIONS[tls.get("min_version", "TLS12")]
        if "max_version" in tls:
            if TLS_VERSIONS[tls["max_version"]] < context.minimum_version:
                raise ConfigError(f"{path}: tls_server_config.max_version is below min_version")
            context.maximum_version = TLS_VERSIONS[tls["max_version"]]
        try:
            context.load_cert_chain(tls["cert_file"], tls["key_file"])
        except (OSError, ssl.SSLError) as e:
            raise ConfigError(f"{path}: cannot load the certificate or key: {e}") from None
        auth_type = tls.get("client_auth_type", "NoClientCert")
        if auth_type == "RequireAnyClientCert":
            raise ConfigError(
                f"{path}: client_auth_type RequireAnyClientCert (any certificate, unverified) is not supported: "
                "use RequireAndVerifyClientCert with client_ca_file"
            )
        if auth_type not in CLIENT_AUTH:
            raise ConfigError(f"{path}: client_auth_type must be one of {', '.join(sorted(CLIENT_AUTH))}")
        if auth_type in ("RequireAndVerifyClientCert", "VerifyClientCertIfGiven") and not tls.get("client_ca_file"):
            raise ConfigError(f"{path}: client_auth_type {auth_type} needs client_ca_file")
        if tls.get("client_ca_file"):
            try:
                context.load_verify_locations(tls["client_ca_file"])
            except (OSError, ssl.SSLError) as e:
                raise ConfigError(f"{path}: cannot load client_ca_file: {e}") from None
        context.verify_mode = CLIENT_AUTH[auth_type]
    users = data.get("basic_auth_users")
    try:
        auth = BasicAuth(users) if users else None
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None
    return context, auth


log = logging.getLogger(__name__)

LANDING = b"""<html><head><title>ceph-scale-exporter</title></head><body>
<h1>ceph-scale-exporter</h1><p><a href="%s">Metrics</a></p></body></html>"""


def make_handler(path: str, collector, auth: BasicAuth | None):
    gzipped = GzipCache()

    class Handler(BoundedHandler):
        server_version = "ceph-scale-exporter"

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            route = self.path.split("?", 1)[0]
            # Liveness says nothing about the cluster, and a container's healthcheck has
            # no password (only bcrypt hashes are configured): it stays open.
            if route != "/-/healthy" and auth is not None and not auth.check(self.headers.get("Authorization")):
                self.send(401, b"Unauthorized\n", "text/plain", {"WWW-Authenticate": 'Basic realm="ceph-scale"'})
                return
            if route == path:
                body = collector.exposition
                if not body:
                    self.send(503, b"no collection finished yet\n", "text/plain")
                elif accepts_gzip(self.headers.get("Accept-Encoding")):
                    gz = gzipped.get(body)
                    self.send(200, gz, CONTENT_TYPE_LATEST, {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
                else:
                    self.send(200, body, CONTENT_TYPE_LATEST, {"Vary": "Accept-Encoding"})
            elif route == "/":
                self.send(200, LANDING % path.encode(), "text/html")
            elif route in ("/-/healthy", "/-/ready"):
                ready = route == "/-/healthy" or bool(collector.exposition)
                self.send(200 if ready else 503, b"OK\n" if ready else b"not ready\n", "text/plain")
            else:
                self.send(404, b"Not Found\n", "text/plain")

    return Handler


def parse_listen(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) < 65536:  # 0: any free port
        raise ConfigError(f"--web.listen-address {address!r}: expected host:port with a port up to 65535")
    return host.strip("[]") or "0.0.0.0", int(port)


def serve(listen: str, path: str, collector, web_config: str | None):
    context, auth = load_web_config(web_config)
    host, port = parse_listen(listen)
    try:
        server = BoundedServer((host, port), make_handler(path, collector, auth), log)
    except OSError as e:
        raise ConfigError(f"--web.listen-address {listen}: {e.strerror or e}") from None
    if context is not None:
        # The handshake runs in the connection's own thread, not in accept(),
        # so one slow client cannot hold up every scrape.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    threading.Thread(target=server.serve_forever, name="http", daemon=True).start()
    return server
