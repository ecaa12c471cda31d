"""Golden expositions, per release: what operators get from each release's captured JSON.

The captures of each release (tests/fixtures/<release>/, from real clusters) go through the
sidecar's path (parsers, snapshot, derivation, exposition) as three polls: the base set, the
reshard queued, the reshard done. The three expositions are kept as text under
tests/golden/<release>/, as prometheus-pve-exporter keeps its golden files: a change that moves
any series shows as a diff to review. After a deliberate change:

    CEPH_SCALE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/unit/test_golden.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from exporter.core import exposition
from exporter.core.config import Thresholds
from exporter.core.derive import DerivationState, derive
from tests.unit.test_release_fixtures import snapshot

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
RELEASES = ("pacific", "reef", "tentacle")
POLLS = (("base", ""), ("queued", "_queued"), ("resharded", "_resharded"))
UPDATE = os.environ.get("CEPH_SCALE_UPDATE_GOLDEN") == "1"


def expositions(release: str) -> dict[str, str]:
    """Each poll's exposition, one derivation state across them, a minute apart."""
    th = Thresholds()
    state = DerivationState(th)
    first = snapshot(release).taken_at
    out = {}
    for i, (name, suffix) in enumerate(POLLS):
        snap = snapshot(release, suffix, t=first + 60 * i)
        out[name] = exposition.render(derive(snap, state, th, cluster="golden")).decode()
    return out


@pytest.mark.parametrize("release", RELEASES)
def test_the_exposition_of_each_releases_captures_is_the_golden_one(release):
    made = expositions(release)
    if UPDATE:
        (GOLDEN / release).mkdir(parents=True, exist_ok=True)
        for name, text in made.items():
            (GOLDEN / release / f"{name}.prom").write_text(text)
    problems = []
    for name, text in made.items():
        path = GOLDEN / release / f"{name}.prom"
        want = path.read_text() if path.exists() else ""
        if text != want:
            diff = difflib.unified_diff(want.splitlines(), text.splitlines(), str(path), "now", lineterm="", n=0)
            problems.append("\n".join(list(diff)[:40]))
    assert not problems, "\n\n".join(problems) + "\n\n(CEPH_SCALE_UPDATE_GOLDEN=1 rewrites them after review)"


def test_the_golden_files_are_the_ones_made():
    """No golden file outlives its poll or release."""
    kept = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.prom")}
    assert kept == {f"{r}/{name}.prom" for r in RELEASES for name, _ in POLLS}
