"""A scenario file (YAML, replay/README.md) read into plain records, every field checked.

Durations are Prometheus-style strings ("90s", "15m", "2h", "3d", "1d2h") or seconds; an
event's `at` is its offset from the start of the span. A wrong field names itself, the file and
the cluster in one line (ScenarioError), never a traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from bench import synth
from replay import traces
from replay.release_shapes import RELEASES

BUCKETS_READS = ("stats", "poll")

EVENT_KINDS = (
    "node_down",  # every OSD of one node down for `for`; `noout: true` keeps them in
    "failed_scrape",  # one scrape of the exporter fails: up 0, every series stale once
    "exporter_restart",  # the exporter restarts: one scrape missed, its counters from zero, its saved state restored
    "mgr_failover",  # the active manager moves: the perf source fails for `for`
    "leave_fleet",  # the cluster is decommissioned: its target leaves Prometheus for good
    "reshard",  # one bucket reshards to `shards`: queued for `for`, its last `running` in progress
    "scrub_storm",  # `pgs` PGs deep scrub at once for `for`, the cluster serving the share `served` of the ops
    "power_outage",  # the cluster and its exporter dark for `for`, then `rebuild` of recovery at the share `served`
    "rebalance",  # old objects deleted: fill down `fill_drop` over `for`, `pgs` PGs backfilling, ops at `served`
    "add_rgws",  # `count` more RGWs from `at` on, the clients spread over all of them
)
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class ScenarioError(ValueError):
    pass


def seconds(value: Any, what: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and re.fullmatch(r"(\d+(\.\d+)?[smhdw])+", value):
        return sum(float(n) * UNITS[u] for n, _, u in re.findall(r"(\d+(\.\d+)?)([smhdw])", value))
    raise ScenarioError(f"{what}: {value!r} is not a duration (like 90s, 15m, 2h, 3d)")


@dataclass(frozen=True)
class Event:
    kind: str
    at: float
    duration: float = 0.0  # `for`
    node: int = 0
    noout: bool = False
    bucket: int = 0
    shards: int = 0
    running: float = 0.0  # a reshard's time in progress, at the end of `for` (the bucket's writes wait)
    pgs: int = 0  # a scrub storm's PGs deep scrubbing
    served: float = 1.0  # the share of the clients' ops the cluster completes meanwhile
    rebuild: float = 0.0  # after a power outage: how long PGs recover
    fill_drop: float = 0.0  # a rebalance's fall of the fill
    count: int = 0  # RGWs added


@dataclass(frozen=True)
class WorkloadStep:
    """One slice of the workload's cycle: S3 ops/s per RGW kind for `duration` seconds."""

    duration: float
    put: float
    get: float


@dataclass(frozen=True)
class Cluster:
    name: str
    nodes: int
    osds_per_node: int
    db_bytes: int
    pgs: int
    pools: int
    rgws: int
    buckets: int
    bucket_objects: tuple[int, int]  # per bucket, at the start and at the end of the span (with the PUTs)
    fill: tuple[float, float]  # OSD fill at the start and at the end of the span
    spilled_osds: tuple[int, int]  # OSDs with BlueFS spillover, start and end
    spilled_bytes: tuple[float, float]  # spilled bytes per spilled OSD, start and end
    overdue_scrub: tuple[int, int]  # PGs not scrubbed in time, start and end
    overdue_deep: tuple[int, int]  # PGs not deep-scrubbed in time, start and end
    scrub_window: tuple[float, float] | None  # nightly: (start hour, hours) when scrubs run
    workload: tuple[WorkloadStep, ...]
    events: tuple[Event, ...] = ()
    shards: tuple[int, ...] = ()  # each bucket's index shards at the start
    dynamic_reshard: tuple[float, float] | None = None  # (thread interval, index entries copied per second)
    pace: tuple[float, float] = (1.0, 1.0)  # the share of the clients' healthy rate served, start and end
    release: str = "pacific"  # whose JSON shapes its answers take (replay.release_shapes)
    # How the exporter's buckets are read (replay.bucket_reader): "stats", every bucket's stats at
    # every poll, or "poll", the sidecar's bucket poll with its index pool probes (Reef's default).
    buckets_read: str = "stats"
    # Whether the RGWs count each bucket's ops (rgw_bucket_counters_cache on) and the reshard
    # source reads the queued buckets' counts, as the module does on Tentacle (replay.simulate).
    bucket_counters: bool = False

    @property
    def osds(self) -> int:
        return self.nodes * self.osds_per_node

    @property
    def most_rgws(self) -> int:
        """RGWs once every add_rgws event happened."""
        return self.rgws + sum(e.count for e in self.events if e.kind == "add_rgws")


