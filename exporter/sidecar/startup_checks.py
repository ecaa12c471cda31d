"""The sidecar's settings checked against the host before it starts.

A setting that cannot work is refused with a ConfigError naming it (the command exits 2 with
that one line); one that works but exposes something is collected as one warning line, which
the command logs once it has started. Nothing here talks to Ceph or the RGW.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import stat
import urllib.parse
from dataclasses import dataclass, field

from ceph_scale.core.config import ConfigError

from . import state_lock
from .rgw_admin import RgwCredentials

ACCESS_ENV, SECRET_ENV = "CEPH_SCALE_RGW_ACCESS_KEY", "CEPH_SCALE_RGW_SECRET_KEY"
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# Where librados looks for a keyring when none is named (Ceph's `keyring` option default).
DEFAULT_KEYRINGS = (
    "/etc/ceph/$cluster.$name.keyring",
    "/etc/ceph/$cluster.keyring",
    "/etc/ceph/keyring",
    "/etc/ceph/keyring.bin",
)


@dataclass
class StartupNotes:
    """What the checks found that does not stop the start: one line each."""

    warnings: list[str] = field(default_factory=list)


def _reason(e: OSError) -> str:
    return e.strerror or type(e).__name__


def read_ceph_conf(path: str) -> dict[str, dict[str, str]]:
    """ceph.conf's options by section, names as Ceph reads them (spaces and dashes are underscores)."""
    sections: dict[str, dict[str, str]] = {"global": {}}
    current = sections["global"]
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.split("#", 1)[0].split(";", 1)[0].strip()
            if line.startswith("[") and line.endswith("]"):
                current = sections.setdefault(line[1:-1].strip(), {})
            elif "=" in line:
                key, value = line.split("=", 1)
                current[re.sub(r"[\s-]+", "_", key.strip())] = value.strip()
    return sections


def check_ceph_conf(path: str, named: str | None, notes: StartupNotes) -> dict[str, dict[str, str]] | None:
    """The ceph.conf the client will read, refused when the setting `named` it (--ceph-conf,
    $CEPH_CONF) and it is not there or cannot be read. The default path absent, the client is
    left to Ceph's own defaults (CEPH_ARGS, its search path): that starts, with a warning, and
    None is returned."""
    setting = named or "ceph.conf"
    try:
        if os.path.isdir(path):
            raise ConfigError(f"{setting} {path}: is a directory, not a ceph.conf")
        return read_ceph_conf(path)
    except FileNotFoundError:
        if named:
            raise ConfigError(f"{setting} {path}: no such file") from None
        notes.warnings.append(f"{path}: no such file; the Ceph client is left to Ceph's defaults (CEPH_ARGS)")
        return None
    except OSError as e:
        raise ConfigError(f"{setting} {path}: cannot be read: {_reason(e)}") from None


def conf_fsid(conf: dict[str, dict[str, str]]) -> str:
    """The cluster's fsid as ceph.conf names it, or ""."""
    fsid = conf.get("global", {}).get("fsid", "")
    return fsid.lower() if UUID.fullmatch(fsid) else ""


def check_keyring(explicit: str | None, user: str, conf: dict[str, dict[str, str]], notes: StartupNotes) -> None:
    """The cephx keyring: one named must be a readable file; whichever is used, one others can
    read gives away the cluster key, and is said."""
    name = user if "." in user else f"client.{user}"
    if explicit:
        try:
            with open(explicit, "rb"):
                pass
        except OSError as e:
            raise ConfigError(f"--ceph-keyring {explicit}: cannot be read: {_reason(e)}") from None
        candidates = [explicit]
    else:
        listed = next((conf[s]["keyring"] for s in (name, "client", "global") if "keyring" in conf.get(s, {})), None)
        paths = listed.split(",") if listed else list(DEFAULT_KEYRINGS)
        candidates = [p.strip().replace("$cluster", "ceph").replace("$name", name) for p in paths]
    for path in candidates:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode) and mode & 0o077:
            notes.warnings.append(
                f"cephx keyring {path} is readable by group or others (mode {stat.S_IMODE(mode):04o}): "
                "whoever reads it holds the key; chmod 600 it"
            )
        return


