"""scripts/test.sh ends with pytest's status: its cleanup of the background root builder
(an EXIT trap under `set -e`) must not turn a green run red when nothing is left to stop."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

SCRIPT = (Path(__file__).resolve().parents[2] / "scripts" / "test.sh").read_text()


def run_with_the_scripts_trap(last_command: str) -> int:
    function = re.search(r"^stop_builder\(\) \{\n.*?^\}\n", SCRIPT, re.S | re.M)
    assert function, "scripts/test.sh: no stop_builder function"
    assert "trap stop_builder EXIT" in SCRIPT
    body = "set -euo pipefail\n( true ) &\nbuilder=$!\nwait $builder\n" + function.group(0)
    body += f"trap stop_builder EXIT\n{last_command}\n"
    return subprocess.run(["bash", "-c", body], timeout=30).returncode


def test_a_green_run_exits_0_after_the_builder_has_finished():
    assert run_with_the_scripts_trap("true") == 0


def test_a_red_run_keeps_its_status():
    assert run_with_the_scripts_trap("(exit 3)") == 3