@dataclass(frozen=True)
class Scenario:
    name: str
    span: float
    step: float  # scrape and rule evaluation interval
    pgs_interval: float  # how often the pgs source is read (the costliest, as the sidecar's option)
    clusters: tuple[Cluster, ...] = field(default_factory=tuple)
    timeline: tuple[str, ...] = traces.DEFAULT  # the signals drawn on the timeline (replay.traces)


def pair(raw: dict[str, Any], key: str, what: str, default: Any, kind: type = float) -> tuple[Any, Any]:
    value = raw.get(key, default)
    if not isinstance(value, list):
        value = [value, value]
    if len(value) != 2:
        raise ScenarioError(f"{what}.{key}: give one value or [start, end]")
    try:
        return kind(value[0]), kind(value[1])
    except (TypeError, ValueError) as e:
        raise ScenarioError(f"{what}.{key}: {e}") from None


def number(raw: dict[str, Any], key: str, what: str, default: Any = None, kind: type = int) -> Any:
    if key not in raw and default is None:
        raise ScenarioError(f"{what}: `{key}` is required")
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ScenarioError(f"{what}.{key}: {value!r} is not a non-negative number")
    return kind(value)


def read_event(raw: Any, what: str, span: float) -> Event:
    if not isinstance(raw, dict) or raw.get("kind") not in EVENT_KINDS:
        raise ScenarioError(f"{what}: an event needs `kind`, one of {', '.join(EVENT_KINDS)}")
    at = seconds(raw.get("at"), f"{what}.at")
    if at > span:
        raise ScenarioError(f"{what}.at: {raw.get('at')} is after the end of the span")
    return Event(
        raw["kind"],
        at,
        seconds(raw.get("for", 0), f"{what}.for"),
        number(raw, "node", what, 0),
        bool(raw.get("noout", False)),
        number(raw, "bucket", what, 0),
        number(raw, "shards", what, 0),
        seconds(raw.get("running", 0), f"{what}.running"),
        number(raw, "pgs", what, 0),
        number(raw, "served", what, 1.0, float),
        seconds(raw.get("rebuild", 0), f"{what}.rebuild"),
        number(raw, "fill_drop", what, 0.0, float),
        number(raw, "count", what, 0),
    )


def read_shards(raw: dict[str, Any], what: str) -> tuple[int, ...]:
    """Each bucket's index shards at the start: one number for all, or a list of one per bucket."""
    value = raw.get("shards", synth.DEFAULT_SHARDS)
    values = value if isinstance(value, list) else [value] * int(raw.get("buckets") or 0)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values):
        raise ScenarioError(f"{what}.shards: {value!r} is not a shard count of at least 1 (or a list of them)")
    return tuple(values)


def read_dynamic_reshard(raw: Any, what: str) -> tuple[float, float] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ScenarioError(f"{what}.dynamic_reshard: a mapping {{thread_interval, entries_per_second}}")
    interval = seconds(raw.get("thread_interval", "10m"), f"{what}.dynamic_reshard.thread_interval")
    rate = number(raw, "entries_per_second", f"{what}.dynamic_reshard", kind=float)
    if interval <= 0 or rate <= 0:
        raise ScenarioError(f"{what}.dynamic_reshard: thread_interval and entries_per_second must be above 0")
    return interval, rate


