"""The single place where signals are computed: snapshot in, families out.

Both producers (the sidecar and the ceph-mgr module) call `derive` with
their snapshot and a `DerivationState` they keep between calls; the state
holds what needs more than one snapshot (rates, fitted trends, the bucket
table for reshard events) and its durable part can be saved and restored.
"""

from __future__ import annotations

import traceback
from dataclasses import replace
from types import MappingProxyType
from typing import Any, TypeVar

from .config import Thresholds
from .failure_kind import failure_kind
from .families import Family, counter, gauge, with_constant_labels
from .registry import OWNERS, SIGNALS
from .saved_rows import UNREADABLE, as_fsid, read_value, reason, version_of
from .signals.results import SignalResults
from .signals.signal_input import SignalInput
from .snapshot import Snapshot

VERSION = "0.1.0"

Kept = TypeVar("Kept")


class DerivationState:
    """Everything the signals remember between snapshots: one state per signal that keeps
    one (registry.SIGNALS), reached by its class (`state.of(ReshardState)`)."""

    def __init__(self, th: Thresholds) -> None:
        self.thresholds = th
        self.signals: dict[str, Any] = {s.name: s.state(th) for s in SIGNALS if s.state is not None}
        # A signal whose derivation raised: how often, and what it raised while it still does.
        self.signal_failures: dict[str, int] = {s.name: 0 for s in SIGNALS}
        self.signal_errors: dict[str, str] = {}
        # The signals' judgements from the last derivation (signals/results.py).
        self.results = SignalResults()
        self._reported_errors: dict[str, str] = {}
        self.fsid = ""  # the cluster whose history this is ("": not seen yet)
        self.notices: list[str] = []  # what the producers log once (taken by take_notices)

    def own(self, fsid: str) -> None:
        """The history of another cluster is not this one's: a saved state restored from a file
        another cluster's exporter wrote (a path shared by two exporters, a file copied along with
        a configuration) is dropped when the cluster's fsid is first seen, before it forecasts or
        counts anything, and said once."""
        fsid = fsid.strip().lower()  # as ceph.conf's is read (a UUID, whatever its case)
        if not fsid or fsid == self.fsid:
            return
        if self.fsid:
            self.signals = {s.name: s.state(self.thresholds) for s in SIGNALS if s.state is not None}
            self.notices.append(
                f"the saved state is cluster {self.fsid}'s, not this cluster's ({fsid}): its history is dropped, "
                "and counters start from 0"
            )
        self.fsid = fsid

    def take_notices(self) -> list[str]:
        notices, self.notices = self.notices, []
        return notices

    def of(self, kind: type[Kept]) -> Kept:
        """The state of the signal whose registry row keeps a `kind`, typed as such."""
        found = self.signals[OWNERS[kind]]
        if not isinstance(found, kind):
            raise TypeError(f"signal {OWNERS[kind]} keeps a {type(found).__name__}, not a {kind.__name__}")
        return found

    def retune(self, th: Thresholds) -> None:
        """New thresholds: what each signal keeps across them (its `retuned`), else a fresh state."""
        if th == self.thresholds:
            return
        self.thresholds = th
        for name, state in self.signals.items():
            retuned = getattr(state, "retuned", None)
            self.signals[name] = retuned(th) if retuned is not None else type(state)(th)

    def signal_failed(self, name: str, error: Exception) -> None:
        self.signal_failures[name] += 1
        where = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
        at = f" at {where.filename.rsplit('/', 1)[-1]}:{where.lineno}" if where else ""
        self.signal_errors[name] = f"{type(error).__name__}: {error}{at}"

    def signal_error_changes(self) -> list[tuple[bool, str]]:
        """(failing, line) per signal that began to fail, failed in another way (kind), or recovered
        since the last call: what the producers log, so that a failing signal is one line, not one a
        cycle, even where its message names what varies from one derivation to the next."""
        lines = []
        for name in sorted(set(self.signal_errors) | set(self._reported_errors)):
            now, before = self.signal_errors.get(name), self._reported_errors.get(name)
            if failure_kind(now or "") != failure_kind(before or ""):
                lines.append(
                    (True, f"signal {name}: derivation failed: {now}")
                    if now
                    else (False, f"signal {name}: derived again")
                )
        self._reported_errors = dict(self.signal_errors)
        return lines

    def durable(self) -> dict[str, Any]:
        """What must survive a restart or a manager failover."""
        out: dict[str, Any] = {"version": 1, "fsid": self.fsid} if self.fsid else {"version": 1}
        for s in SIGNALS:
            if s.durable:
                out[s.name] = self.signals[s.name].to_dict()
        return out

    def restore(self, data: dict[str, Any]) -> list[str]:
        """The saved state back, signal by signal; one line per thing that did not read, which
        costs itself alone (core/saved_rows.py): a signal whose state does not read starts afresh."""
        if (version := version_of(data)) != 1:
            raise ValueError(f"unsupported state version {version!r}")
        problems: list[str] = []
        self.fsid = read_value(data, "fsid", as_fsid, "", problems)
        for s in SIGNALS:
            if not s.durable:
                continue
            saved = data.get(s.name, {})
            try:
                if not isinstance(saved, dict):
                    raise TypeError(f"a table was expected, not {type(saved).__name__}")
                self.signals[s.name] = s.state.from_dict(saved, problems)  # type: ignore[union-attr]
            except UNREADABLE as e:
                problems.append(f"signal {s.name}: saved state unreadable ({reason(e)}); it starts afresh")
        return problems


