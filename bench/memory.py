"""The memory workers: tracemalloc peak of each stage, and the peak RSS of the sidecar's work."""

from __future__ import annotations

import gc
import json
import resource
import tracemalloc
from pathlib import Path
from typing import Any, Callable

from bench import canned, synth
from bench.canned import PARSER_FILES, SOURCE_FILES
from bench.stages import (
    decode_text,
    load_raws,
    parse_all,
    parts_from_decoded,
    parts_from_source_decoded,
    primed_state,
    series_count,
    sidecar_source,
    snapshot,
    warm_parts,
)
from ceph_scale.core import exposition
from ceph_scale.core.derive import derive
from ceph_scale.core.registry import SOURCE_NAMES
from exporter.sidecar.gc_tuning import tune_collector


def worker_trace(d: Path, classic: bool) -> dict:
    """tracemalloc peak of each stage (Python allocations; the interpreter's own memory is not in it)."""
    manifest = json.loads((d / "manifest.json").read_text())
    now, fsid = manifest["now"], synth.FSID
    raws = load_raws(d)
    out: dict[str, float] = {}
    tracemalloc.start()

    def stage(key: str, fn: Callable, *args) -> Any:
        gc.collect()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = fn(*args)
        out[key] = (tracemalloc.get_traced_memory()[1] - base) / 1e6
        return result

    if classic:  # tracing every object of a whole decode costs minutes and GBs at 10x: 1x only
        dec = stage("parse", parse_all, raws)
        parts = stage("parts", parts_from_decoded, dec, now)
        del dec, parts
    canned.bucket_source(raws, d)  # the bucket poll's state, restored once: what a cycle adds is traced
    side = {}
    for name in SOURCE_NAMES:
        side[name] = stage(f"source:{name}", sidecar_source, name, raws, d, now)
    gc.collect()
    out["parts_held"] = tracemalloc.get_traced_memory()[0] / 1e6  # the raw bytes predate tracemalloc.start()
    state = primed_state(warm_parts(side, now - 30), now - 30, fsid)
    families = stage("derive", derive, snapshot(side, now, fsid), state)
    stage("render", exposition.render, families)
    tracemalloc.stop()
    return out


def worker_rss(d: Path, classic: bool) -> dict:
    """Peak RSS of the sidecar's work: each source's raw bytes arrive, are decoded into its part and
    dropped (as a source does), then one derivation (after a priming one) and the rendering."""
    manifest = json.loads((d / "manifest.json").read_text())
    now, fsid = manifest["now"], synth.FSID
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if not classic:
        tune_collector()  # as the sidecar runs (exporter/sidecar/gc_tuning.py)
    parts = {}
    for name in SOURCE_NAMES:
        raws = {f: (d / f).read_bytes() for f in (PARSER_FILES if classic else SOURCE_FILES)[name]}
        if classic:
            dec = {f: decode_text(b) if f.endswith(".txt") else json.loads(b) for f, b in raws.items()}
            parts[name] = parts_from_source_decoded(name, dec, now)
            del dec
        else:
            parts[name] = sidecar_source(name, raws, d, now)
        del raws
    state = primed_state(warm_parts(parts, now - 30), now - 30, fsid)
    body = exposition.render(derive(snapshot(parts, now, fsid), state))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"base_mb": base, "peak_mb": peak, "series": series_count(body)}
