"""Every setting of the sidecar at start, through its real entry point (`python -m exporter`):
a bad one exits 2 with one line naming it, never a traceback; a risky one starts and says so
in one warning line; a sound one starts without a word."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ceph_scale.core.registry import SOURCE_NAMES

REPO = Path(__file__).resolve().parents[2]
FSID = "11111111-2222-3333-4444-555555555555"
SCRUBBED = ("CEPH_CONF", "CEPH_SCALE_RGW_ACCESS_KEY", "CEPH_SCALE_RGW_SECRET_KEY", "CEPH_SCALE_USER", "CEPH_ARGS")
KEYS = '{"access_key": "AKIAEXAMPLE", "secret_key": "s3cr3t"}'
ACCESS_KEY_ONLY = '{"access_key": "AKIAEXAMPLE"}'


def ceph_conf(directory: Path, fsid: str | None = FSID) -> Path:
    conf = directory / "ceph.conf"
    conf.write_text("[global]\n" + (f"fsid = {fsid}\n" if fsid else "") + "mon_host = 127.0.0.1:9\n")
    return conf


def run_once(directory: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The exporter once with every source off (nothing talks to Ceph), against a ceph.conf
    in `directory` that names the fsid unless args name another."""
    argv = [sys.executable, "-m", "exporter", "--once", "--ceph-client=cli"]
    if not any(a.startswith("--ceph-conf") for a in args):
        argv.append(f"--ceph-conf={ceph_conf(directory)}")
    argv += [f"--disable-source={name}" for name in SOURCE_NAMES]
    clean = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    return subprocess.run(
        [*argv, *args], cwd=REPO, capture_output=True, text=True, timeout=60, env={**clean, **(env or {})}
    )