def shard_limit_and_origin(snap: Snapshot, th: Thresholds) -> tuple[int, str]:
    """The per-shard object limit the buckets are judged by, and where it came from: the
    operator's explicit threshold, else the smallest the running RGWs hold (the first to
    reshard a bucket), else the config database's, else the default threshold."""
    if "rgw_max_objs_per_shard" in th.explicit:
        return th.rgw_max_objs_per_shard, "threshold"
    s = snap.settings
    if s is not None:
        running = [o.value for o in s.rgw_running if o.option == "rgw_max_objs_per_shard"]
        if running:
            return min(running), "rgw"
        if s.rgw_max_objs_per_shard:
            return s.rgw_max_objs_per_shard, "config_db"
    return th.rgw_max_objs_per_shard, "default"


def meta_families(snap: Snapshot, th: Thresholds, producer: str, shard_limit: tuple[int, str]) -> list[Family]:
    success = gauge("source_success", "1 if the last collection of this source succeeded.", "source")
    duration = gauge("source_duration_seconds", "Duration of the last collection of this source.", "source")
    last = gauge("source_last_success_timestamp_seconds", "When this source last succeeded.", "source")
    failures = counter("source_failures", "Failed collections of this source since start.", "source")
    interval = gauge("source_interval_seconds", "How often this source is collected.", "source")
    for s in sorted(snap.sources, key=lambda s: s.name):
        success.add(1 if s.success else 0, s.name)
        if s.interval_seconds is not None:
            interval.add(s.interval_seconds, s.name)
        duration.add(s.duration_seconds, s.name)
        failures.add(s.failures, s.name)
        if s.last_success_at is not None:
            last.add(s.last_success_at, s.name)
    config = gauge("config", "Threshold or baseline in force.", "option")
    values = th.numbers()
    values["rgw_max_objs_per_shard"], origin = shard_limit
    for name, value in sorted(values.items()):
        config.add(value, name)
    config_origin = gauge(
        "config_origin", "Where a value in force came from (threshold, rgw, config_db, default).", "option", "origin"
    ).add(1, "rgw_max_objs_per_shard", origin)
    build = gauge("build_info", "Version and producer of ceph-scale-signals.", "version", "producer")
    build.add(1, VERSION, producer)
    return [success, duration, last, failures, interval, config, config_origin, build]


def derive(
    snap: Snapshot,
    state: DerivationState,
    th: Thresholds | None = None,
    *,
    producer: str = "sidecar",
    cluster: str | None = None,
) -> list[Family]:
    th = th or state.thresholds
    state.retune(th)
    state.own(snap.fsid or (snap.osd_map.fsid if snap.osd_map else ""))
    families: list[Family] = []
    shard_limit = shard_limit_and_origin(snap, th)
    families += meta_families(snap, th, producer, shard_limit)
    given = SignalInput(snap, th, shard_limit[0], MappingProxyType(state.signals), SignalResults(), owners=OWNERS)
    for signal in SIGNALS:
        try:
            reads = replace(given, reader=signal.name, needs=frozenset(signal.needs))
            produced = signal.derive(reads, state.signals.get(signal.name))
        except Exception as e:  # one signal's fault leaves the others served; its own series go
            state.signal_failed(signal.name, e)
            given.results.clear(signal.result)
            continue
        state.signal_errors.pop(signal.name, None)
        families += produced
        if signal.families_after is not None:
            families += signal.families_after(snap)
    families += signal_families(state, snap)
    state.results = given.results
    # A family with no samples says nothing; leaving it out keeps `promtool
    # check metrics` quiet and the exposition small.
    families = [f for f in families if f.samples]
    return with_constant_labels(families, cluster_labels(snap, cluster))


def signal_families(state: DerivationState, snap: Snapshot) -> list[Family]:
    """Whether each signal derived this time: a failing one's series are absent, never zero. A
    signal none of whose sources has data derived nothing, so it reads neither 1 nor 0: its
    success is absent, like every series of a source that failed."""
    success = gauge("signal_success", "1 if this signal's derivation succeeded this time.", "signal")
    failures = counter("signal_failures", "Derivations of this signal that raised since start.", "signal")
    for s in SIGNALS:
        if s.name in state.signal_errors:
            success.add(0, s.name)
        elif not s.inputs or any(getattr(snap, part) is not None for part in s.inputs):
            success.add(1, s.name)
        failures.add(state.signal_failures[s.name], s.name)
    return [success, failures]


def cluster_labels(snap: Snapshot, cluster: str | None) -> dict[str, str]:
    """The `cluster` label every series carries: the operator's, else the cluster's fsid."""
    label = cluster if cluster is not None else (snap.fsid or (snap.osd_map.fsid if snap.osd_map else ""))
    return {"cluster": label} if label else {}
