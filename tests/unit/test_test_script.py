"""scripts/test.sh: it ends with pytest's status (its cleanup of the background root builder and
of its second pytest process, an EXIT trap under `set -e`, must not turn a green run red when
nothing is left to stop), and its two processes run every test exactly once between them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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


def collected(**env: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", "tests"],
        cwd=REPO, env={**os.environ, **env}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return {line for line in proc.stdout.splitlines() if "::" in line}


def test_the_two_processes_share_out_every_test_once():
    # The environment of each process, as scripts/test.sh sets it.
    assert "CEPH_SCALE_RELEASES=$newer flock" in SCRIPT
    assert "CEPH_SCALE_RELEASES=pacific CEPH_SCALE_RELEASE_FREE=0 CEPH_SCALE_QUIET_LOCK=$lock" in SCRIPT
    every = collected(CEPH_SCALE_RELEASES="pacific,reef,tentacle")
    pacific = collected(CEPH_SCALE_RELEASES="pacific", CEPH_SCALE_RELEASE_FREE="0")
    others = collected(CEPH_SCALE_RELEASES="reef,tentacle")
    assert pacific and others and not pacific & others
    assert pacific | others == every
    assert all("[pacific" in t or "-pacific" in t or "pacific]" in t for t in pacific), sorted(pacific)[:3]
