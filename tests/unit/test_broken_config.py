"""Broken configuration is refused at start with one line naming what is wrong, never a
traceback, never silently accepted (the probes of the hostile-peers review)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "exporter", "--once", "--ceph-client=cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


def refused(result: subprocess.CompletedProcess, *words: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if "level=ERROR" in line]
    assert len(errors) == 1 and all(w in errors[0] for w in words), result.stderr


def serve_with(web: Path, *extra: str) -> subprocess.CompletedProcess:
    # Without --once: the server starts (and refuses) before anything talks to Ceph.
    return subprocess.run(
        [sys.executable, "-m", "exporter", "--web.listen-address=127.0.0.1:0", f"--web.config.file={web}", *extra],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "content, words",
    [
        ("basic_auth_users:\n  prometheus: $2y$10$garbage\n", ("web.yml", "bcrypt hash")),
        ("basic_auth_users:\n  - prometheus\n", ("basic_auth_users", "mapping")),
        ("http_server_config:\n  http2: false\n", ("http_server_config", "not supported")),
    ],
)
def test_a_broken_web_config_is_refused_in_one_line(tmp_path, content, words):
    web = tmp_path / "web.yml"
    web.write_text(content)
    refused(serve_with(web), *words)


def test_a_port_out_of_range_is_refused_naming_the_address(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "exporter", "--web.listen-address=127.0.0.1:99999"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    refused(result, "127.0.0.1:99999", "65535")


def test_a_port_in_use_is_refused_naming_the_address(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        result = subprocess.run(
            [sys.executable, "-m", "exporter", f"--web.listen-address={address}"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
    refused(result, address, "Address already in use")


def test_config_and_credentials_files_that_are_wrong_are_refused(tmp_path):
    creds = tmp_path / "creds.json"
    creds.write_text("not json")
    creds.chmod(0o600)
    refused(run(f"--rgw-credentials-file={creds}", "--rgw-endpoint=http://127.0.0.1:9"), str(creds), "JSON")
    creds.write_text('{"access_key": "a", "secret_key": "b"}')
    creds.chmod(0o644)
    refused(run(f"--rgw-credentials-file={creds}", "--rgw-endpoint=http://127.0.0.1:9"), "chmod 600")
    config = tmp_path / "config.yml"
    config.write_bytes(b"cluster_label: \xff\xfe\n")
    refused(run(f"--config.file={config}"), str(config))
    config.write_text("rgw:\n  endpoint: 123\n")
    refused(run(f"--config.file={config}"), "rgw.endpoint", "string")
    config.write_text("rgw:\n  max_response_mb: 0\n")
    refused(run(f"--config.file={config}"), "rgw.max_response_mb", "1 to 4096")
    config.write_text("rgw:\n  max_response_mb: '256'\n")
    refused(run(f"--config.file={config}"), "rgw.max_response_mb", "whole number")
    config.write_text("thresholds:\n  rgw_top_buckets: .inf\n")
    refused(run(f"--config.file={config}"), "rgw_top_buckets", "finite")


def test_a_source_timeout_past_its_interval_is_refused_whether_the_interval_is_set_or_default():
    from ceph_scale.core.config import ConfigError
    from ceph_scale.core.registry import SOURCE_BY_NAME
    from exporter.sidecar import config_file

    names = set(SOURCE_BY_NAME)
    default = SOURCE_BY_NAME["health"].interval
    with pytest.raises(ConfigError, match="exceeds the interval"):
        config_file.parse({"sources": {"health": {"timeout": default + 1}}}, names)
    with pytest.raises(ConfigError, match="exceeds the interval"):
        config_file.parse({"sources": {"health": {"interval": 30, "timeout": 31}}}, names)
    parsed = config_file.parse({"sources": {"health": {"timeout": default}}}, names)
    assert parsed.sources["health"]["timeout"] == default


def test_plan_without_once_is_refused_in_one_line():
    result = subprocess.run(
        [sys.executable, "-m", "exporter", "--plan", "--web.listen-address=127.0.0.1:0"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    refused(result, "--plan goes with --once")
