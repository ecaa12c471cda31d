"""The web config (issue 24, item 5): a bad setting exits 2 with one line that names it, never
a traceback; a risky one starts, with one warning line."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ceph_scale.core.config import ConfigError
from exporter.sidecar.http_server import load_web_config
from exporter.sidecar.main import STOP_GRACE_SECONDS
from tests.unit.test_broken_config import REPO, refused, serve_with
from tests.unit.test_http_server import self_signed


def tls(tmp: Path, extra: str) -> bytes:
    cert, key = self_signed(tmp)
    return f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n{extra}".encode()


@pytest.mark.parametrize(
    "content, words",
    [
        (lambda tmp: b"tls_server_config:\n  cert_file: 5\n  key_file: k\n", ("tls_server_config.cert_file", "string")),
        (lambda tmp: tls(tmp, "  min_version: [TLS12]\n"), ("tls_server_config.min_version", "string")),
        (lambda tmp: tls(tmp, "  client_auth_type: {a: 1}\n"), ("tls_server_config.client_auth_type", "string")),
        (lambda tmp: b"basic_auth_users: {}\n# caf\xe9\n", ("web.yml", "not UTF-8")),
        (lambda tmp: b"tls_server_config: 'yes'\n", ("tls_server_config", "expected a mapping", "'yes'")),
        (lambda tmp: b"basic_auth_users: 'prometheus'\n", ("basic_auth_users", "expected a mapping")),
    ],
    ids=["cert_file-number", "min_version-list", "client_auth_type-mapping", "not-utf8", "tls-string", "users-string"],
)
def test_a_bad_setting_exits_2_with_one_line_naming_it(tmp_path, content, words):
    web = tmp_path / "web.yml"
    web.write_bytes(content(tmp_path))
    refused(serve_with(web), *words)


def test_a_missing_web_config_names_the_flag(tmp_path):
    with pytest.raises(ConfigError, match="--web.config.file .*nope.yml: No such file"):
        load_web_config(str(tmp_path / "nope.yml"))


def start_with(web: Path) -> list[str]:
    """Start the exporter with `web`; its warning lines once it serves (it must start), and it
    must be gone within its stop grace of a SIGTERM."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "exporter", "--web.listen-address=127.0.0.1:0", f"--web.config.file={web}",
         "--ceph-client=cli"],
        cwd=REPO, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            if "msg=serving " in line:
                break
        assert any("msg=serving " in line for line in lines), "".join(lines)
    finally:
        stopped(proc, lines)
    return [line for line in lines if "level=WARNING" in line and str(web) in line]


def stopped(proc: subprocess.Popen, lines: list[str]) -> None:
    """SIGTERM, and the process gone within the grace (plus a loaded machine's slack). Its stderr
    is read meanwhile, so a full pipe is never what holds it; one that hangs dumps its threads
    (SIGQUIT), which the failure shows, and is killed."""
    proc.terminate()
    stopped_after(proc, lines)


@pytest.mark.parametrize(
    "content, mode, words",
    [
        ("", 0o600, "neither TLS nor basic auth"),
        ("basic_auth_users:\n", 0o600, "basic_auth_users is empty"),
        ("basic_auth_users: {}\n", 0o600, "basic_auth_users is empty"),
        ("basic_auth_users:\n  prometheus: '$2y$04$" + "a" * 53 + "'\n", 0o666, "writable by every user"),
    ],
    ids=["empty-file", "users-null", "users-empty", "world-writable"],
)
def test_a_risky_web_config_starts_with_one_warning_line(tmp_path, content, mode, words):
    web = tmp_path / "web.yml"
    web.write_text(content)
    os.chmod(web, mode)
    warnings = start_with(web)
    assert len(warnings) == 1 and words in warnings[0], warnings


def test_a_stop_is_prompt_whatever_holds_the_process(tmp_path):
    """A SIGTERM ends the process within its grace even when its shutdown cannot finish: here its
    log lines go to a pipe nobody reads, filled before the stop."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import exporter.sidecar.main as m, logging, sys, threading;"
         "flood = threading.Timer(2, lambda: [logging.getLogger('flood').warning('x' * 4096) for _ in iter(int, 1)]);"
         "flood.daemon = True; flood.start(); sys.exit(m.main(sys.argv[1:]))",
         "--web.listen-address=127.0.0.1:0", "--ceph-client=cli"],
        cwd=REPO, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stderr is not None
    # Serving by 2 s, when the flood begins and fills the pipe (64 KiB) at once: every later log
    # line blocks, the shutdown's first among them.
    time.sleep(5)
    started = time.monotonic()
    proc.terminate()
    try:
        proc.wait(STOP_GRACE_SECONDS + 10)
    finally:
        proc.kill()
        proc.wait()
    assert time.monotonic() - started <= STOP_GRACE_SECONDS + 10


def test_a_stop_the_kernel_hands_to_a_worker_thread_is_heard(tmp_path):
    """A SIGTERM sent to the process may be delivered to any of its threads; Python runs the
    handler in the main thread only, which an untimed wait never left (the process then ran on
    after SIGTERM). Here the signal goes to a worker thread on purpose (tgkill)."""
    web = tmp_path / "web.yml"
    web.write_text("")
    proc = subprocess.Popen(
        [sys.executable, "-m", "exporter", "--web.listen-address=127.0.0.1:0", "--ceph-client=cli",
         f"--web.config.file={web}"],
        cwd=REPO, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    lines: list[str] = []
    sent = False
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any("msg=serving " in line for line in lines):
            lines.append(proc.stderr.readline())
        workers = [int(t) for t in os.listdir(f"/proc/{proc.pid}/task") if int(t) != proc.pid]
        assert workers, "no worker thread to hand the signal to"
        sys_tgkill = 234  # x86_64
        sent = ctypes.CDLL(None, use_errno=True).syscall(sys_tgkill, proc.pid, workers[0], signal.SIGTERM) == 0
        assert sent, f"tgkill: errno {ctypes.get_errno()}"
    finally:
        if not sent:
            proc.kill()
        stopped_after(proc, lines)


def stopped_after(proc: subprocess.Popen, lines: list[str]) -> None:
    """The process gone within the grace after a SIGTERM already sent (else its threads' stacks)."""
    assert proc.stderr is not None
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)  # type: ignore[arg-type]
    reader.start()
    started = time.monotonic()
    try:
        proc.wait(STOP_GRACE_SECONDS + 10)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGQUIT)
        time.sleep(2)
        proc.kill()
        proc.wait()
        reader.join(5)
        said = "".join(lines)
        raise AssertionError(f"still running {time.monotonic() - started:.0f} s after SIGTERM:\n{said}") from None
    reader.join(5)
