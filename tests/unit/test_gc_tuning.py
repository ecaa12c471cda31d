"""The sidecar's collector thresholds (exporter/sidecar/gc_tuning.py), at the 10B study's scale.

With Python's defaults, decoding the study's `pg dump` (21,760 PGs, ~50 MB) a MiB at a time set
off a full collection over the whole heap on every pg poll. Two things now keep it off, each on its
own: the sidecar's thresholds, set at its start, and the chunk the dump is decoded by (64 KiB: a
chunk's dicts die young under the defaults too). Each gives the same records.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from exporter.sidecar import main as sidecar_main
from exporter.sidecar.gc_tuning import SIDECAR_THRESHOLDS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def thresholds():
    """Set a test's thresholds; Python's own are back afterwards."""
    before = gc.get_threshold()
    yield gc.set_threshold
    gc.set_threshold(*before)


# Run in a process of its own: whether a full collection comes depends on how much the heap
# already holds, which in the test command's process is everything the tests before left.
STUDY_DECODE = """
import gc, json, sys
from bench import synth
from bench.canned import CannedCeph
from ceph_scale.core import json_stream
from exporter.sidecar.sources import PgsSource, SourceContext
from exporter.sidecar.sources.base import Deadline

s = synth.Synth(seed=1, **synth.STUDY)
raw = json.dumps({"pg_ready": True, "pg_stats": list(s.iter_pgs())}).encode()
source = PgsSource(SourceContext(ceph=CannedCeph({"pg_dump_pgs.json": raw})))
kept = [source.collect(Deadline(600.0)) for _ in range(3)]  # the parts a running sidecar holds
full = []
gc.callbacks.append(lambda phase, info: full.append(1) if phase == "start" and info["generation"] == 2 else None)
out = {}
chunk = json_stream._CHUNK_BYTES
for name, th, chunk_bytes in (
    ("python, a MiB a chunk", (700, 10, 10), 1 << 20),
    ("python", (700, 10, 10), chunk),
    ("sidecar, a MiB a chunk", tuple(json.loads(sys.argv[1])), 1 << 20),
):
    json_stream._CHUNK_BYTES = chunk_bytes
    gc.set_threshold(*th)
    gc.collect()
    full.clear()
    part = source.collect(Deadline(600.0))
    out[name] = {"full": len(full), "pgs": [repr(pg) for pg in part.pgs]}
print(json.dumps(out))
"""


def test_the_study_scale_pg_dump_sets_off_no_full_collection_under_either_guard():
    done = subprocess.run(
        [sys.executable, "-c", STUDY_DECODE, json.dumps(SIDECAR_THRESHOLDS)],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    out = json.loads(done.stdout)
    assert out["python, a MiB a chunk"]["full"] >= 1, "no full collection to keep off: the test shows nothing"
    assert out["python"]["full"] == 0  # the chunk alone
    assert out["sidecar, a MiB a chunk"]["full"] == 0  # the thresholds alone
    pgs = out["python"]["pgs"]
    assert len(pgs) == 21_760 and all(run["pgs"] == pgs for run in out.values())


def test_the_sidecar_sets_its_thresholds_at_start(thresholds, capsys):
    thresholds(700, 10, 10)
    assert sidecar_main.main(["--artefacts"]) in (0, 1)  # any start, before its options are acted on
    assert gc.get_threshold() == SIDECAR_THRESHOLDS
