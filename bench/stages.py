"""The stages the benchmark times, each on the state of bench.synth: the whole decode, the parts,
the sidecar's own sources, the floor (a bare orjson.loads), the derivation primed by a previous
collection, and the series counted in the exposition."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from bench import canned
from bench.canned import INPUT_FILES, PARSER_FILES, SOURCE_FILES
from ceph_scale.core import inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.registry import SOURCE_BY_NAME, SOURCE_NAMES
from ceph_scale.core.signals.tenants.derive import OPTIONS as TENANTS_OPTIONS
from ceph_scale.core.signals.tenants.derive import SIGNAL as TENANTS_SIGNAL
from ceph_scale.core.signals.tenants.derive import usage_family
from ceph_scale.core.snapshot import Snapshot, SourceStatus


def decode_text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def parse_all(raws: dict[str, bytes]) -> dict[str, Any]:
    """Every input of the whole-decode path decoded whole (json.loads; the prometheus text as str):
    the registered parsers' inputs, every bucket's stats in one request among them (the design
    before the bucket poll)."""
    out = {}
    for files in PARSER_FILES.values():
        for name in files:
            raw = raws[name]
            out[name] = decode_text(raw) if name.endswith(".txt") else json.loads(raw)
    return out


def parts_from_decoded(dec: dict[str, Any], t: float) -> dict[str, Any]:
    """Every part from the whole-decoded inputs: the path before the chunked decode."""
    return {name: parts_from_source_decoded(name, dec, t) for name in SOURCE_NAMES}


def sidecar_source(name: str, raws: dict[str, bytes], d: Path, t: float) -> Any:
    """One collection of the sidecar's real source `name` on clients canned from `d`."""
    return canned.collect(name, raws, d, t)


def floor(raws: dict[str, bytes]) -> None:
    import orjson

    for files in SOURCE_FILES.values():
        for name in files:
            if name.endswith(".json"):
                orjson.loads(raws[name])


def warm_parts(parts: dict[str, Any], t: float) -> dict[str, Any]:
    """The previous collection, 30 s earlier: op counters 0.1 % lower and DBs a little emptier, so
    that rates, slopes and hot spots have values (the steady state, not a first scrape)."""
    out = {k: dataclasses.replace(v, collected_at=t) for k, v in parts.items()}
    perf = parts["perf"]
    out["perf"] = dataclasses.replace(
        perf,
        collected_at=t,
        bluefs=tuple(dataclasses.replace(c, db_used_bytes=int(c.db_used_bytes * 0.9999)) for c in perf.bluefs),
        osd_ops=tuple(
            dataclasses.replace(c, read_ops=int(c.read_ops * 0.999), write_ops=int(c.write_ops * 0.999))
            for c in perf.osd_ops
        ),
        rgw_ops=tuple(
            dataclasses.replace(c, get_ops=int(c.get_ops * 0.999), put_ops=int(c.put_ops * 0.999)) for c in perf.rgw_ops
        ),
    )
    return out


def snapshot(parts: dict[str, Any], t: float, fsid: str, snapshot_cls=Snapshot, status_cls=SourceStatus) -> Any:
    """Every source succeeded at `t`, each with its default interval, as both producers report
    them (ceph_scale_source_interval_seconds: one series a source)."""
    statuses = tuple(
        status_cls(name, True, 0.1, t, interval_seconds=SOURCE_BY_NAME[name].interval) for name in SOURCE_NAMES
    )
    return snapshot_cls(taken_at=t, fsid=fsid, sources=statuses, **parts)


def primed_state(warm: dict[str, Any], t: float, fsid: str, state_cls=DerivationState, derive_fn=derive, **kw):
    """The derivation state after the collection `warm` at `t`, and a bucket poll 30 s before it.
    The bucket signals' growth references turn once per half rgw_growth_window_seconds (every 90th
    bucket poll at the defaults), and a poll keeps what the one before found of the buckets it did
    not read: the poll before the one timed makes it such a poll, as nearly all are (the turn's
    cost is timed on its own: `turn_state`)."""
    state = turn_state(warm, t, fsid, state_cls, derive_fn, **kw)
    derive_fn(snapshot(warm, t, fsid, **kw), state)
    return state


