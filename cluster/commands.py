"""The test cluster's command wrappers: the ceph and radosgw-admin CLIs, admin sockets, the
RGW Admin Ops API, the manager's /metrics, and the config database.

A mixin of TestCluster (cluster/testcluster.py): it runs them with the cluster's own
configuration, keyring and release.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from cluster.helpers import CephError
from cluster.host import ClusterHost
from cluster.releases import REPO

# The identities docs/security.md tells operators to give the sidecar: a read-only cephx user and
# a read-only RGW user, made by the commands written there.
SECURITY_DOC = "docs/security.md"
DOCUMENTED_CEPH_USER = "ceph-scale"
DOCUMENTED_RGW_USER = "ceph-scale-ro"


def documented_command(doc: str, prefix: str) -> list[str]:
    """The first command of a shell block of `doc` (relative to the checkout) that starts with
    `prefix`, its continuation lines joined, split as the shell splits it: tests run what the
    documentation tells operators to run, not a copy that could drift from it."""
    text = (REPO / doc).read_text(encoding="utf-8")
    for block in re.findall(r"```(?:sh|bash|console)\n(.*?)```", text, flags=re.S):
        for command in block.replace("\\\n", " ").splitlines():
            if command.strip().startswith(prefix):
                return shlex.split(command, comments=True)
    raise ValueError(f"{doc} documents no command starting with {prefix!r}")


def documented_user_command(doc: str, name: str) -> list[str]:
    """The documented `ceph auth get-or-create <name> <caps> -o <keyring>`."""
    argv = documented_command(doc, f"ceph auth get-or-create {name} ")
    if "-o" not in argv or argv.index("-o") % 2 or argv.index("-o") != len(argv) - 2:
        raise ValueError(f"{doc}: the get-or-create of {name} is not '<caps> -o <keyring>'")
    return argv


def documented_rgw_user_command(doc: str, uid: str) -> list[str]:
    """The documented `radosgw-admin user create --uid <uid> ...`."""
    return documented_command(doc, f"radosgw-admin user create --uid {uid} ")


def documented_caps(doc: str, name: str) -> dict[str, str]:
    """{daemon type: cap} of the documented cephx user `name`."""
    caps = documented_user_command(doc, name)[4:-2]
    return dict(zip(caps[::2], caps[1::2]))


class ClusterCommands(ClusterHost):
    def _run(self, argv: list[str], timeout: float = 60, input_data: bytes | None = None) -> str:
        try:
            proc = subprocess.run(self.release.command(argv), capture_output=True, timeout=timeout,
                                  input=input_data, env=self.env())  # fmt: skip
        except subprocess.TimeoutExpired as e:
            raise CephError(f"{' '.join(argv[:8])} timed out after {timeout:g}s") from e
        if proc.returncode != 0:
            raise CephError(
                f"{' '.join(argv[:8])} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-800:]}"
            )
        return proc.stdout.decode(errors="replace")

    def ceph(self, *args: str, fmt_json: bool = True, timeout: float = 60, input_data: bytes | None = None) -> Any:
        """Run the ceph CLI against this cluster: parsed JSON (fmt_json) or the text output."""
        argv = ["ceph", "--conf", str(self.conf_path), "--connect-timeout", str(int(max(5, timeout))), *args]
        if fmt_json:
            argv += ["--format", "json"]
        out = self._run(argv, timeout, input_data)
        if not fmt_json:
            return out
        out = out.strip()
        return json.loads(out) if out else None

    def radosgw_admin(self, *args: str, fmt_json: bool = True, timeout: float = 60) -> Any:
        """Run radosgw-admin (as client.admin) against this cluster: parsed JSON or text."""
        out = self._run(["radosgw-admin", "--conf", str(self.conf_path), *args], timeout).strip()
        if not fmt_json:
            return out
        return json.loads(out) if out else None

    def rados(self, *args: str, timeout: float = 60) -> str:
        """Run the rados CLI (as client.admin) against this cluster: its text output."""
        return self._run(["rados", "--conf", str(self.conf_path), *args], timeout)

    def ceph_batch(self, commands: list[str], timeout: float = 120) -> str:
        """Run several ceph commands (CLI syntax, one per item, no quoting) through one `ceph`
        process reading them on stdin: one start-up and one connection instead of one per command.
        Raises CephError if any command printed an error."""
        if not commands:
            return ""
        argv = ["ceph", "--conf", str(self.conf_path), "--connect-timeout", str(int(timeout))]
        try:
            proc = subprocess.run(self.release.command(argv), capture_output=True, timeout=timeout, env=self.env(),
                                  input="\n".join(commands).encode() + b"\n")  # fmt: skip
        except subprocess.TimeoutExpired as e:
            raise CephError(f"ceph batch of {len(commands)} commands timed out after {timeout:g}s") from e
        err = proc.stderr.decode(errors="replace")
        if proc.returncode != 0 or any(line.startswith("Error ") for line in err.splitlines()):
            raise CephError(f"ceph batch {commands} failed: {err[-800:]}")
        return proc.stdout.decode(errors="replace")

    def create_documented_user(
        self, doc: str, name: str, keyring: Path, as_name: str | None = None, key_type: str | None = None
    ) -> dict[str, str]:
        """`ceph auth get-or-create <name> <caps> -o <path>` exactly as `doc` documents it, the
        keyring written to `keyring` (mode 0600, as the exporter wants it) instead of the
        documented path; the caps it was given. `as_name`: the same caps for a user of another
        name (a test that counts one client's own reads by its admin sockets' name); `key_type`:
        with `--key-type` (README: an older clients' key on Tentacle)."""
        argv = documented_user_command(doc, name)
        argv[argv.index("-o") + 1] = str(keyring)
        if as_name is not None:
            argv[3] = as_name
        if key_type is not None:
            argv += ["--key-type", key_type]
        self.ceph(*argv[1:], fmt_json=False)
        os.chmod(keyring, 0o600)
        return documented_caps(doc, name)

    def create_documented_rgw_user(self, doc: str, uid: str) -> tuple[str, str]:
        """`radosgw-admin user create --uid <uid> ...` exactly as `doc` documents it; its (access,
        secret) keys. A user of that uid already there (an earlier test made it) is taken as it
        is, if it has the documented caps."""
        argv = documented_rgw_user_command(doc, uid)
        try:
            user = self.radosgw_admin("user", "info", "--uid", uid)
        except CephError:  # not there yet
            user = self.radosgw_admin(*argv[1:])
        caps = argv[argv.index("--caps") + 1] if "--caps" in argv else ""
        wanted = sorted(tuple(c.split("=", 1)) for c in caps.split(";") if c)
        if sorted((c["type"], c["perm"]) for c in user.get("caps", [])) != wanted:
            raise CephError(f"RGW user {uid} has caps {user.get('caps')}, not the documented {caps!r} ({doc})")
        return user["keys"][0]["access_key"], user["keys"][0]["secret_key"]

    def set_documented_config_key(self, doc: str, key: str, value: str) -> None:
        """`ceph config-key set <key> -i <file>` exactly as `doc` documents it, the value in a
        0600 file of the cluster's run directory instead of the documented path (a secret on no
        command line)."""
        argv = documented_command(doc, f"ceph config-key set {key} -i ")
        path = self.dir / "run" / f"config-key.{key.replace('/', '.')}"
        path.touch(mode=0o600)
        path.write_text(value)
        argv[argv.index("-i") + 1] = str(path)
        try:
            self.ceph(*argv[1:], fmt_json=False)
        finally:
            path.unlink()

    def pool_id(self, name: str) -> int:
        return next(p["pool"] for p in self.ceph("osd", "dump")["pools"] if p["pool_name"] == name)

    def pool_scrub_intervals(self, pool: str, seconds: int) -> None:
        """The pool's own scrub_max_interval and deep_scrub_interval; 0 gives it the cluster's again."""
        for key in ("scrub_max_interval", "deep_scrub_interval"):
            self.ceph("osd", "pool", "set", pool, key, str(seconds), fmt_json=False)

    def admin_socket(self, daemon: str, *args: str, timeout: float = 30) -> Any:
        """`ceph daemon <daemon> <args>` on the daemon's admin socket (<dir>/run/<daemon>.asok)."""
        out = self._run(["ceph", "--conf", str(self.conf_path), "daemon", daemon, *args], timeout).strip()
        try:
            return json.loads(out) if out else None
        except json.JSONDecodeError:
            return out

    def mgr_metrics(self, timeout: float = 30) -> str:
        """The text of the mgr prometheus module's /metrics, asked again while its server refuses
        for at most `timeout` seconds in all.

        Tentacle's module restarts its server on any change of a manager option (`config_notify`,
        `mgr/scale/*` included), and it refuses for up to 10 s while it waits for its port: a test
        that set an option a moment before would otherwise read that restart as a failure."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                left = max(0.5, deadline - time.monotonic())
                with urllib.request.urlopen(self.mgr_prometheus_url, timeout=left) as r:
                    return r.read().decode()
            except urllib.error.URLError as e:
                if not isinstance(e.reason, ConnectionRefusedError) or time.monotonic() + 0.5 > deadline:
                    raise
            time.sleep(0.5)

    def set_config(self, settings: list[tuple[str, str, str]]) -> None:
        """Set (who, option, value) triples (values without spaces) in the config database with one
        `config assimilate-conf`;
        what it leaves over (mgr module options, which the mon does not know before a mgr reports
        them, and options already set) is set one by one with `config set --force`."""
        sections: dict[str, list[str]] = {}
        for who, key, value in settings:
            sections.setdefault(who, []).append(f"{key} = {value}")
        conf = self.dir / "run" / "assimilate.conf"
        conf.write_text("".join(f"[{who}]\n" + "".join(f"{x}\n" for x in lines) for who, lines in sections.items()))
        leftover = self.ceph("config", "assimilate-conf", "-i", str(conf), fmt_json=False)
        who, rest = "", []
        for line in leftover.splitlines():
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                who = line[1:-1]
            elif "=" in line and who:
                key = line.partition("=")[0].strip()
                wanted = next((v for w, k, v in settings if w == who and k == key), None)
                if wanted is not None:  # --force: the mon knows module options only once a mgr reports them
                    rest.append(f"config set {who} {key} {wanted} --force")
        self.ceph_batch(rest)
