"""scripts/test.sh stopped (SIGTERM: CI's time limit; Ctrl-C): it stops its pytest processes, waits
for their teardown (the clusters' stop, tests/conftest.py) at most STOP_WAIT seconds, and ends with
143; its cleanup, an EXIT trap under `set -e`, never turns a green run red."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from cluster.helpers import wait_for

REPO = Path(__file__).resolve().parents[2]
SCRIPT = (REPO / "scripts" / "test.sh").read_text()


def the_scripts_traps() -> str:
    """scripts/test.sh's functions (stop_children, print_logs) and the traps that call them."""
    functions = re.findall(r"^(?:stop_children|print_logs)\(\) \{.*?^\}\n", SCRIPT, re.S | re.M)
    assert len(functions) == 2, "scripts/test.sh: no stop_children or print_logs function"
    traps = re.findall(r"^trap .*$", SCRIPT, re.M)
    assert {"trap stop_children EXIT", "trap 'exit 143' TERM", "trap 'exit 130' INT"} <= set(traps), traps
    return "".join(functions) + "\n".join(traps) + "\n"


def run_with_the_scripts_trap(last_command: str) -> int:
    body = 'set -euo pipefail\n( true ) &\nbuilder=$!\nwait $builder\nflocked="" direct="" logs="" exits=""\n'
    body += the_scripts_traps() + f"{last_command}\n"
    return subprocess.run(["bash", "-c", body], timeout=30).returncode


def test_a_green_run_exits_0_after_the_builder_has_finished():
    assert run_with_the_scripts_trap("true") == 0


def test_a_red_run_keeps_its_status():
    assert run_with_the_scripts_trap("(exit 3)") == 3


# A pytest process of the command: told to stop, it takes a second to end (its clusters' teardown);
# or it loses the first time it is told; or it never ends (a teardown stuck on a hung cluster).
PYTEST = """
import os, signal, sys, time
told = []
def stop(*_):
    told.append(1)
    if sys.argv[2] == "deaf-once" and len(told) == 1:
        return  # lost, as a stop raised in a finalizer is
    time.sleep(1)
    open(sys.argv[1], "w").write("torn down")
    sys.exit(1)
signal.signal(signal.SIGTERM, signal.SIG_IGN if sys.argv[2] == "stuck" else stop)
os.write(1, f"ready {os.getpid()}\\n".encode())  # one write: the two never interleave
time.sleep(60)
"""


def stopped_command(tmp_path: Path, how: str, stop_wait: int) -> tuple[int, float, list[int]]:
    """The command's traps over two such processes, one under flock as the newer releases' run,
    one started directly as Pacific's, told to stop: its status, seconds to end, their pids."""
    lock = tmp_path / "lock"
    lock.touch()
    body = f"set -euo pipefail\n( sleep 60 ) &\nbuilder=$!\nSTOP_WAIT={stop_wait}\n"
    body += 'flocked="" direct="" logs="" exits=""\n'
    body += f"flock -s {lock} {sys.executable} -c '{PYTEST}' {tmp_path / 'flocked'} {how} &\nflocked=$!\n"
    body += f"{sys.executable} -c '{PYTEST}' {tmp_path / 'direct'} {how} &\ndirect=$!\n"
    body += the_scripts_traps() + "wait $direct\n"
    command = subprocess.Popen(["bash", "-c", body], stdout=subprocess.PIPE, text=True)
    assert command.stdout is not None
    ready = [command.stdout.readline().split() for _ in range(2)]
    assert [words[0] for words in ready] == ["ready"] * 2, ready
    pids = [int(pid) for _, pid in ready]
    began = time.monotonic()
    command.send_signal(signal.SIGTERM)
    status = command.wait(60)
    return status, time.monotonic() - began, pids


