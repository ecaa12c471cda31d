"""The sidecar's collector thresholds (exporter/sidecar/gc_tuning.py), at the 10B study's scale.

With Python's defaults, decoding the study's `pg dump` (21,760 PGs, ~50 MB) set off a full
collection over the whole heap on every pg poll. Under the sidecar's thresholds the same decode
sets off none and gives the same records; the sidecar sets them at its start.
"""

from __future__ import annotations

import gc
import json

import pytest

from bench import synth
from bench.canned import CannedCeph
from ceph_scale.core import inputs
from exporter.sidecar import main as sidecar_main
from exporter.sidecar.gc_tuning import SIDECAR_THRESHOLDS
from exporter.sidecar.sources import PgsSource, SourceContext
from exporter.sidecar.sources.base import Deadline


@pytest.fixture
def thresholds():
    """Set a test's thresholds; Python's own are back afterwards."""
    before = gc.get_threshold()
    yield gc.set_threshold
    gc.set_threshold(*before)


@pytest.fixture(scope="module")
def study_pg_dump() -> bytes:
    s = synth.Synth(seed=1, **synth.STUDY)
    return json.dumps({"pg_ready": True, "pg_stats": list(s.iter_pgs())}).encode()


def full_collections_during(fn):
    seen = []

    def note(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(1)

    gc.collect()
    gc.callbacks.append(note)
    try:
        out = fn()
    finally:
        gc.callbacks.remove(note)
    return len(seen), out


def test_the_study_scale_pg_dump_sets_off_no_full_collection_under_the_sidecars_thresholds(study_pg_dump, thresholds):
    source = PgsSource(SourceContext(ceph=CannedCeph({"pg_dump_pgs.json": study_pg_dump})))
    kept = [source.collect(Deadline(600.0)) for _ in range(3)]  # the parts a running sidecar holds
    thresholds(700, 10, 10)  # Python's defaults: the premise
    running, before = full_collections_during(lambda: source.collect(Deadline(600.0)))
    assert running >= 1, "the decode set off no full collection under the defaults: the tuning buys nothing"
    thresholds(*SIDECAR_THRESHOLDS)
    held, part = full_collections_during(lambda: source.collect(Deadline(600.0)))
    assert held == 0
    assert len(part.pgs) == 21_760
    assert part.pgs == before.pgs == inputs.pg_part_from_json(study_pg_dump, 0.0, json.loads).pgs
    del kept


def test_the_sidecar_sets_its_thresholds_at_start(thresholds, capsys):
    thresholds(700, 10, 10)
    assert sidecar_main.main(["--artefacts"]) in (0, 1)  # any start, before its options are acted on
    assert gc.get_threshold() == SIDECAR_THRESHOLDS
