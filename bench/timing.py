"""The timing worker: CPU (and wall) seconds of each stage, median of --reps runs, on the sidecar's
path, the whole-decode path and the ceph-mgr module's."""

from __future__ import annotations

import functools
import gc
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any, Callable

from bench import canned, synth
from bench.canned_mgr import CannedMgr, mgr_bucket_poll, mgr_package, mgr_parts
from bench.stages import (
    floor,
    load_raws,
    parse_all,
    parts_from_decoded,
    primed_state,
    same_parts,
    series_count,
    sidecar_source,
    snapshot,
    usage_series_count,
    warm_parts,
)
from ceph_scale.core import exposition, inputs
from ceph_scale.core.derive import derive
from ceph_scale.core.registry import SOURCE_NAMES
from exporter.sidecar.gc_tuning import tune_collector


class Clock:
    """CPU seconds of this (single-threaded) process: what the work costs, whatever the neighbours
    do on a shared machine. Wall seconds are kept beside them (`wall:` keys)."""

    wall: dict[str, list[float]]

    def __init__(self) -> None:
        self.cpu: dict[str, list[float]] = {}
        self.wall = {}

    def add(self, key: str, cpu: float, wall: float | None = None) -> None:
        self.cpu.setdefault(key, []).append(cpu)
        if wall is not None:
            self.wall.setdefault(key, []).append(wall)


LAST_WALL = [0.0]


def timed(fn: Callable, *args) -> tuple[Any, float]:
    """(result, CPU seconds); the wall seconds of the same call are left in LAST_WALL[0]."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args)
    LAST_WALL[0] = time.perf_counter() - w0
    return out, time.process_time() - c0


def worker_time(d: Path, reps: int) -> dict:
    manifest = json.loads((d / "manifest.json").read_text())
    now, fsid = manifest["now"], synth.FSID
    raws = load_raws(d)
    clock = Clock()
    walls: dict[str, float] = {}

    def add(key: str, value: float, wall: float | None = None) -> None:
        clock.add(key, value, LAST_WALL[0] if wall is None else wall)

    body = b""
    m = None
    mgr_error = ""
    try:
        m = mgr_package()
    except Exception as e:  # the module tree is someone else's work in progress: report, do not fail
        mgr_error = f"{type(e).__name__}: {e}"
    # The steady state: the previous collection's parts and the derivation state are alive while
    # the next collection is decoded (each source keeps its last part until the new one is built).
    previous = warm_parts({name: sidecar_source(name, raws, d, now) for name in SOURCE_NAMES}, now - 30)
    python_thresholds = gc.get_threshold()
    for rep in range(reps):
        state = primed_state(previous, now - 30, fsid)
        gc.collect()
        # The floor, the target's yardstick, as it always was: under Python's collector thresholds.
        _, t_floor = timed(floor, raws)
        add("floor", t_floor)
        walls["floor"] = LAST_WALL[0]
        # The sidecar's path under its own thresholds, as it runs (exporter/sidecar/gc_tuning.py),
        # and the floor again under them, shown beside (a stricter yardstick: orjson gains too);
        # the whole-decode and the module's paths under Python's.
        tune_collector()
        gc.collect()
        _, t_floor_tuned = timed(floor, raws)
        add("floor_tuned", t_floor_tuned, LAST_WALL[0])
        gc.collect()  # what the floors' decodes left to the collector is not the sidecar's
        # The sidecar's path, per source.
        side = {}
        total = total_wall = 0.0
        for name in SOURCE_NAMES:
            side[name], t = timed(sidecar_source, name, raws, d, now)
            add(f"source:{name}", t)
            total += t
            total_wall += LAST_WALL[0]
        add("sidecar_parse_parts", total, total_wall)
        families, t_derive = timed(derive, snapshot(side, now, fsid), state)
        add("derive", t_derive)
        walls["derive"] = LAST_WALL[0]
        body, t_render = timed(exposition.render, families)
        add("render", t_render)
        walls["render"] = LAST_WALL[0]
        add("cycle", total + t_derive + t_render, total_wall + walls["derive"] + walls["render"])
        add("ratio", (total + t_derive + t_render) / t_floor, 0.0)
        add("ratio_tuned", (total + t_derive + t_render) / t_floor_tuned, 0.0)
        add("ratio_wall", (total_wall + walls["derive"] + walls["render"]) / walls["floor"], 0.0)
        del families, state
        gc.set_threshold(*python_thresholds)
        # Whole decode, then the parts: the path before the chunked decode, and the mgr module's input.
        dec, t_parse = timed(parse_all, raws)
        add("parse", t_parse)
        walls["parse"] = LAST_WALL[0]
        parts, t_parts = timed(parts_from_decoded, dec, now)
        add("parts", t_parts)
        walls["parts"] = LAST_WALL[0]
        if rep == 0:
            assert same_parts(side, parts), "the sidecar's chunked decode must give the same parts"
        add(
            "classic_cycle",
            t_parse + t_parts + t_derive + t_render,
            walls["parse"] + walls["parts"] + walls["derive"] + walls["render"],
        )
        del side
        if m is not None:
            counters = inputs.counters_from_prometheus_text(dec["mgr_prometheus_metrics.txt"])
            mgr = CannedMgr(dec, counters)
            mgr_buckets = mgr_bucket_poll(m, d, canned.bucket_source(raws, d).ctx.rgw)
            try:
                mparts, t_mparts = timed(mgr_parts, m, mgr, dec, mgr_buckets)
                snap_mod, derive_mod = m["snapshot"], m["derive"]
                t0 = min(now, time.time()) - 60
                mstate = primed_state(
                    warm_parts(mparts, t0),
                    t0,
                    fsid,
                    state_cls=derive_mod.DerivationState,
                    derive_fn=derive_mod.derive,
                    snapshot_cls=snap_mod.Snapshot,
                    status_cls=snap_mod.SourceStatus,
                )
                msnap = snapshot(
                    mparts, time.time(), fsid, snapshot_cls=snap_mod.Snapshot, status_cls=snap_mod.SourceStatus
                )
                w_mparts = LAST_WALL[0]
                mfam, t_mderive = timed(functools.partial(derive_mod.derive, msnap, mstate, producer="mgr"))
                w_mderive = LAST_WALL[0]
                mbody, t_mrender = timed(m["exposition"].render, mfam)
                w_mrender = LAST_WALL[0]
                add("mgr_parts", t_mparts, w_mparts)
                add("mgr_derive", t_mderive, w_mderive)
                add("mgr_render", t_mrender, w_mrender)
                add("mgr_cycle", t_mparts + t_mderive + t_mrender, w_mparts + w_mderive + w_mrender)
                if rep == 0:
                    add("mgr_series", series_count(mbody), 0.0)
            except Exception as e:
                mgr_error = f"{type(e).__name__}: {e}"
                m = None
        del dec, parts
    return {
        "median": {k: statistics.median(v) for k, v in clock.cpu.items()},
        "min": {k: min(v) for k, v in clock.cpu.items()},
        "wall_median": {k: statistics.median(v) for k, v in clock.wall.items()},
        "clock": "CPU seconds of the process (time.process_time); wall seconds in wall_median",
        "load_avg": os.getloadavg(),
        "reps": reps,
        "series": series_count(body),
        "usage_series": usage_series_count(body),
        "exposition_bytes": len(body),
        "input_bytes": {k: len(v) for k, v in raws.items()},
        "mgr_error": mgr_error,
    }
