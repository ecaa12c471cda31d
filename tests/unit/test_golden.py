"""Golden expositions, per release: what operators get from each release's captured JSON.

The captures of each release (tests/fixtures/<release>/, from real clusters) go through the
sidecar's path (parsers, snapshot, derivation, exposition) as three polls: the base set, the
reshard queued, the reshard done. The three expositions are kept as text under
tests/golden/<release>/, as prometheus-pve-exporter keeps its golden files: a change that moves
any series shows as a diff to review. After a deliberate change:

    CEPH_SCALE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/unit/test_golden.py
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ceph_scale.core import exposition
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from tests.unit import golden_files
from tests.unit.test_release_fixtures import snapshot

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
RELEASES = ("pacific", "reef", "tentacle")
POLLS = (("base", ""), ("queued", "_queued"), ("resharded", "_resharded"))


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
    diff = golden_files.differences({GOLDEN / release / f"{name}.prom": text for name, text in made.items()})
    assert not diff, diff


def test_the_golden_files_are_the_ones_made():
    """No golden file outlives its poll or release."""
    kept = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.prom")}
    assert kept == {f"{r}/{name}.prom" for r in RELEASES for name, _ in POLLS}
