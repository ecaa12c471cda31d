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
from concurrent.futures import ThreadPoolExecutor

from ceph_scale.core.config import ConfigError
from ceph_scale.core.exposition import CONTENT_TYPE_LATEST
from ceph_scale.io.http_gzip import GzipCache, accepts_gzip
from ceph_scale.io.http_serving import BoundedHandler, BoundedServer

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
# Checks not already verified queue for the one bcrypt thread; past this many waiting, such
# a credential is refused unchecked, whoever the user, so failing clients cannot hold every
# request thread.
MAX_BCRYPT_WAITERS = 64


def _lower_cpu_priority() -> None:
    """bcrypt's thread yields the CPU to serving (Linux takes a nice value per thread); not
    the lowest priority, so that a busy host still checks a new password within seconds."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except OSError:
        pass


class BasicAuth:
    """bcrypt-checked users. A verified (user, password) pair is remembered by its salted
    digest, so 50 concurrent scrapers do not each pay a bcrypt round, and a remembered one
    never waits for bcrypt. bcrypt runs one check at a time in a thread of lower CPU
    priority: failing clients take at most one core, and yield it to serving."""

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
        self._bcrypt_thread = ThreadPoolExecutor(1, "bcrypt", initializer=_lower_cpu_priority)
        self._waiters = threading.BoundedSemaphore(MAX_BCRYPT_WAITERS)
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
        key = hmac.new(self._salt, f"{user}\0{password}".encode(), hashlib.sha256).digest()
        with self._lock:
            if key in self._ok:
                return True
        hashed = self.users.get(user)
        if not self._checkpw(password, self._dummy if hashed is None else hashed) or hashed is None:
            return False
        with self._lock:
            self._ok.add(key)
        return True

    def _checkpw(self, password: str, hashed: bytes) -> bool:
        if not self._waiters.acquire(blocking=False):
            return False
        try:
            return bool(self._bcrypt_thread.submit(self._bcrypt.checkpw, password.encode(), hashed).result())
        except ValueError:  # a NUL byte, which bcrypt refuses: a wrong password, not a fault
            return False
        finally:
            self._waiters.release()


def _mapping(path: str, data: dict, key: str) -> dict:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: {key}: expected a mapping, got {type(value).__name__} {value!r:.40}")
    return value


def _text(path: str, tls: dict, key: str, default: str | None = None) -> str | None:
    value = tls.get(key, default)
    if value is not None and not isinstance(value, str):
        raise ConfigError(
            f"{path}: tls_server_config.{key}: expected a string, got {type(value).__name__} {value!r:.40}"
        )
    return value


def tls_context(path: str, tls: dict) -> ssl.SSLContext:
    bad = sorted(str(k) for k in set(tls) - TLS_KEYS)
    if bad:
        raise ConfigError(f"{path}: tls_server_config: unknown key(s) {', '.join(bad)}")
    cert, key, ca = _text(path, tls, "cert_file"), _text(path, tls, "key_file"), _text(path, tls, "client_ca_file")
    if not cert or not key:
        raise ConfigError(f"{path}: tls_server_config needs cert_file and key_file")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.set_ciphers(TLS12_CIPHERS)
    versions = {k: _text(path, tls, k) for k in ("min_version", "max_version")}
    for name, version in versions.items():
        if version is not None and version not in TLS_VERSIONS:
            raise ConfigError(f"{path}: tls_server_config.{name} must be one of {', '.join(sorted(TLS_VERSIONS))}")
    context.minimum_version = TLS_VERSIONS[versions["min_version"] or "TLS12"]
    if versions["max_version"]:
        if TLS_VERSIONS[versions["max_version"]] < context.minimum_version:
            raise ConfigError(f"{path}: tls_server_config.max_version is below min_version")
        context.maximum_version = TLS_VERSIONS[versions["max_version"]]
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as e:
        raise ConfigError(f"{path}: cannot load the certificate or key: {e}") from None
    auth_type = _text(path, tls, "client_auth_type", "NoClientCert")
    if auth_type == "RequireAnyClientCert":
        raise ConfigError(
            f"{path}: client_auth_type RequireAnyClientCert (any certificate, unverified) is not supported: "
            "use RequireAndVerifyClientCert with client_ca_file"
        )
    if auth_type not in CLIENT_AUTH:
        raise ConfigError(f"{path}: client_auth_type must be one of {', '.join(sorted(CLIENT_AUTH))}")
    if auth_type in ("RequireAndVerifyClientCert", "VerifyClientCertIfGiven") and not ca:
        raise ConfigError(f"{path}: client_auth_type {auth_type} needs client_ca_file")
    if ca:
        try:
            context.load_verify_locations(ca)
        except (OSError, ssl.SSLError) as e:
            raise ConfigError(f"{path}: cannot load client_ca_file: {e}") from None
    context.verify_mode = CLIENT_AUTH[auth_type]
    return context


def read_web_config(path: str) -> dict:
    import yaml

    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        if os.stat(path).st_mode & 0o002:
            log.warning("%s: writable by every user, who can change who may scrape: chmod o-w it", path)
    except OSError as e:
        raise ConfigError(f"--web.config.file {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"--web.config.file {path}: not UTF-8 (byte {e.start})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: invalid YAML: {e}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping")
    bad = sorted(str(k) for k in set(data) - WEB_KEYS)
    if bad:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(bad)}")
    return data


def load_web_config(path: str | None) -> tuple[ssl.SSLContext | None, BasicAuth | None]:
    if not path:
        return None, None
    data = read_web_config(path)
    if data.get("http_server_config"):
        raise ConfigError(f"{path}: http_server_config is not supported (HTTP/2 and extra headers are not served)")
    tls, users = _mapping(path, data, "tls_server_config"), _mapping(path, data, "basic_auth_users")
    context = tls_context(path, tls) if tls else None
    try:
        auth = BasicAuth(users) if users else None
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None
    if "basic_auth_users" in data and not users:
        log.warning("%s: basic_auth_users is empty: every client may scrape, without a password", path)
    elif context is None and auth is None:
        log.warning("%s: sets neither TLS nor basic auth: serving plain HTTP to every client", path)
    return context, auth


log = logging.getLogger(__name__)

LANDING = b"""<html><head><title>ceph-scale-exporter</title></head><body>
<h1>ceph-scale-exporter</h1><p><a href="%s">Metrics</a></p></body></html>"""


PROBES = ("/-/healthy", "/-/ready")


def make_handler(path: str, collector, auth: BasicAuth | None):
    gzipped = GzipCache()

    class Handler(BoundedHandler):
        server_version = "ceph-scale-exporter"

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            route = self.path.split("?", 1)[0]
            # Liveness and readiness say nothing about the cluster, and a container's healthcheck
            # or a kubelet's probe has no password (only bcrypt hashes are configured): they stay open.
            if auth is not None:
                self.authorized = route not in PROBES and auth.check(self.headers.get("Authorization"))
                if not self.authorized and route not in PROBES:
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
            elif route in PROBES:
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
        # The handshake runs in the server's waiting room, without blocking, not in accept().
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    threading.Thread(target=server.serve_forever, name="http", daemon=True).start()
    return server
