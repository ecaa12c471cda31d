"""A scenario's clusters, each polled and scraped as a sidecar and Prometheus would: timestamped
OpenMetrics for the backfill, and the staleness markers a scrape loop would have written.

At every step, each cluster's answers (replay.cluster) go through the registered parsers
(`SOURCES[i].parse`) into a Snapshot, through `derive` (one DerivationState per exporter
process) and the exposition's samples (`exposition.to_client_metrics`, what `render` writes).
Prometheus's side: the target's labels (job, instance) on every sample, `up`, and on a failed
scrape, a restart or a target leaving, the staleness markers of the series that went away.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ceph_scale.core import exposition, inputs, queued_bucket_ops
from ceph_scale.core.bucket_poll import SAVE_EVERY, BucketPoll
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.queued_bucket_ops import WatchedBuckets
from ceph_scale.core.registry import SOURCES
from ceph_scale.core.snapshot import BucketsPart, ReshardPart, Snapshot, SourceStatus
from replay import traces
from replay.bucket_reader import SimBuckets, polled
from replay.cluster import SimCluster
from replay.scenario import Cluster, Scenario

JOB = "ceph-scale-sidecar"
START = 1_800_000_000.0  # 2027-01-15 08:00 UTC: the span's first poll


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def sample_value(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return repr(float(v))


@dataclass
class Exporter:
    """One cluster's sidecar and its Prometheus target."""

    spec: Cluster
    sim: SimCluster
    instance: str
    state: DerivationState = field(default_factory=lambda: DerivationState(Thresholds()))
    parts: dict[str, Any] = field(default_factory=dict)
    statuses: dict[str, SourceStatus] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    last_read: dict[str, float] = field(default_factory=dict)
    served: dict[str, dict[str, str]] = field(default_factory=dict)  # series text -> labels of the last scrape
    bucket_poll: BucketPoll = field(default_factory=BucketPoll)  # read by it with `buckets_read: poll`
    # The poll's state as the sidecar last saved it (every SAVE_EVERY, from its start, and at a stop).
    bucket_poll_saved: dict[str, Any] | None = None
    bucket_poll_saved_at: float = START
    watched: WatchedBuckets = field(default_factory=WatchedBuckets)  # with `bucket_counters`
    gone: bool = False
    dark: bool = False  # its host without power (a power outage)

    def events_at(self, kind: str, off: float, step: float) -> bool:
        return any(e.kind == kind and off <= e.at < off + step for e in self.spec.events)

    def poll(self, t: float, pgs_interval: float) -> list[tuple[str, dict[str, str], float]]:
        """The exposition's samples after the sources due at t are read."""
        failing = {"perf"} if self.sim.active("mgr_failover", t) else set()
        read_pgs = t - self.last_read.get("pgs", -math.inf) >= pgs_interval
        answers = self.sim.answers(t, read_pgs)
        if "perf counters" in answers:
            answers["perf counters"] = inputs.counters_from_prometheus_text(answers["perf counters"])
        for spec in SOURCES:
            if spec.name == "pgs" and not read_pgs:
                continue
            interval = pgs_interval if spec.name == "pgs" else None
            if spec.name in failing:
                self.failures[spec.name] = self.failures.get(spec.name, 0) + 1
                last = self.statuses.get(spec.name)
                self.statuses[spec.name] = SourceStatus(
                    spec.name, False, 10.0, last.last_success_at if last else None,
                    "mgr failover: connection refused", self.failures[spec.name], interval,
                )  # fmt: skip
                continue
            if spec.name == "buckets" and self.spec.buckets_read == "poll":
                self.parts[spec.name] = self.poll_buckets(answers["bucket stats"], t)
            else:
                self.parts[spec.name] = spec.parse(answers.__getitem__, t)
            if spec.name == "reshard" and self.spec.bucket_counters:
                self.parts[spec.name] = self.count_bucket_ops(self.parts[spec.name])
            self.last_read[spec.name] = t
            self.statuses[spec.name] = SourceStatus(
                spec.name, True, 0.1, t, "", self.failures.get(spec.name, 0), interval
            )
        snap = Snapshot(
            taken_at=t, fsid=synth_fsid(self.spec.name), sources=tuple(self.statuses.values()), **self.parts
        )
        families = derive(snap, self.state, cluster=self.spec.name)
        samples = []
        for metric in exposition.to_client_metrics(families):
            for s in metric.samples:
                samples.append((s.name, {**s.labels, "job": JOB, "instance": self.instance}, s.value))
        return samples

    def poll_buckets(self, stats: list[dict[str, Any]], t: float) -> BucketsPart:
        indexes = self.sim.indexes
        reader = SimBuckets(stats, indexes.generation, indexes.processing(t), t, self.spec.release)
        part = polled(self.bucket_poll, reader, self.parts.get("settings"), self.parts.get("reshard"))
        if t - self.bucket_poll_saved_at >= SAVE_EVERY:
            self.bucket_poll_saved, self.bucket_poll_saved_at = self.bucket_poll.to_dict(), t
        return part

    def count_bucket_ops(self, part: ReshardPart) -> ReshardPart:
        """The queue with its buckets' per-bucket op counts, read as the module reads them
        (mgr_module/scale/bucket_ops.py) from the simulated manager's answers."""
        buckets = self.watched.at(part.entries, part.collected_at)
        rgws = [ident for _, ident in self.sim.rgw_list]
        ops, unread = queued_bucket_ops.read_bucket_ops(self.sim.bucket_counter, self.sim.rgw_counter, rgws, buckets)
        return dataclasses.replace(part, bucket_ops=ops, bucket_ops_unread=unread)

    def restart(self, t: float, stopped: bool = True) -> None:
        """A new process at t: counters from zero, the signals' durable state restored, and the
        bucket poll's as the sidecar saved it: at its stop, or, when its host lost power
        (`stopped` False), at its last periodic save (none: a first start's empty poll)."""
        saved = self.state.durable()
        self.state = DerivationState(Thresholds())
        self.state.restore(saved)
        if stopped:
            self.bucket_poll_saved = self.bucket_poll.to_dict()
        kept = self.bucket_poll_saved
        self.bucket_poll = BucketPoll.from_dict(json.loads(json.dumps(kept))) if kept is not None else BucketPoll()
        self.bucket_poll_saved_at = t
        self.failures.clear()


