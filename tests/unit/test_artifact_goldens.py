"""Golden artefacts: what Prometheus, Grafana, cephadm, Helm, the mixin, pip, the image, an
operator at the CLI and a manager get from this repository stays as kept under
tests/golden/artifacts/, as the expositions stay as kept under tests/golden/<release>/
(test_golden.py). A change of layout that moves any byte of them shows as a failure naming the
file; tests/unit/artifact_outputs.py says what each golden holds and what is normalised.
After a deliberate change:

    CEPH_SCALE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/unit/test_artifact_goldens.py
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from tests.unit import artifact_outputs, golden_files

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "artifacts"


@functools.cache
def made(group: str) -> dict[str, str]:
    return artifact_outputs.PRODUCERS[group]()


@pytest.mark.parametrize("group", sorted(artifact_outputs.PRODUCERS))
def test_each_artefact_is_the_golden_one(group):
    outputs = made(group)
    assert outputs, group
    diff = golden_files.differences({GOLDEN / name: text for name, text in outputs.items()})
    assert not diff, diff


def test_the_golden_artefacts_are_the_ones_made():
    """No golden file outlives what it was made from."""
    kept = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file()}
    assert kept == {name for group in artifact_outputs.PRODUCERS for name in made(group)}
