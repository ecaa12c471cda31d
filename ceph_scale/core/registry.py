"""Every source and every signal, declared once.

The sidecar's collectors, the module's schedule, the derivation, the benchmark, the docs
checks, the rules validator, the module's health checks and `ceph scale status` read these
tables; none keeps a list of its own. A new source is a row here (with its parser) plus its
collectors (sidecar and module); a new signal is a row here plus its folder under `signals/`
(docs/architecture.md). The signals are derived in the order their `needs` allow
(signals/order.py): a row's place below only breaks ties.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Protocol

from . import inputs
from .config import Thresholds
from .families import Family
from .signals.bucket_watch import derive as bucket_watch
from .signals.bucket_watch.result import BucketPollResult
from .signals.degraded import derive as degraded
from .signals.degraded import status as degraded_status
from .signals.degraded.result import DegradedResult
from .signals.fill import check as fill_check
from .signals.fill import derive as fill
from .signals.fill import status as fill_status
from .signals.fill.result import FillResult
from .signals.health import derive as health
from .signals.judging import HealthCheck, StatusSection
from .signals.latency import derive as latency
from .signals.load import check as load_check
from .signals.load import derive as load
from .signals.load import status as load_status
from .signals.load.result import LoadResult
from .signals.order import derivation_order
from .signals.plunge import derive as plunge
from .signals.plunge import status as plunge_status
from .signals.plunge.result import PlungeResult
from .signals.reshard import check as reshard_check
from .signals.reshard import derive as reshard
from .signals.reshard import status as reshard_status
from .signals.reshard.result import ReshardResult
from .signals.reshard.running_options import rgw_running_families
from .signals.runway import derive as runway
from .signals.scrub import check as scrub_check
from .signals.scrub import derive as scrub
from .signals.scrub import status as scrub_status
from .signals.scrub.result import ScrubResult
from .signals.signal_input import SignalInput
from .signals.spillover import check as spillover_check
from .signals.spillover import derive as spillover
from .signals.spillover import status as spillover_status
from .signals.spillover.result import SpilloverResult
from .signals.tenants import check as tenants_check
from .signals.tenants import derive as tenants
from .signals.tenants import status as tenants_status
from .signals.tenants.result import UsageSummary
from .snapshot import Snapshot


@dataclass(frozen=True)
class SourceSpec:
    """One snapshot part: how both producers schedule its collection, and its parser."""

    name: str  # also the Snapshot field it fills and the `source` label of ceph_scale_source_*
    doc: str
    interval: float  # the sidecar's default, seconds
    timeout: float  # both producers' default, seconds (never more than the interval)
    module_interval_option: str  # the module option that sets its interval
    # parser(*decoded inputs, collected_at) -> its part; the inputs are named by the `ceph`
    # command (prefix) or the RGW read that returns them, as the CLI prints them in JSON. A
    # collector may reach the same part another way (the sidecar's chunked pg dump, the
    # bucket poll's reads a bucket at a time, the manager's own maps).
    parser: Callable[..., Any]
    inputs: tuple[str, ...]
    module_timeout_option: str | None = None  # its own timeout option; else the timeout above
    rgw: bool = False  # read from RGW or its pools: off where the module's rgw_source is off

    def parse(self, decoded: Callable[[str], Any], collected_at: float) -> Any:
        """The part from `decoded(input)` of each of its inputs."""
        return self.parser(*(decoded(name) for name in self.inputs), collected_at)


SOURCES: tuple[SourceSpec, ...] = (
    SourceSpec(
        "osd_map",
        "fill per OSD, state, device classes, CRUSH roots, DB sizes",
        30.0,
        10.0,
        "interval",
        inputs.osd_map_part,
        ("osd df", "osd dump", "osd metadata"),
    ),
    SourceSpec(
        "capacity",
        "cluster and pool fill, pool layouts",
        30.0,
        10.0,
        "interval",
        inputs.capacity_part,
        ("df", "osd dump"),
    ),
    # Its input is the counters by daemon ("osd.3" -> {path: value}): `scale counters`, or
    # the mgr prometheus module's text read by inputs.counters_from_prometheus_text.
    SourceSpec(
        "perf",
        "per-daemon perf counters: BlueFS, OSD and RGW ops",
        15.0,
        10.0,
        "interval",
        inputs.perf_part,
        ("perf counters",),
    ),
    SourceSpec(
        "pgs",
        "scrub stamps and PG states; the costliest read",
        60.0,
        30.0,
        "pgs_interval",
        inputs.pg_part,
        ("pg dump",),
    ),
    # The pgs source's interval: overdue counts follow a changed scrub interval at once.
    # Its input: each option's `config get` answer, by option name.
    SourceSpec(
        "settings",
        "the Ceph options the signals depend on",
        60.0,
        10.0,
        "settings_interval",
        inputs.settings_part,
        ("config get",),
    ),
    SourceSpec("health", "Ceph's own health checks", 15.0, 10.0, "interval", inputs.health_part, ("health",)),
    SourceSpec(
        "buckets",
        "bucket listings, and each bucket's stats and index generation when due, within a read budget",
        120.0,
        60.0,
        "rgw_interval",
        inputs.buckets_part,
        ("bucket stats",),
        "rgw_timeout",
        rgw=True,
    ),
    SourceSpec(
        "reshard",
        "RGW's reshard queue",
        60.0,
        20.0,
        "rgw_interval",
        inputs.reshard_part,
        ("reshard list",),
        "rgw_timeout",
        rgw=True,
    ),
)
SOURCE_NAMES: tuple[str, ...] = tuple(s.name for s in SOURCES)
SOURCE_BY_NAME: dict[str, SourceSpec] = {s.name: s for s in SOURCES}


class SignalState(Protocol):
    """What a signal remembers between snapshots. Optional hooks, found by name:
    `retuned(th)` says what survives new thresholds (default: nothing, a fresh state);
    `to_dict()` and a `from_dict(data, problems)` class method make it durable (saved across
    restarts and manager failovers): what does not read costs itself and adds a line to
    `problems` (core/saved_rows.py)."""

    def __init__(self, th: Thresholds) -> None: ...


@dataclass(frozen=True)
class SignalSpec:
    """One study signal: `module.derive(given: SignalInput, state) -> list[Family]`, citing
    its study number, the class of its state if it keeps one, what it reads of the other
    signals, and how its result is judged (its health checks and its status section)."""

    name: str  # also the `signal` label of its alerts, where it has alerts
    module: ModuleType
    state: type[SignalState] | None = None
    alerts: bool = True
    # The team its warnings go to (one of TEAMS): the routing sends `signal=<name>` to the
    # receiver ceph-scale-<team> (rules/alertmanager/alertmanager.yml is assembled from it).
    team: str = ""
    # The snapshot parts (SourceSpec names) it derives from: while none of them is served (never
    # collected yet, or stale), it has nothing to derive and ceph_scale_signal_success is absent.
    # None declared: it derives from the thresholds alone, always.
    inputs: tuple[str, ...] = ()
    # The signals whose state it reads (SignalInput.state refuses any other): derived before it.
    needs: tuple[str, ...] = ()
    # The class of the typed judgement it leaves (`<name>/result.py`, signals/results.py), which
    # its health checks and status section read; None for a signal that judges nothing.
    result: type | None = None
    # Its SCALE_* health checks, on its result (`<name>/check.py`), and its section of
    # `ceph scale status` (`<name>/status.py`).
    checks: tuple[HealthCheck, ...] = ()
    status: StatusSection | None = None
    # Families of no signal that explain its own, listed right after them in the exposition.
    families_after: Callable[[Snapshot], list[Family]] | None = None

    @property
    def durable(self) -> bool:
        return self.state is not None and hasattr(self.state, "from_dict")

    def derive(self, given: SignalInput, state: Any) -> list[Family]:
        families: list[Family] = self.module.derive(given, state)
        return families


SIGNALS: tuple[SignalSpec, ...] = derivation_order(
    (
        SignalSpec(
            "spillover",
            spillover,
            spillover.SpilloverState,
            team="storage",
            inputs=("perf",),
            result=SpilloverResult,
            checks=spillover_check.CHECKS,
            status=spillover_status.SECTION,
        ),
        SignalSpec(
            "fill",
            fill,
            fill.FillState,
            team="storage",
            inputs=("capacity", "osd_map"),
            result=FillResult,
            checks=fill_check.CHECKS,
            status=fill_status.SECTION,
        ),
        # The running RGWs' options explain the shard limit it judges buckets by.
        SignalSpec(
            "reshard",
            reshard,
            reshard.ReshardState,
            team="rgw",
            inputs=("buckets", "reshard"),
            result=ReshardResult,
            checks=reshard_check.CHECKS,
            status=reshard_status.SECTION,
            families_after=rgw_running_families,
        ),
        SignalSpec("bucket_watch", bucket_watch, alerts=False, inputs=("buckets",), result=BucketPollResult),
        SignalSpec(
            "tenants",
            tenants,
            tenants.TenantsState,
            team="rgw",
            inputs=("buckets",),
            result=UsageSummary,
            checks=tenants_check.CHECKS,
            status=tenants_status.SECTION,
        ),
        SignalSpec(
            "scrub",
            scrub,
            scrub.ScrubState,
            team="storage",
            inputs=("pgs",),
            result=ScrubResult,
            checks=scrub_check.CHECKS,
            status=scrub_status.SECTION,
        ),
        SignalSpec(
            "load",
            load,
            load.LoadState,
            team="rgw",
            inputs=("perf",),
            result=LoadResult,
            checks=load_check.CHECKS,
            status=load_status.SECTION,
        ),
        SignalSpec("latency", latency, latency.LatencyState, team="rgw", inputs=("perf",)),
        SignalSpec(
            "degraded",
            degraded,
            team="storage",
            inputs=("osd_map",),
            result=DegradedResult,
            status=degraded_status.SECTION,
        ),
        # It attributes a plunge to the reshards and scrubs those signals saw in this snapshot.
        SignalSpec(
            "plunge",
            plunge,
            plunge.PlungeState,
            team="rgw",
            inputs=("perf",),
            needs=("reshard", "scrub"),
            result=PlungeResult,
            status=plunge_status.SECTION,
        ),
        SignalSpec("health", health, alerts=False, inputs=("health",)),
        # The growth those signals fitted in this very derivation: S3 rates, DB use, scrub
        # durations, each bucket's objects.
        SignalSpec(
            "runway",
            runway,
            runway.RunwayState,
            team="storage",
            inputs=("capacity", "osd_map", "perf", "pgs", "buckets"),
            needs=("load", "spillover", "scrub", "reshard"),
        ),
    )
)
# Which signal keeps a state or leaves a result of each class: what SignalInput.state and
# SignalInput.result hold to the reader's needs, and SignalInput.judged to the reader's own.
OWNERS: dict[type, str] = {kind: s.name for s in SIGNALS for kind in (s.state, s.result) if kind is not None}
# The `signal` label values an alert may carry: the signals with alerts, and the exporter's own.
ALERT_SIGNALS: tuple[str, ...] = tuple(s.name for s in SIGNALS if s.alerts) + ("exporter",)
# Who receives each signal's warnings: its row's team, and the exporter's own to the people who
# run the monitoring.
TEAMS: tuple[str, ...] = ("storage", "rgw", "monitoring")
ALERT_TEAMS: dict[str, str] = {s.name: s.team for s in SIGNALS if s.alerts} | {"exporter": "monitoring"}
