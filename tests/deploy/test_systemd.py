"""The packages path (docs/deploy.md, "Packages (systemd)"): the guide's install and credential
steps run as written, then the unit's ExecStart as the unit says, against the real cluster.

This machine has no systemd as PID 1. Each step runs in a private mount namespace whose /etc,
/opt, /usr/local and /var/lib are overlays on the host's, their changes kept in a scratch
directory: pipx installs into /opt/pipx and /usr/local/bin, systemd-sysusers adds the user,
and nothing of the host changes. The unit's confinement is given as far as a mount namespace
and seccomp can give it: user, no new privileges, no capabilities, read-only file system but
the state directory, private /tmp, no homes, and the unit's SystemCallFilter= and
MemoryDenyWriteExecute= as seccomp filters (python3-seccomp, libseccomp's binding), a refused
call killing the process rather than failing quietly. The kernel protections only systemd applies.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import socket
import ssl
import subprocess
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ceph_scale.core.registry import SOURCES
from cluster.commands import documented_caps
from demo.sidecar import parse_exposition
from tests.deploy.source_tree import REPO
from tests.deploy.test_wheel import wheel  # noqa: F401  (the fixture: the wheel built from the checkout)

pytestmark = pytest.mark.cluster

UNIT = "/etc/systemd/system/ceph-scale-exporter.service"
OVERLAID = ("/etc", "/opt", "/usr/local", "/var/lib")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def guide_blocks() -> list[str]:
    """The shell blocks of the guide's "Packages (systemd)" section, in order."""
    text = (REPO / "docs/deploy.md").read_text()
    section = text.split("\n## Packages (systemd)\n", 1)[1].split("\n## ", 1)[0]
    return [textwrap.dedent(b) for b in re.findall(r"^( *```sh\n.*?)^ *```$", section, re.M | re.S)]


def guide_step(index: int) -> str:
    return guide_blocks()[index].split("\n", 1)[1]


