"""The real engines over a simulated span: promtool's backfill, then Prometheus's rule engine
(replay/ruler, built from the Go module proxy) over the shipped rules."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RULE_FILES = (REPO / "rules" / "recording.yml", REPO / "rules" / "alerts.yml")


class EngineError(RuntimeError):
    pass


@dataclass(frozen=True)
class AlertEvent:
    t: float
    alert: str
    state: str  # pending, firing, inactive
    labels: dict[str, str]


def run(cmd: list[str], what: str) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise EngineError(f"{what}: {e}") from None
    if done.returncode != 0:
        raise EngineError(f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout


def ruler_binary() -> Path:
    return Path(run([str(REPO / "replay" / "ruler" / "build.sh")], "building the rule engine").strip())


def backfill(openmetrics: Path, blocks: Path) -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        raise EngineError("promtool is not installed (scripts/bootstrap.sh installs it)")
    run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(openmetrics), str(blocks)], "promtool backfill")


def evaluate(
    blocks: Path, stale: Path, start: float, end: float, interval: float, rule_files: tuple[Path, ...] = RULE_FILES
) -> tuple[list[AlertEvent], dict[str, Any]]:
    """Every alert's state changes over [start, end], and the engine's summary line."""
    cmd = [str(ruler_binary()), "-blocks", str(blocks), "-stale", str(stale)]
    for f in rule_files:
        cmd += ["-rules", str(f)]
    cmd += ["-start", repr(start), "-end", repr(end), "-interval", repr(interval)]
    lines = run(cmd, "the rule engine").splitlines()
    if not lines:
        raise EngineError("the rule engine wrote nothing")
    events = []
    for line in lines[:-1]:
        e = json.loads(line)
        events.append(AlertEvent(e["t"], e["alert"], e["state"], e["labels"]))
    return events, json.loads(lines[-1])
