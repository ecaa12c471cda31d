"""scripts/test.sh: it ends with pytest's status (its cleanup of the background root builder and
of its second pytest process, an EXIT trap under `set -e`, must not turn a green run red when
nothing is left to stop), and its processes (one per release's cluster tests, one for the tests
that start no cluster) run every test exactly once between them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import LAST_ON_THEIR_CLUSTER

REPO = Path(__file__).resolve().parents[2]
SCRIPT = (REPO / "scripts" / "test.sh").read_text()


def run_with_the_scripts_trap(last_command: str) -> int:
    function = re.search(r"^stop_children\(\) \{\n.*?^\}\n", SCRIPT, re.S | re.M)
    assert function, "scripts/test.sh: no stop_children function"
    assert "trap stop_children EXIT" in SCRIPT
    body = "set -euo pipefail\n( true ) &\nbuilder=$!\nwait $builder\n( sleep 60 ) &\nothers=$!\n"
    body += function.group(0) + f"trap stop_children EXIT\n{last_command}\n"
    return subprocess.run(["bash", "-c", body], timeout=30).returncode


def test_a_green_run_exits_0_after_the_builder_has_finished():
    assert run_with_the_scripts_trap("true") == 0


def test_a_red_run_keeps_its_status():
    assert run_with_the_scripts_trap("(exit 3)") == 3


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
    # Explicit, as the test command's own process runs this with its share in the environment.
    every = collected(CEPH_SCALE_RELEASES="pacific,reef,tentacle", CEPH_SCALE_CLUSTERLESS="1")
    pacific = collected(
        CEPH_SCALE_RELEASES="pacific", CEPH_SCALE_CLUSTERLESS="0", CEPH_SCALE_QUIET_LOCK="/nonexistent/quiet.lock"
    )
    reef = collected(CEPH_SCALE_RELEASES="reef", CEPH_SCALE_CLUSTERLESS="0")
    tentacle = collected(CEPH_SCALE_RELEASES="tentacle", CEPH_SCALE_CLUSTERLESS="0")
    free = collected(CEPH_SCALE_RELEASES="pacific,reef,tentacle", CEPH_SCALE_CLUSTERLESS="only")
    shares = [pacific, reef, tentacle, free]
    assert all(shares)
    assert sum(map(len, shares)) == len(every)  # none twice
    assert pacific | reef | tentacle | free == every
    newer = reef | tentacle
    assert all("pacific" in params(t) for t in pacific), sorted(pacific)[:3]
    assert all("reef" in params(t) for t in reef), sorted(reef)[:3]
    assert all("tentacle" in params(t) for t in tentacle), sorted(tentacle)[:3]
    assert {"unit", "replay", "rules", "deploy"} <= {t.split("/")[1] for t in free}
    # The newer releases' tests that read only their packages run in the shortest queue.
    assert {"reef", "tentacle"} <= set().union(*(params(t) for t in free))
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