def one_line(result: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def secret_file(directory: Path, text: str = KEYS, mode: int = 0o600) -> Path:
    path = directory / "rgw-admin.json"
    path.write_text(text)
    path.chmod(mode)
    return path


def config(directory: Path, text: str) -> str:
    path = directory / "config.yml"
    path.write_text(text)
    return f"--config.file={path}"


# (case, argv builder, environment, the setting the line must name)
REFUSED = [
    ("ftp endpoint", lambda d: ["--rgw-endpoint=ftp://rgw:21", f"--rgw-credentials-file={secret_file(d)}"], {},
     "--rgw-endpoint"),
    ("ftp endpoint in the file", lambda d: [config(d, "rgw:\n  endpoint: ftp://rgw:21\n"),
                                            f"--rgw-credentials-file={secret_file(d)}"], {}, "rgw.endpoint"),
    ("endpoint port out of range", lambda d: ["--rgw-endpoint=http://rgw:99999",
                                              f"--rgw-credentials-file={secret_file(d)}"], {}, "--rgw-endpoint"),
    ("endpoint without keys", lambda d: ["--rgw-endpoint=http://127.0.0.1:8080"], {}, "--rgw-endpoint"),
    ("keys file without endpoint", lambda d: [f"--rgw-credentials-file={secret_file(d)}"], {},
     "--rgw-credentials-file"),
    ("keys file missing", lambda d: ["--rgw-endpoint=http://127.0.0.1:8080",
                                     f"--rgw-credentials-file={d / 'none.json'}"], {}, "--rgw-credentials-file"),
    ("keys file not JSON", lambda d: ["--rgw-endpoint=http://127.0.0.1:8080",
                                      f"--rgw-credentials-file={secret_file(d, 'access_key=a')}"], {},
     "--rgw-credentials-file"),
    ("keys file without secret_key", lambda d: ["--rgw-endpoint=http://127.0.0.1:8080",
                                                f"--rgw-credentials-file={secret_file(d, ACCESS_KEY_ONLY)}"],
     {}, "secret_key"),
    ("keys file world-readable", lambda d: ["--rgw-endpoint=http://127.0.0.1:8080",
                                            f"--rgw-credentials-file={secret_file(d, mode=0o644)}"], {},
     "--rgw-credentials-file"),
    ("one key in the environment", lambda d: ["--rgw-endpoint=http://127.0.0.1:8080"],
     {"CEPH_SCALE_RGW_ACCESS_KEY": "a"}, "CEPH_SCALE_RGW_SECRET_KEY"),
    ("empty region", lambda d: [config(d, "rgw:\n  region: ''\n")], {}, "rgw.region"),
    ("config file missing", lambda d: [f"--config.file={d / 'none.yml'}"], {}, "--config.file"),
    ("config file a directory", lambda d: [f"--config.file={d}"], {}, "--config.file"),
    ("config file not YAML", lambda d: [config(d, "sources: [\n  pgs: {\n")], {}, "--config.file"),
    ("config file a list", lambda d: [config(d, "- pgs\n")], {}, "--config.file"),
    ("sources a list", lambda d: [config(d, "sources: [pgs]\n")], {}, "sources"),
    ("rgw a string", lambda d: [config(d, "rgw: rgw.example\n")], {}, "rgw"),
    ("interval not a number", lambda d: [config(d, "sources:\n  pgs: {interval: soon}\n")], {},
     "sources.pgs.interval"),
    ("interval negative", lambda d: [config(d, "sources:\n  pgs: {interval: -60}\n")], {}, "sources.pgs.interval"),
    ("stale before the next poll", lambda d: [config(d, "sources:\n  pgs: {interval: 120, stale_after: 60}\n")],
     {}, "sources.pgs"),
    ("threshold not a number", lambda d: [config(d, "thresholds:\n  fill_target_ratio: high\n")], {},
     "fill_target_ratio"),
    ("mgr url not http", lambda d: [config(d, "mgr_prometheus_url: file:///etc/passwd\n")], {},
     "mgr_prometheus_url"),
    ("perf url not http", lambda d: [config(d, "perf_urls: [ftp://host1:9926/metrics]\n")], {}, "perf_urls"),
    ("state file in a missing directory", lambda d: [f"--state-file={d / 'gone' / 'state.json'}"], {},
     "--state-file"),
    ("state file where nothing can be written", lambda d: ["--state-file=/proc/ceph-scale-state.json"], {},
     "--state-file"),
    ("state_file in the file, missing directory", lambda d: [config(d, f"state_file: {d / 'gone' / 's.json'}\n")],
     {}, "state_file"),
    ("ceph.conf missing", lambda d: [f"--ceph-conf={d / 'none.conf'}"], {}, "--ceph-conf"),
    ("$CEPH_CONF missing", lambda d: ["--ceph-conf="], {"CEPH_CONF": "/nonexistent/ceph.conf"}, "$CEPH_CONF"),
    ("keyring missing", lambda d: [f"--ceph-keyring={d / 'none.keyring'}"], {}, "--ceph-keyring"),
    ("empty cluster label", lambda d: ["--cluster-label="], {}, "--cluster-label"),
    ("blank cluster label in the file", lambda d: [config(d, "cluster_label: ' '\n")], {}, "cluster_label"),
    ("empty cephx user", lambda d: ["--ceph-user="], {}, "--ceph-user"),
    ("empty radosgw-admin command", lambda d: ["--radosgw-admin= "], {}, "--radosgw-admin"),
    ("unknown source", lambda d: ["--disable-source=osds"], {}, "--disable-source"),
    ("unknown client", lambda d: ["--ceph-client=ssh"], {}, "--ceph-client"),
    ("unknown log level", lambda d: ["--log.level=loud"], {}, "--log.level"),
    ("telemetry path without /", lambda d: ["--web.telemetry-path=metrics"], {}, "--web.telemetry-path"),
]  # fmt: skip


@pytest.mark.parametrize("case, argv, env, setting", REFUSED, ids=[c[0] for c in REFUSED])
def test_a_bad_setting_exits_2_with_one_line_naming_it(tmp_path, case, argv, env, setting):
    result = run_once(tmp_path, *argv(tmp_path), env=env)
    line = one_line(result)
    assert result.returncode == 2, result.stderr
    assert setting in line, line
    assert "s3cr3t" not in line  # a refusal never prints the secret it read


def keyring(directory: Path, mode: int) -> Path:
    path = directory / "ceph.client.admin.keyring"
    path.write_text("[client.admin]\nkey = AQBexampleexampleexampleexampleexample==\n")
    path.chmod(mode)
    return path


def conf_naming_keyring(directory: Path) -> Path:
    conf = directory / "named.conf"
    conf.write_text(f"[global]\nfsid = {FSID}\n[client]\nkeyring = {keyring(directory, 0o640)}\n")
    return conf


def broken_state(directory: Path) -> Path:
    path = directory / "state.json"
    path.write_text("{not json")
    return path


# (case, argv builder, environment, what the warning must name)
WARNED = [
    ("keyring readable by others", lambda d: [f"--ceph-keyring={keyring(d, 0o644)}"], {}, "keyring"),
    ("keyring ceph.conf names, readable by the group", lambda d: [f"--ceph-conf={conf_naming_keyring(d)}"], {},
     "keyring"),
    ("keys from the environment", lambda d: ["--rgw-endpoint=http://127.0.0.1:8080"],
     {"CEPH_SCALE_RGW_ACCESS_KEY": "AKIAEXAMPLE", "CEPH_SCALE_RGW_SECRET_KEY": "s3cr3t"},
     "CEPH_SCALE_RGW_ACCESS_KEY"),
    ("plain HTTP off this host", lambda d: ["--rgw-endpoint=http://rgw.example:8080",
                                            f"--rgw-credentials-file={secret_file(d)}"], {}, "plain HTTP"),
    ("TLS not verified", lambda d: [config(d, "rgw:\n  verify_tls: false\n"), "--rgw-endpoint=https://rgw:8443",
                                    f"--rgw-credentials-file={secret_file(d)}"], {}, "rgw.verify_tls"),
    ("no cluster label and no fsid", lambda d: [f"--ceph-conf={ceph_conf(d, fsid=None)}"], {}, "cluster label"),
    ("state file unreadable", lambda d: [f"--state-file={broken_state(d)}"], {}, "state file"),
]  # fmt: skip


@pytest.mark.parametrize("case, argv, env, named", WARNED, ids=[c[0] for c in WARNED])
def test_a_risky_setting_starts_with_one_warning_line(tmp_path, case, argv, env, named):
    result = run_once(tmp_path, *argv(tmp_path), env=env)
    line = one_line(result)
    assert result.returncode == 0, result.stderr
    assert "level=WARNING" in line and named in line, line
    assert "s3cr3t" not in line
    assert "ceph_scale_build_info" in result.stdout


def test_sound_settings_start_without_a_word(tmp_path):
    result = run_once(
        tmp_path,
        f"--ceph-keyring={keyring(tmp_path, 0o600)}",
        "--rgw-endpoint=http://127.0.0.1:8080",  # loopback: nothing crosses a network
        f"--rgw-credentials-file={secret_file(tmp_path)}",
        f"--state-file={tmp_path / 'state.json'}",
        config(tmp_path, "sources:\n  pgs: {interval: 120, stale_after: 1200}\nrgw:\n  region: eu\n"),
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert f'cluster="{FSID}"' in result.stdout