def turn_state(warm: dict[str, Any], t: float, fsid: str, state_cls=DerivationState, derive_fn=derive, **kw):
    """The state after a first bucket poll 30 s before `t` only: the next derivation's buckets
    make the growth references turn (the first after a start, then every 90th poll)."""
    state = state_cls(Thresholds())
    if warm.get("buckets") is not None:
        derive_fn(
            buckets_snapshot(dataclasses.replace(warm["buckets"], collected_at=t - 30), t - 30, fsid, **kw), state
        )
    return state


def buckets_snapshot(part: Any, t: float, fsid: str, snapshot_cls=Snapshot, status_cls=SourceStatus) -> Any:
    """A snapshot of the bucket poll alone (the other sources not collected yet)."""
    status = status_cls("buckets", True, 0.1, t, interval_seconds=SOURCE_BY_NAME["buckets"].interval)
    return snapshot_cls(taken_at=t, fsid=fsid, sources=(status,), buckets=part)


def series_count(body: bytes) -> int:
    return sum(1 for line in body.split(b"\n") if line and not line.startswith(b"#"))


# What the tenants signal adds besides its usage families: its success and failure counts, and
# its options in ceph_scale_config (signals/tenants: usage_series counts the same in families).
TENANTS_MARKS = (f'signal="{TENANTS_SIGNAL}"'.encode(), *(f'option="{o}"'.encode() for o in TENANTS_OPTIONS))


def usage_series_count(body: bytes) -> int:
    """The series the tenant and bucket usage adds, which keeps a budget of its own
    (signals/tenants: series_budget, set by two options) beside the core's: its families, its
    signal's two series and its options' (as signals/tenants' usage_series counts them)."""
    return sum(
        1
        for line in body.split(b"\n")
        if line
        and not line.startswith(b"#")
        and (usage_family(line.split(b"{")[0].split(b" ")[0].decode()) or any(m in line for m in TENANTS_MARKS))
    )


def load_raws(d: Path, files: dict[str, tuple[str, ...]] = PARSER_FILES) -> dict[str, bytes]:
    every = {name for names in (*files.values(), *SOURCE_FILES.values()) for name in names}
    return {name: (d / name).read_bytes() for name in every}


def same_parts(side: dict[str, Any], whole: dict[str, Any]) -> bool:
    """The sidecar's parts are the whole-decode path's; its bucket poll holds stats read at other
    times (each bucket's own), so buckets compare by what the signals judge, and the reshard queue
    by its entries."""

    def judged(part: Any) -> dict:
        return {b.key: (b.bucket_id, b.num_shards, b.num_objects) for b in part.buckets}

    rest = [n for n in SOURCE_NAMES if n not in ("buckets", "reshard")]
    return (
        {n: side[n] for n in rest} == {n: whole[n] for n in rest}
        and judged(side["buckets"]) == judged(whole["buckets"])
        and queue_of(side["reshard"]) == queue_of(whole["reshard"])
    )


def queue_of(part: Any) -> tuple:
    """A reshard part's queue: its buckets' own op counts are the scale module's answer, which the
    parsers' whole decode does not ask."""
    return part.collected_at, part.entries


def parts_from_source_decoded(name: str, dec: dict[str, Any], t: float) -> Any:
    """The registered parser of source `name` on its whole-decoded inputs (the module decodes whole too)."""

    def decoded(input_name: str) -> Any:
        value = dec[INPUT_FILES[input_name]]
        # The canned counters are the prometheus text: read into counters here, as the sidecar does.
        return inputs.counters_from_prometheus_text(value) if input_name == "perf counters" else value

    return SOURCE_BY_NAME[name].parse(decoded, t)