def read_cluster(raw: Any, what: str, span: float) -> Cluster:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise ScenarioError(f"{what}: a cluster needs a `name`")
    what = f"{what} {raw['name']}"
    steps = raw.get("workload") or [{"for": "1h", "put": 0, "get": 0}]
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise ScenarioError(f"{what}.workload: a list of {{for, put, get}}")
    workload = tuple(
        WorkloadStep(
            seconds(s.get("for"), f"{what}.workload"),
            number(s, "put", what, 0.0, float),
            number(s, "get", what, 0.0, float),
        )
        for s in steps
    )
    window = raw.get("scrub_window")
    scrub_window = None
    if window is not None and not isinstance(window, dict):
        raise ScenarioError(f"{what}.scrub_window: a mapping {{start_hour, for}}")
    if window is not None:
        scrub_window = (
            number(window, "start_hour", what, 0.0, float),
            seconds(window.get("for"), f"{what}.scrub_window.for") / 3600,
        )
    events = tuple(read_event(e, f"{what}.events[{i}]", span) for i, e in enumerate(raw.get("events") or []))
    cluster = Cluster(
        raw["name"],
        number(raw, "nodes", what),
        number(raw, "osds_per_node", what),
        int(number(raw, "db_gb", what, kind=float) * 10**9),
        number(raw, "pgs", what),
        number(raw, "pools", what, 7),
        number(raw, "rgws", what),
        number(raw, "buckets", what, 0),
        pair(raw, "bucket_objects", what, 50_000, int),
        pair(raw, "fill", what, 0.5),
        pair(raw, "spilled_osds", what, 0, int),
        pair(raw, "spilled_gb", what, 0.0),
        pair(raw, "overdue_scrub", what, 0, int),
        pair(raw, "overdue_deep", what, 0, int),
        scrub_window,
        workload,
        events,
        read_shards(raw, what),
        read_dynamic_reshard(raw.get("dynamic_reshard"), what),
        pair(raw, "pace", what, 1.0),
        str(raw.get("release", "pacific")),
        str(raw.get("buckets_read", "poll" if raw.get("release") == "reef" else "stats")),
        raw.get("bucket_counters", False),
    )
    # Spilled sizes are given in GB, kept in bytes.
    cluster = replace(cluster, spilled_bytes=(cluster.spilled_bytes[0] * 1e9, cluster.spilled_bytes[1] * 1e9))
    if cluster.release not in RELEASES:
        raise ScenarioError(f"{what}.release: {cluster.release!r}: one of {', '.join(RELEASES)} (the captured ones)")
    if cluster.buckets_read not in BUCKETS_READS:
        raise ScenarioError(f"{what}.buckets_read: {cluster.buckets_read!r}: one of {', '.join(BUCKETS_READS)}")
    if not isinstance(cluster.bucket_counters, bool):
        raise ScenarioError(f"{what}.bucket_counters: {cluster.bucket_counters!r}: true or false")
    if cluster.bucket_counters and cluster.release != "tentacle":
        raise ScenarioError(f"{what}.bucket_counters: only a tentacle cluster's manager reads them (labeled calls)")
    if not 0 < min(cluster.pace) <= max(cluster.pace) <= 1:
        raise ScenarioError(f"{what}.pace: a share of the healthy rate, above 0 and at most 1")
    if len(cluster.shards) != cluster.buckets:
        raise ScenarioError(f"{what}.shards: one number for every bucket, or a list of {cluster.buckets}")
    if cluster.osds < 6 or cluster.pgs < cluster.pools:
        raise ScenarioError(f"{what}: at least 6 OSDs and one PG per pool")
    if max(cluster.spilled_osds) > cluster.osds or max(cluster.overdue_scrub + cluster.overdue_deep) > cluster.pgs:
        raise ScenarioError(f"{what}: more spilled OSDs or overdue PGs than the cluster has")
    for e in events:
        if e.kind == "node_down" and e.node >= cluster.nodes:
            raise ScenarioError(f"{what}: node_down of node {e.node}, but the cluster has {cluster.nodes}")
        if e.kind == "reshard" and e.bucket >= cluster.buckets:
            raise ScenarioError(f"{what}: reshard of bucket {e.bucket}, but the cluster has {cluster.buckets}")
        if e.kind == "rebalance" and not (e.duration > 0 and 0 < e.pgs <= cluster.pgs and 0 < e.served <= 1):
            raise ScenarioError(
                f"{what}: a rebalance needs `for` above 0, 0 < pgs <= the cluster's PGs, 0 < served <= 1"
            )
        if e.kind == "add_rgws" and e.count < 1:
            raise ScenarioError(f"{what}: add_rgws needs a `count` of at least 1")
        if e.kind == "power_outage" and not (e.duration > 0 and 0 < e.served <= 1):
            raise ScenarioError(f"{what}: a power_outage needs `for` above 0 and 0 < served <= 1")
        if e.kind == "scrub_storm" and not (0 < e.pgs <= cluster.pgs and 0 < e.served <= 1):
            raise ScenarioError(f"{what}: a scrub_storm needs 0 < pgs <= the cluster's PGs and 0 < served <= 1")
        if e.kind == "reshard" and e.running > e.duration:
            raise ScenarioError(f"{what}: a reshard's `running` is part of its `for`, not longer")
    return cluster


def load(path: Path) -> Scenario:
    try:
        raw = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise ScenarioError(f"{path}: {e}") from None
    if not isinstance(raw, dict):
        raise ScenarioError(f"{path}: not a mapping")
    span = seconds(raw.get("span"), f"{path}: span")
    step = seconds(raw.get("step", "1m"), f"{path}: step")
    clusters = raw.get("clusters")
    if not isinstance(clusters, list) or not clusters:
        raise ScenarioError(f"{path}: `clusters` must list at least one cluster")
    timeline = raw.get("timeline", list(traces.DEFAULT))
    if not isinstance(timeline, list) or not all(t in traces.TRACES for t in timeline):
        raise ScenarioError(f"{path}: timeline: {timeline!r}: a list of {', '.join(traces.TRACES)}")
    return Scenario(
        str(raw.get("name", path.stem)),
        span,
        step,
        seconds(raw.get("pgs_interval", step), f"{path}: pgs_interval"),
        tuple(read_cluster(c, f"{path}: clusters[{i}]", span) for i, c in enumerate(clusters)),
        tuple(timeline),
    )
