"""The real engines over a simulated span: promtool's backfill, then Prometheus's rule engine
(replay/ruler, built from the Go module proxy) over the shipped rules."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable, Iterator
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


BLOCK_SECONDS = 2 * 3600  # the blocks promtool writes: 2 hours, aligned to multiples of 2 hours


def backfill(openmetrics: Path, blocks: Path) -> int:
    """The samples into TSDB blocks, one promtool run per 2-hour block: promtool reads its whole
    input once for each block it writes, so one run over a month is 360 passes over all of it.
    Returns the promtool runs."""
    promtool = shutil.which("promtool")
    if promtool is None:
        raise EngineError("promtool is not installed (scripts/bootstrap.sh installs it)")
    part = openmetrics.with_suffix(".part.om")
    runs = 0
    try:
        with openmetrics.open() as src:
            for lines in block_windows(src):
                part.write_text("".join(lines) + "# EOF\n")
                run(
                    [promtool, "tsdb", "create-blocks-from", "openmetrics", str(part), str(blocks)], "promtool backfill"
                )
                runs += 1
    finally:
        part.unlink(missing_ok=True)
    return runs


def block_windows(src: Iterable[str]) -> Iterator[list[str]]:
    """The sample lines of each 2-hour window in turn. The simulator writes its scrapes in time
    order, one sample a line with its timestamp last, so a window ends where the next begins."""
    lines: list[str] = []
    window = None
    for number, line in enumerate(src, 1):
        if line.startswith("#") or not line.strip():
            continue
        try:
            at = int(float(line.rsplit(" ", 1)[1]) // BLOCK_SECONDS)
        except (IndexError, ValueError):
            raise EngineError(f"samples line {number}: no timestamp last: {line.strip()[:80]!r}") from None
        if window is not None and at < window:  # promtool would put it in a block of its own
            raise EngineError(f"samples line {number}: out of time order (window {at} after {window})")
        if at != window and lines:
            yield lines
            lines = []
        window = at
        lines.append(line)
    if lines:
        yield lines


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
