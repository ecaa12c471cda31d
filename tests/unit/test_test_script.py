"""scripts/test.sh: its processes (one per release's cluster tests, two for the tests that start
no cluster) run every test exactly once between them, each with its share in its environment, and
the command ends with their status and prints each one's log (tests/unit/test_test_command_stop.py:
how it stops)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ALL_RELEASES, LAST_ON_THEIR_CLUSTER

REPO = Path(__file__).resolve().parents[2]
SCRIPT = (REPO / "scripts" / "test.sh").read_text()


STUB_PYTEST = """#!/bin/bash
q=${CEPH_SCALE_QUIET_LOCK:-}
echo "pytest releases=$CEPH_SCALE_RELEASES clusterless=$CEPH_SCALE_CLUSTERLESS part=${CEPH_SCALE_PART:-} quiet=$q"
[ "$CEPH_SCALE_RELEASES" != "${FAILING:-}" ] || exit 5
"""


def run_the_script_with_a_stub_pytest(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """scripts/test.sh itself, in a tree where bootstrap, the linters, the root and rule engine
    builds do nothing and pytest (.venv/bin/python) says what it was asked to run."""
    tree = tmp_path / "tree"
    for path, text in {
        "scripts/test.sh": SCRIPT,
        "scripts/bootstrap.sh": "#!/bin/sh\n",
        "cluster/release_root.sh": "#!/bin/sh\n",
        "replay/ruler/build.sh": "#!/bin/sh\n",
        ".venv/bin/python": STUB_PYTEST,
        **{f".venv/bin/{tool}": "#!/bin/sh\n" for tool in ("ruff", "mypy", "vulture")},
    }.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
        (tree / path).chmod(0o755)
    (tree / "mgr_module").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CEPH_SCALE_")} | env
    return subprocess.run(["bash", "scripts/test.sh"], cwd=tree, env=env, capture_output=True, text=True, timeout=60)


def test_the_command_runs_each_share_and_prints_each_log_with_its_status(tmp_path):
    done = run_the_script_with_a_stub_pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pytest releases=pacific clusterless=0 part= quiet=run/quiet.lock" in done.stdout
    for log, asked in (
        ("run/pytest-reef.log", "releases=reef clusterless=0 part= quiet="),
        ("run/pytest-tentacle.log", "releases=tentacle clusterless=0 part= quiet="),
        ("run/pytest-clusterless-rest.log", "releases=pacific,reef,tentacle clusterless=only part=rest quiet="),
        ("run/pytest-clusterless-signals.log", "releases=pacific,reef,tentacle clusterless=only part=signals quiet="),
    ):
        assert f"=== run at the same time: {log} (exit 0) ===\npytest {asked}\n" in done.stdout


def test_a_share_that_fails_fails_the_command_and_says_which(tmp_path):
    done = run_the_script_with_a_stub_pytest(tmp_path, FAILING="tentacle")
    assert done.returncode == 5
    assert "=== run at the same time: run/pytest-tentacle.log (exit 5) ===" in done.stdout
    assert "=== run at the same time: run/pytest-reef.log (exit 0) ===" in done.stdout


def collect_only(target: str = "tests", **env: str) -> subprocess.CompletedProcess:
    """pytest's collection of `target` with this environment (this process's own share, which the
    test command sets in it, left out)."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("CEPH_SCALE_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", target],
        cwd=REPO, env={**inherited, **env}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def ordered(**env: str) -> list[str]:
    """The test ids pytest collects with this environment, in the order it would run them."""
    proc = collect_only(**env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return [line for line in proc.stdout.splitlines() if "::" in line]


def collected(**env: str) -> set[str]:
    return set(ordered(**env))


def test_the_processes_share_out_every_test_once():
    # The environment of each process, as scripts/test.sh sets it.
    each_newer = "for r in ${newer//,/ }; do\n  CEPH_SCALE_RELEASES=$r CEPH_SCALE_CLUSTERLESS=0 CEPH_SCALE_PART="
    assert each_newer + ' flock -s "$lock"' in SCRIPT
    assert "CEPH_SCALE_RELEASES=$releases CEPH_SCALE_CLUSTERLESS=only CEPH_SCALE_PART=$part flock -s" in SCRIPT
    assert "for part in rest signals; do" in SCRIPT
    assert "CEPH_SCALE_RELEASES=pacific CEPH_SCALE_CLUSTERLESS=0 CEPH_SCALE_PART= CEPH_SCALE_QUIET_LOCK=$lock" in SCRIPT
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
    free_parts = [
        collected(CEPH_SCALE_RELEASES=everyone, CEPH_SCALE_CLUSTERLESS="only", CEPH_SCALE_PART=part)
        for part in ("rest", "signals")
    ]
    free = set().union(*free_parts)
    # The signals' unit tests in a part of their own, and those alone; what reads a replay in the other.
    assert free_parts[1] and all(t.startswith("tests/unit/signals/") for t in free_parts[1])
    assert any(t.startswith("tests/replay/") for t in free_parts[0])
    shares = [pacific, *each.values(), *free_parts]
    assert all(shares)
    assert sum(map(len, shares)) == len(every)  # none twice
    assert set().union(*shares) == every
    newer = set().union(*each.values())
    assert all("pacific" in params(t) for t in pacific), sorted(pacific)[:3]
    for r, share in each.items():
        assert all(r in params(t) for t in share), sorted(share)[:3]
    assert {"unit", "replay", "rules", "deploy"} <= {t.split("/")[1] for t in free}
    # The newer releases' tests that read only their packages run in a queue of no cluster.
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


def test_a_part_no_run_knows_is_refused_by_name():
    proc = collect_only("tests/unit/test_docs.py", CEPH_SCALE_PART="signal")
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "CEPH_SCALE_PART=signal: signals or rest (unset: both)" in proc.stdout + proc.stderr