def test_a_stopped_run_stops_its_processes_and_waits_for_their_teardown(tmp_path):
    status, _, _ = stopped_command(tmp_path, "slow", 30)
    assert status == 143
    # Both written before the command ended: the one under flock too, which flock does not wait for.
    assert [(tmp_path / p).read_text() for p in ("flocked", "direct")] == ["torn down"] * 2


def test_a_stop_that_was_lost_is_told_again(tmp_path):
    status, seconds, _ = stopped_command(tmp_path, "deaf-once", 60)
    assert status == 143 and seconds < 30
    assert [(tmp_path / p).read_text() for p in ("flocked", "direct")] == ["torn down"] * 2


def test_a_teardown_that_never_ends_is_killed_after_the_stop_wait(tmp_path):
    status, seconds, pids = stopped_command(tmp_path, "stuck", 10)
    assert status == 143 and 10 <= seconds < 30
    assert pids and not [pid for pid in pids if Path(f"/proc/{pid}").exists()]


HELD_SESSION = """
import pathlib, time, pytest
MARKS = pathlib.Path(__file__).parent

@pytest.fixture(scope="session")
def cluster():
    yield
    time.sleep(1)  # a cluster's stop takes time
    (MARKS / "torn-down").touch()

def test_long(cluster):
    (MARKS / "started").touch()
    time.sleep(60)
"""


def session_of(tmp_path: Path, test: str) -> subprocess.Popen:
    """A pytest session of `test` (a test file's text) with this repository's tests/conftest.py."""
    (tmp_path / "test_it.py").write_text(test)
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "tests.conftest", "-q", str(tmp_path)],
        cwd=REPO, env={**os.environ, "CEPH_SCALE_RELEASES": "none"}, stdout=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_pytest_session_told_to_stop_tears_its_session_fixtures_down(tmp_path):
    """tests/conftest.py: SIGTERM ends the session as Ctrl-C does, its clusters' teardown run."""
    session = session_of(tmp_path, HELD_SESSION)
    try:
        wait_for((tmp_path / "started").exists, 60, 0.1, what="the test to start")
        session.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        session.send_signal(signal.SIGTERM)  # the group's signal, then the test command's own
        assert session.wait(30) == 2  # interrupted, as by Ctrl-C
    finally:
        session.kill()
    assert (tmp_path / "torn-down").exists()


SWALLOWING_SESSION = """
import pathlib, time, pytest
MARKS = pathlib.Path(__file__).parent

@pytest.fixture(scope="session")
def cluster():
    yield
    (MARKS / "torn-down").touch()

def test_long(cluster):
    (MARKS / "started").touch()
    try:
        time.sleep(60)
    except BaseException:  # lost, as a stop raised in a finalizer is
        (MARKS / "swallowed").touch()
    time.sleep(60)
"""


def test_a_session_whose_stop_was_lost_stops_when_told_again(tmp_path):
    session = session_of(tmp_path, SWALLOWING_SESSION)
    try:
        for mark in ("started", "swallowed"):
            wait_for((tmp_path / mark).exists, 60, 0.1, what=mark)
            session.send_signal(signal.SIGTERM)
        assert session.wait(30) == 2
    finally:
        session.kill()
    assert (tmp_path / "torn-down").exists()


HELD_STOP = """
import os, pathlib, signal, time
from tests.conftest import uninterrupted
MARKS = pathlib.Path(__file__).parent

def test_a_cluster_stopping():
    with uninterrupted("a cluster stopping"):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.5)
        (MARKS / "stopped whole").touch()
    (MARKS / "went on").touch()
"""


def test_a_stop_asked_while_a_cluster_stops_comes_once_it_has_stopped(tmp_path):
    """Cut in the middle, a cluster's stop would leave the rest of its daemons running, out of the
    pool that stops them (tests/conftest.py Clusters.stop)."""
    session = session_of(tmp_path, HELD_STOP)
    try:
        assert session.wait(60) == 2
    finally:
        session.kill()
    assert (tmp_path / "stopped whole").exists() and not (tmp_path / "went on").exists()