class Host:
    """The host's file system as the guide changes it, seen from private mount namespaces."""

    def __init__(self, root: Path) -> None:
        self.root = root
        for top in OVERLAID:
            (root / "upper" / top.strip("/")).mkdir(parents=True, exist_ok=True)
            (root / "work" / top.strip("/")).mkdir(parents=True, exist_ok=True)

    def path(self, name: str) -> Path:
        """Where a file the guide wrote under one of the overlaid directories is kept."""
        return self.root / "upper" / name.lstrip("/")

    def overlays(self) -> str:
        return "".join(
            f"mount -t overlay overlay -o lowerdir={top},upperdir={self.root / 'upper' / top.strip('/')},"
            f"workdir={self.root / 'work' / top.strip('/')} {top}\n"
            for top in OVERLAID
        )

    def argv(self, script: str) -> list[str]:
        return ["unshare", "--mount", "--propagation", "private", "sh", "-euc", self.overlays() + script]

    def run(self, script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
        environ = {"PATH": PATH, "HOME": str(self.root / "home"), "LANG": "C.UTF-8", **env}
        (self.root / "home").mkdir(exist_ok=True)
        proc = subprocess.run(self.argv(script), cwd=cwd, env=environ, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{script}\n{proc.stdout}\n{proc.stderr}"
        return proc


def unit_settings(text: str) -> dict[str, list[str]]:
    """{key: [values]} of a unit file's [Service] section (a key may repeat)."""
    out: dict[str, list[str]] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and line and not line.startswith("#"):
            key, value = line.split("=", 1)
            out.setdefault(key, []).append(value)
    return out


def environment_file(text: str) -> dict[str, str]:
    """KEY=value lines as systemd reads an EnvironmentFile (quotes removed)."""
    out = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            out[key.strip()] = " ".join(shlex.split(value))
    return out


def exec_start(unit: dict[str, list[str]], env: dict[str, str]) -> list[str]:
    """ExecStart's argv: an unbraced $VAR becomes its value's words, as systemd splits it."""
    argv: list[str] = []
    for word in unit["ExecStart"][0].split():
        argv += env.get(word[1:], "").split() if word.startswith("$") else [word]
    return argv


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def passwd_entry(host: Host, user: str) -> list[str]:
    for line in host.path("/etc/passwd").read_text().splitlines():
        if line.split(":")[0] == user:
            return line.split(":")
    raise AssertionError(f"no user {user} in the overlay's /etc/passwd")


@pytest.fixture(scope="module")
def host(wheel, ceph_cluster, tmp_path_factory) -> Host:  # noqa: F811
    """Steps 1 and 2 of the guide done, on the real Pacific cluster."""
    host = Host(tmp_path_factory.mktemp("systemd-host"))
    host.run(guide_step(0), cwd=wheel.parent)
    # The host's ceph.conf, as an admin host has it.
    conf = host.path("/etc/ceph/ceph.conf")
    conf.parent.mkdir(parents=True, exist_ok=True)
    conf.write_text(ceph_cluster.ceph("config", "generate-minimal-conf", fmt_json=False))
    operator = tmp_path_factory.mktemp("operator")
    (operator / "rgw-admin.json").write_text((ceph_cluster.dir / "rgw-keys.json").read_text())
    host.run(guide_step(1), cwd=operator, CEPH_CONF=str(ceph_cluster.conf_path))
    return host


def test_the_guide_installs_the_unit_the_wheel_carries(host):
    assert host.path(UNIT).read_bytes() == (REPO / "deploy/systemd/ceph-scale-exporter.service").read_bytes()
    command = host.path("/usr/local/bin/ceph-scale-exporter")
    assert command.is_symlink() and str(os.readlink(command)).startswith("/opt/pipx/venvs/"), os.readlink(command)
    user = passwd_entry(host, "ceph-scale")
    assert int(user[2]) < 1000 and user[5:] == ["/var/lib/ceph-scale", "/usr/sbin/nologin"], user
    uid = int(user[2])
    for name in (
        "/etc/ceph/ceph.client.ceph-scale.keyring",
        "/etc/ceph-scale/rgw-admin.json",
        "/etc/ceph-scale/config.yml",
    ):
        st = host.path(name).stat()
        assert (st.st_uid, st.st_mode & 0o777) == (uid, 0o600), name
    conf_dir = host.path("/etc/ceph-scale").stat()
    assert (conf_dir.st_uid, conf_dir.st_mode & 0o777) == (0, 0o750)


def test_the_guide_creates_the_documented_cephx_user(host, ceph_cluster):
    caps = ceph_cluster.ceph("auth", "get", "client.ceph-scale")[0]["caps"]
    assert caps == documented_caps("docs/security.md", "client.ceph-scale")


def test_systemd_analyze_accepts_the_installed_unit(host, tmp_path):
    """verify fails when ExecStart's command is missing or a setting is unknown; the exposure
    figure is systemd's own rating of the hardening (lower is tighter, 10 is none)."""
    verify = host.run(f"systemd-analyze verify {UNIT}", cwd=tmp_path)
    assert verify.stdout == verify.stderr == "", verify.stderr
    security = host.run(f"systemd-analyze security --offline=true --no-pager {UNIT}", cwd=tmp_path).stdout
    exposure = float(re.search(r"Overall exposure level for \S+: ([0-9.]+)", security).group(1))
    print(f"systemd-analyze security: exposure {exposure}")
    assert exposure <= 2.0, security[-2000:]


# Loads the unit's system call filters, then execs the command: run by the system Python
# after setpriv (no new privileges, so no privilege is needed to load them).
SECCOMP_EXEC = """
import errno, json, os, sys
try:
    import seccomp
except ImportError:
    sys.exit("python3-seccomp is needed to apply the unit's system call filter: apt-get install python3-seccomp")
spec = json.loads(sys.argv[1])
if spec["mdwe"]:  # as systemd's MemoryDenyWriteExecute=: no W+X mapping, no making memory executable
    mdwe = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    W, X, SHM_EXEC = 0x2, 0x4, 0o100000
    deny = seccomp.ERRNO(errno.EPERM)
    mdwe.add_rule(deny, "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, W | X, W | X))
    mdwe.add_rule(deny, "mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, X, X))
    mdwe.add_rule(deny, "pkey_mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, X, X))
    mdwe.add_rule(deny, "shmat", seccomp.Arg(2, seccomp.MASKED_EQ, SHM_EXEC, SHM_EXEC))
    mdwe.load()
calls = seccomp.SyscallFilter(defaction=seccomp.KILL_PROCESS)
for name in spec["allow"]:
    try:
        calls.add_rule(seccomp.ALLOW, name)
    except (RuntimeError, ValueError):  # a call this kernel or architecture does not have
        pass
calls.load()
os.execv(spec["argv"][0], spec["argv"])
"""


def syscall_group(name: str) -> set[str]:
    """The calls of a name in SystemCallFilter=: a call, or a group as systemd-analyze lists it."""
    if not name.startswith("@"):
        return {name}
    out = subprocess.run(["systemd-analyze", "syscall-filter", name], capture_output=True, text=True, check=True)
    lines = [ln.strip() for ln in out.stdout.splitlines()[1:]]
    return set().union(*(syscall_group(ln) for ln in lines if ln and not ln.startswith("#")))


def allowed_calls(unit: dict[str, list[str]]) -> set[str]:
    """SystemCallFilter= as systemd reads its lines: the first (an allow list here) sets the
    calls; later lines take calls away (~) or add them back."""
    first, *rest = unit["SystemCallFilter"]
    assert not first.startswith("~"), "the filter starts with an allow list"
    allowed = set().union(*(syscall_group(n) for n in first.split()))
    for line in rest:
        names = set().union(*(syscall_group(n) for n in line.lstrip("~").split()))
        allowed = allowed - names if line.startswith("~") else allowed | names
    return allowed


def confined(host: Host, unit: dict[str, list[str]], argv: list[str], env: dict[str, str]) -> list[str]:
    """The namespace argv that runs `argv` confined as the unit says, as far as mounts can."""
    (user,), (group,) = unit["User"], unit["Group"]
    (state,), (state_mode,), (umask,) = unit["StateDirectory"], unit["StateDirectoryMode"], unit["UMask"]
    assert unit["ProtectSystem"] == ["strict"] and unit["PrivateTmp"] == unit["ProtectHome"] == ["true"]
    assert unit["NoNewPrivileges"] == ["true"] and unit["CapabilityBoundingSet"] == [""]
    state_dir = f"/var/lib/{state}"
    seccomp_spec = {
        "argv": argv,
        "allow": sorted(allowed_calls(unit)),
        "mdwe": unit.get("MemoryDenyWriteExecute") == ["true"],
    }
    environ = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    script = f"""
install -d -m {state_mode} -o {user} -g {group} {state_dir}
for top in / /run {" ".join(OVERLAID)}; do
    if mountpoint -q "$top"; then mount -o remount,bind,ro "$top"; fi
done
mount --bind {state_dir} {state_dir}
mount -o remount,bind,rw {state_dir}
for private in /tmp /root /home /run/user; do
    if [ -d "$private" ]; then mount -t tmpfs -o mode=0755 tmpfs "$private"; fi
done
umask {umask}
exec env -i PATH={PATH} HOME={state_dir} USER={user} LOGNAME={user} {environ} \\
    setpriv --reuid={user} --regid={group} --init-groups --no-new-privs --inh-caps=-all --bounding-set=-all \\
    -- /usr/bin/python3 -I -c {shlex.quote(SECCOMP_EXEC)} {shlex.quote(json.dumps(seccomp_spec))}
"""
    return host.argv(script)


def web_config(host: Host, uid: int) -> str:
    """TLS and basic auth (step 3): /etc/ceph-scale/web-config.yml and its files, the user's,
    mode 0600; basic auth runs bcrypt in a thread of lower priority (setpriority)."""
    etc = host.path("/etc/ceph-scale")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-keyout", str(etc / "tls.key"), "-out", str(etc / "tls.crt")],
        check=True, capture_output=True,
    )  # fmt: skip
    hashed = subprocess.run(
        ["/usr/bin/python3", "-c", "import bcrypt; print(bcrypt.hashpw(b'scrape', bcrypt.gensalt(rounds=4)).decode())"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    (etc / "web-config.yml").write_text(
        "tls_server_config:\n  cert_file: /etc/ceph-scale/tls.crt\n  key_file: /etc/ceph-scale/tls.key\n"
        f"basic_auth_users:\n  prometheus: '{hashed}'\n"
    )
    for name in ("tls.key", "tls.crt", "web-config.yml"):
        os.chown(etc / name, uid, uid)
        os.chmod(etc / name, 0o600)
    return "--web.config.file=/etc/ceph-scale/web-config.yml"


def scrape(url: str, password: str = "scrape") -> dict:
    """/metrics over TLS (the test's own certificate) as the basic-auth user."""
    tls = ssl.create_default_context()
    tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE
    auth = base64.b64encode(f"prometheus:{password}".encode()).decode()
    request = urllib.request.Request(url, headers={"Authorization": f"Basic {auth}"})
    with urllib.request.urlopen(request, timeout=10, context=tls) as r:
        return parse_exposition(r.read().decode())


def test_the_units_exec_start_serves_every_source_as_its_user(host, ceph_cluster, tmp_path):
    config = host.path("/etc/ceph-scale/config.yml")
    config.write_text(config.read_text().replace("http://rgw.example:8080", ceph_cluster.rgw_endpoint))
    unit = unit_settings(host.path(UNIT).read_text())
    (env_file,) = unit["EnvironmentFile"]
    defaults = host.path(env_file.lstrip("-"))
    port = free_port()
    uid = passwd_entry(host, unit["User"][0])[2]
    # Step 3's edits: another port (9928 may be taken on a shared machine), TLS and basic auth.
    more = f"--web.listen-address=127.0.0.1:{port} {web_config(host, int(uid))}"
    defaults.write_text(re.sub(r'^(ARGS=".*)"$', rf'\1 {more}"', defaults.read_text(), flags=re.M))
    env = environment_file(defaults.read_text())
    argv = exec_start(unit, env)
    assert argv[0] == "/usr/local/bin/ceph-scale-exporter" and "--ceph-user=ceph-scale" in argv, argv
    log = tmp_path / "exporter.log"
    with log.open("w") as out:
        proc = subprocess.Popen(confined(host, unit, argv, env), stdout=out, stderr=subprocess.STDOUT, cwd="/")
    try:
        deadline = time.monotonic() + 120
        success: dict = {}
        while time.monotonic() < deadline and success != {s.name: 1.0 for s in SOURCES}:
            assert proc.poll() is None, log.read_text()[-3000:]
            time.sleep(1)
            try:
                metrics = scrape(f"https://127.0.0.1:{port}/metrics")
            except OSError:
                continue
            success = {dict(k)["source"]: v for k, v in metrics.get("ceph_scale_source_success", {}).items()}
        assert success == {s.name: 1.0 for s in SOURCES}, log.read_text()[-3000:]
        with pytest.raises(urllib.error.HTTPError, match="401"):
            scrape(f"https://127.0.0.1:{port}/metrics", password="wrong")
        status = dict(line.split(":\t", 1) for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines())
        assert status["Uid"].split()[0] == uid and status["NoNewPrivs"].strip() == "1", status
        assert status["Seccomp"].strip() == "2" and int(status["Seccomp_filters"]) >= 1, status  # filters on
        assert int(status["CapBnd"], 16) == int(status["CapEff"], 16) == 0, status
        state = host.path("/var/lib/ceph-scale/state.json")
        deadline = time.monotonic() + 60
        while not state.exists() and time.monotonic() < deadline:
            time.sleep(1)
        assert state.exists() and str(state.stat().st_uid) == uid, log.read_text()[-3000:]
        json.loads(state.read_text())
        for refusal in ("Permission denied", "Read-only file system", "Operation not permitted", "Traceback"):
            assert refusal not in log.read_text(), refusal
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
