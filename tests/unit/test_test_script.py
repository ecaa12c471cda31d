"""scripts/test.sh: it ends with pytest's status (its cleanup of the background root builder and
of its second pytest process, an EXIT trap under `set -e`, must not turn a green run red when
nothing is left to stop), and its processes (one per release's cluster tests, one for the tests
that start no cluster) run every test exactly once between them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ALL_RELEASES, LAST_ON_THEIR_CLUSTER

REPO = Path(__file__).resolve().parents[2]
SCRIPT = (REPO / "scripts" / "test.sh").read_text()


def the_scripts_traps() -> str:
    """scripts/test.sh's stop_children and the traps that call it."""
    function = re.search(r"^stop_children\(\) \{\n.*?^\}\n", SCRIPT, re.S | re.M)
    assert function, "scripts/test.sh: no stop_children function"
    traps = re.findall(r"^trap .*$", SCRIPT, re.M)
    assert {"trap stop_children EXIT", "trap 'exit 143' TERM"} <= set(traps), traps
    return function.group(0) + "\n".join(traps) + "\n"


def run_with_the_scripts_trap(last_command: str) -> int:
    body = "set -euo pipefail\n( true ) &\nbuilder=$!\nwait $builder\n( sleep 60 ) &\nothers=$!\n"
    body += the_scripts_traps() + f"{last_command}\n"
    return subprocess.run(["bash", "-c", body], timeout=30).returncode


def test_a_green_run_exits_0_after_the_builder_has_finished():
    assert run_with_the_scripts_trap("true") == 0


def test_a_red_run_keeps_its_status():
    assert run_with_the_scripts_trap("(exit 3)") == 3


# A pytest process of the command: told to stop, it takes a second to end (its clusters' teardown).
SLOW_TO_STOP = """
import signal, sys, time
def stop(*_):
    time.sleep(1)
    open(sys.argv[1], "w").write("torn down")
    sys.exit(1)
signal.signal(signal.SIGTERM, stop)
time.sleep(60)
"""


def test_a_stopped_run_stops_its_processes_and_waits_for_their_teardown(tmp_path):
    """SIGTERM to the command (CI's time limit): it ends with 143 once its processes have ended."""
    mark = tmp_path / "mark"
    body = "set -euo pipefail\n( sleep 60 ) &\nbuilder=$!\n"
    body += f"{sys.executable} -c '{SLOW_TO_STOP}' {mark} &\nothers=$!\n"
    body += the_scripts_traps() + "echo started\nwait $others\n"
    command = subprocess.Popen(["bash", "-c", body], stdout=subprocess.PIPE, text=True)
    assert command.stdout is not None and command.stdout.readline() == "started\n"
    time.sleep(0.5)  # the process has set its handler
    command.send_signal(signal.SIGTERM)
    assert command.wait(30) == 143
    assert mark.read_text() == "torn down"  # written before the command ended


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


def test_a_pytest_session_told_to_stop_tears_its_session_fixtures_down(tmp_path):
    """tests/conftest.py: SIGTERM ends the session as Ctrl-C does, its clusters' teardown run."""
    (tmp_path / "test_held.py").write_text(HELD_SESSION)
    session = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "tests.conftest", "-q", str(tmp_path)],
        cwd=REPO, env={**os.environ, "CEPH_SCALE_RELEASES": "none"}, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        session.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        session.send_signal(signal.SIGTERM)  # the group's signal, then the test command's own
        assert session.wait(30) == 2  # interrupted, as by Ctrl-C
    finally:
        session.kill()
    assert (tmp_path / "torn-down").exists()


def ordered(**env: str) -> list[str]:
    """The test ids pytest collects with this environment, in the order it would run them."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", "tests"],
        cwd=REPO, env={**os.environ, **env}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return [line for line in proc.stdout.splitlines() if "::" in line]


def collected(**env: str) -> set[str]:
    return set(ordered(**env))


def test_the_processes_share_out_every_test_once():
    # The environment of each process, as scripts/test.sh sets it.
    assert "for r in ${newer//,/ }; do\n  CEPH_SCALE_RELEASES=$r CEPH_SCALE_CLUSTERLESS=0 flock -s" in SCRIPT
    assert "CEPH_SCALE_RELEASES=$releases CEPH_SCALE_CLUSTERLESS=only flock -s" in SCRIPT
    assert "CEPH_SCALE_RELEASES=pacific CEPH_SCALE_CLUSTERLESS=0 CEPH_SCALE_QUIET_LOCK=$lock" in SCRIPT
    # Every release the tests know, by default.
    everyone = ",".join(ALL_RELEASES)
    assert f'releases=$(echo "${{CEPH_SCALE_RELEASES:-{everyone}}}"' in SCRIPT
    # Explicit, as the test command's own process runs this with its share in the environment.
    every = collected(CEPH_SCALE_RELEASES=everyone, CEPH_SCALE_CLUSTERLESS="1")
    pacific = collected(
        CEPH_SCALE_RELEASES="pacific", CEPH_SCALE_CLUSTERLESS="0", CEPH_SCALE_QUIET_LOCK="/nonexistent/quiet.lock"
    )
    newer_ones = [r for r in ALL_RELEASES if r != "pacific"]
    each = {r: collected(CEPH_SCALE_RELEASES=r, CEPH_SCALE_CLUSTERLESS="0") for r in newer_ones}
    free = collected(CEPH_SCALE_RELEASES=everyone, CEPH_SCALE_CLUSTERLESS="only")
    shares = [pacific, *each.values(), free]
    assert all(shares)
    assert sum(map(len, shares)) == len(every)  # none twice
    assert set().union(*shares) == every
    newer = set().union(*each.values())
    assert all("pacific" in params(t) for t in pacific), sorted(pacific)[:3]
    for r, share in each.items():
        assert all(r in params(t) for t in share), sorted(share)[:3]
    assert {"unit", "replay", "rules", "deploy"} <= {t.split("/")[1] for t in free}
    # The newer releases' tests that read only their packages run in the shortest queue.
    assert set(newer_ones) <= set().union(*(params(t) for t in free))
    # A run narrowed to none of the releases leaves out a release's tests that read its packages.
    stamps = "tests/mgr/test_manager_python_stamps.py"
    assert any(t.startswith(stamps) for t in free)
    narrowed = collected(CEPH_SCALE_RELEASES="none", CEPH_SCALE_CLUSTERLESS="1")
    assert narrowed and not any(t.startswith(stamps) for t in narrowed)
    # The clusters' processes run nothing else.
    assert not any(t.startswith(("tests/unit/", "tests/replay/", "tests/rules/")) for t in pacific | newer)
    assert any(t.startswith("tests/integration/test_plunge_cluster.py") for t in pacific)


def params(test_id: str) -> set[str]:
    """The parameter ids of a test id (`...[pacific]` -> {"pacific"})."""
    return set(test_id.partition("[")[2].rstrip("]").split("-")) if "[" in test_id else set()


def test_the_heavy_runs_come_last_when_they_wait_for_the_other_process():
    order = ordered(
        CEPH_SCALE_RELEASES="pacific", CEPH_SCALE_CLUSTERLESS="1", CEPH_SCALE_QUIET_LOCK="/nonexistent/quiet.lock"
    )
    heavy = [i for i, t in enumerate(order) if t.startswith(LAST_ON_THEIR_CLUSTER)]
    assert heavy and heavy == list(range(len(order) - len(heavy), len(order)))
    assert any(t.startswith("tests/unit/") for t in order)