def check_state_file(path: str, setting: str, notes: StartupNotes, *, once: bool) -> bool:
    """The state file must be writable where it is, or every reshard count would be lost at the
    next restart: its directory must exist and take a file (tried for real, as permissions alone
    do not say it for root or a read-only mount). It is locked first (state_lock.py), so a second
    exporter is refused before it touches anything of the first's. True: this process may write
    it; False: a `once` run on a file a serving exporter holds, read and left as it is."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ConfigError(f"{setting} {path}: is a directory")
    if not os.path.isdir(directory):
        raise ConfigError(f"{setting} {path}: directory {directory} does not exist")
    held = state_lock.hold(path, setting, read_only_ok=once)
    if held.warning:
        notes.warnings.append(held.warning)
    if held.shared:
        return False
    probe = f"{path}.probe-{os.getpid()}"  # not the .tmp a save goes through
    try:
        with open(probe, "w", encoding="utf-8"):
            pass
        os.unlink(probe)
    except OSError as e:
        raise ConfigError(f"{setting} {path}: cannot write in {directory}: {_reason(e)}") from None
    return True


def check_endpoint(endpoint: str, setting: str) -> None:
    parsed = urllib.parse.urlsplit(endpoint)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"{setting} {endpoint!r:.100}: expected http(s)://host:port")
    try:
        parsed.port  # noqa: B018  # raises on a port that is not a number or out of range
    except ValueError as e:
        raise ConfigError(f"{setting} {endpoint!r:.100}: {e}") from None


def endpoint_warnings(endpoint: str, verify_tls: bool, notes: StartupNotes) -> None:
    """SigV4 never sends the secret key, but over plain HTTP off this host the Admin Ops answers
    (every bucket's name, owner and size) and the signed requests travel readable and alterable."""
    parsed = urllib.parse.urlsplit(endpoint)
    if parsed.scheme == "http" and not _loopback(parsed.hostname or ""):
        notes.warnings.append(
            f"RGW endpoint {endpoint} is plain HTTP: the secret key is never sent, but the access key, the "
            "signed requests and the Admin Ops answers cross the network readable; use https"
        )
    if parsed.scheme == "https" and not verify_tls:
        notes.warnings.append(
            f"rgw.verify_tls is false: the RGW at {endpoint} is not authenticated, whoever answers in its "
            "place gets the signed requests"
        )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def load_rgw_credentials(path: str | None, setting: str, notes: StartupNotes) -> RgwCredentials | None:
    """The RGW admin keys: from a file only its owner can read, else from the environment,
    which starts with a warning (any process of this user, and /proc of a container's host,
    can read it)."""
    if path:
        try:
            mode = os.stat(path).st_mode
            # The keys are secrets: a file others can read is refused, as the docs ask for 0600.
            if mode & 0o077:
                raise ConfigError(f"{setting} {path}: readable by group or others; chmod 600 it")
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as e:
            raise ConfigError(f"{setting} {path}: cannot be read: {_reason(e)}") from None
        except ValueError as e:  # not JSON, or not UTF-8
            raise ConfigError(
                f"{setting} {path}: expected a JSON object with access_key and secret_key ({e})"
            ) from None
        if not isinstance(data, dict):
            raise ConfigError(f"{setting} {path}: expected a JSON object with access_key and secret_key")
        missing = [k for k in ("access_key", "secret_key") if not isinstance(data.get(k), str) or not data[k]]
        if missing:
            raise ConfigError(f"{setting} {path}: no {' or '.join(missing)} (a non-empty string)")
        return RgwCredentials(data["access_key"], data["secret_key"])
    access, secret = os.environ.get(ACCESS_ENV), os.environ.get(SECRET_ENV)
    if access and secret:
        notes.warnings.append(
            f"RGW keys taken from {ACCESS_ENV} and {SECRET_ENV}: every process of this user can read them "
            "(/proc/<pid>/environ); prefer --rgw-credentials-file (mode 600)"
        )
        return RgwCredentials(access, secret)
    if access or secret:
        raise ConfigError(f"{ACCESS_ENV} and {SECRET_ENV}: only one of the two is set")
    return None