def synth_fsid(name: str) -> str:
    return f"00000000-0000-4000-8000-{sum(map(ord, name)) % 10**12:012d}"


class SeriesText:
    """Each series' text in the OpenMetrics (`name{label="value",...}`, labels in sorted order, so
    the text is its identity) and its labels with `__name__`, rendered once per series: a month's
    replay writes the same few hundred series tens of thousands of times."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[str, dict[str, str]]] = {}

    def of(self, name: str, labels: dict[str, str]) -> tuple[str, dict[str, str]]:
        key = (name, tuple(sorted(labels.items())))
        found = self.known.get(key)
        if found is None:
            body = ",".join(f'{k}="{escape(v)}"' for k, v in key[1])
            found = self.known[key] = (f"{name}{{{body}}}", {"__name__": name, **dict(key[1])})
        return found


@dataclass
class Counts:
    series: set[str] = field(default_factory=set)
    samples: int = 0
    scrapes: int = 0
    stale_markers: int = 0
    # (cluster, start, end, what): the stalls the simulator made, an end of None past the span's
    incidents: list[tuple[str, float, float | None, str]] = field(default_factory=list)
    # (cluster, trace) -> (t, value) per scrape that had it: the timeline's signal rows
    traces: dict[tuple[str, str], list[tuple[float, float]]] = field(default_factory=dict)


def write_scrape(
    out: IO[str], t: float, samples: list[tuple[str, dict[str, str], float]], text: SeriesText
) -> dict[str, dict[str, str]]:
    """Writes one scrape's samples; returns its series (text -> labels with `__name__`)."""
    ts = f"{t:.3f}"
    scraped = {}
    lines = []
    for name, labels, value in samples:
        series, named = text.of(name, labels)
        scraped[series] = named
        lines.append(f"{series} {sample_value(value)} {ts}\n")
    out.write("".join(lines))
    return scraped


def simulate(scenario: Scenario, openmetrics: Path, stale: Path) -> Counts:
    """Writes the span's OpenMetrics and staleness markers; returns what was written."""
    counts = Counts()
    text = SeriesText()
    exporters = [Exporter(c, SimCluster(c, START, scenario.span), f"{c.name}-sidecar:9283") for c in scenario.clusters]
    steps = int(scenario.span // scenario.step)
    with openmetrics.open("w") as om, stale.open("w") as st:
        for n in range(steps + 1):
            t = START + n * scenario.step
            off = n * scenario.step
            for ex in exporters:
                if ex.gone:
                    continue
                target = {"job": JOB, "instance": ex.instance}
                if ex.events_at("leave_fleet", off, scenario.step):
                    ex.gone = True
                    counts.stale_markers += mark_stale(st, t, ex, leaving=True)
                    continue
                dark = bool(ex.sim.active("power_outage", t))
                if dark and not ex.dark:
                    counts.stale_markers += mark_stale(st, t, ex)
                if dark:  # the exporter's host has no power: every scrape fails
                    ex.sim.move_to(t)
                    write_scrape(om, t, [("up", target, 0.0)], text)
                    counts.samples += 1
                    counts.scrapes += 1
                    ex.dark = True
                    continue
                if ex.dark:  # back from the outage: a new process, its saved state restored
                    ex.dark = False
                    ex.restart(t, stopped=False)
                restarting = ex.events_at("exporter_restart", off, scenario.step)
                if restarting:
                    ex.restart(t)
                if restarting or ex.events_at("failed_scrape", off, scenario.step):
                    # The exporter keeps polling; this one scrape gets nothing.
                    ex.sim.move_to(t)
                    counts.stale_markers += mark_stale(st, t, ex)
                    write_scrape(om, t, [("up", target, 0.0)], text)
                    counts.samples += 1
                    counts.scrapes += 1
                    continue
                samples = ex.poll(t, scenario.pgs_interval)
                samples.append(("up", target, 1.0))
                now = write_scrape(om, t, samples, text)
                went = [labels for key, labels in ex.served.items() if key not in now]
                if went:
                    st.write(json.dumps({"t": t, "series": went}) + "\n")
                    counts.stale_markers += len(went)
                ex.served = now
                for name, value in traces.values(scenario.timeline, samples).items():
                    counts.traces.setdefault((ex.spec.name, name), []).append((t, value))
                counts.series.update(now)
                counts.samples += len(samples)
                counts.scrapes += 1
        om.write("# EOF\n")
    for ex in exporters:
        counts.incidents += [(ex.spec.name, *i) for i in ex.sim.incidents()]
    return counts


def mark_stale(st: IO[str], t: float, ex: Exporter, leaving: bool = False) -> int:
    """Every series of the target's last scrape goes stale at t; `up` too when the target leaves
    (else the failed scrape writes it)."""
    went = [labels for labels in ex.served.values() if leaving or labels["__name__"] != "up"]
    if went:
        st.write(json.dumps({"t": t, "series": went}) + "\n")
    ex.served = {k: v for k, v in ex.served.items() if v["__name__"] == "up"}
    return len(went)
