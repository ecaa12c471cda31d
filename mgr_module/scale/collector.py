"""Background collection inside the manager: one loop per source, one derivation on change.

Every source is wrapped on its own: a failure (or a hang past its timeout) is recorded in
its SourceStatus with one log line per change of state, its last good part is kept (with a
growing age) until `stale_after`, and nothing escapes the loop. /metrics serves the bytes
rendered by the last derivation and never waits for Ceph.

Each source's schedule comes from the registry (core/registry.py): its interval from the
module option that sets it, its timeout from its own timeout option where it has one, else
the registry's default timeout, the sidecar's. The runner passes that timeout to the
collector, which cuts its reads at it where they take a deadline (sources.source_functions).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from ceph_scale.core import registry
from ceph_scale.core.derive import DerivationState
from ceph_scale.core.snapshot import Snapshot
from ceph_scale.io.loop import CollectionLoop
from ceph_scale.io.runner import Schedule, SourceRunner, default_stale_after
from ceph_scale.io.served import ServedExposition

from .options import ModuleSettings

__all__ = ["Collector", "Schedule", "SourceRunner"]

# Each source with the module options that schedule it: its interval, and its timeout where
# it has one of its own (else the registry's timeout); both from the registry.
SCHEDULES: dict[str, tuple[str, str | None]] = {
    s.name: (s.module_interval_option, s.module_timeout_option) for s in registry.SOURCES
}


def source_schedule(settings: ModuleSettings, name: str) -> Schedule:
    """The schedule of the registered source `name` under these settings."""
    interval_option, timeout_option = SCHEDULES[name]
    interval = float(max(settings.interval, getattr(settings, interval_option)))  # none faster than `interval`
    if timeout_option:
        timeout = float(getattr(settings, timeout_option))
    else:
        # As the sidecar's default: a collection ends before the next one is due.
        timeout = min(registry.SOURCE_BY_NAME[name].timeout, interval)
    stale = float(settings.stale_after) if settings.stale_after else default_stale_after(interval)
    return Schedule(interval=interval, timeout=timeout, stale_after=stale)


class Collector:
    """Source loops and the derivation; the module supplies schedules, thresholds and hooks."""

    def __init__(
        self,
        collectors: dict[str, Callable[[float], Any]],
        schedule: Callable[[str], Schedule],
        thresholds: Callable[[], Any],
        cluster_label: Callable[[], str | None],
        fsid: Callable[[], str],
        after_derive: Callable[[list, Snapshot], None],
        log: Any,
        enabled: Callable[[str], bool] = lambda name: True,
    ) -> None:
        """collectors: name -> collect(timeout), given the timeout of the source's schedule."""
        self.enabled = enabled
        self.runners = {name: SourceRunner(name, fn, log, log_prefix="scale: ") for name, fn in collectors.items()}
        self.schedule = schedule
        self.thresholds = thresholds
        self.cluster_label = cluster_label
        self.fsid = fsid
        self.after_derive = after_derive
        self.log = log
        self.state = DerivationState(thresholds())
        self.families: list = []
        self.snapshot: Snapshot | None = None
        self.served = ServedExposition()
        self.exposition: bytes = b""  # what a scrape gets: self.served's bytes after each attempt
        self._lock = threading.Lock()
        self.loop = CollectionLoop(
            self.runners, schedule, self.derive_now, log, enabled, thread_prefix="scale-", log_prefix="scale: "
        )

    # --- derivation -------------------------------------------------------------

    def take_snapshot(self) -> Snapshot:
        now = time.time()
        active = {name: r for name, r in self.runners.items() if self.enabled(name)}
        parts = {name: runner.served_part(now, self.schedule(name).stale_after) for name, runner in active.items()}
        statuses = tuple(r.status() for r in active.values())
        return Snapshot(taken_at=now, fsid=self.fsid() or "", sources=statuses, **parts)

    def derive_now(self) -> bytes:
        with self._lock:
            snap = self.take_snapshot()
            try:
                families = self.served.derive(
                    snap,
                    self.state,
                    self.thresholds(),
                    producer="mgr",
                    cluster=self.cluster_label(),
                    log=self.log,
                    log_prefix="scale: ",
                )
            except Exception:
                self.exposition = self.served.scraped()
                raise
            self.families, self.snapshot, self.exposition = families, snap, self.served.body()
            body = self.exposition
        try:
            self.after_derive(families, snap)
        except Exception:  # health checks or the state store must not stop the loop
            self.log.exception("scale: after-derivation hook failed")
        return body

    def collect_all_once(self) -> bytes:
        """Every source once, then one derivation (tests, and the first cycle)."""
        for name, runner in self.runners.items():
            if self.enabled(name):
                runner.run_once(self.schedule(name))
        return self.derive_now()

    # --- loops ------------------------------------------------------------------

    def start(self) -> None:
        self.loop.start()

    def stop(self, wait: float = 5.0) -> None:
        self.loop.stop(wait)

    def poke(self) -> None:
        """Derive again soon (a threshold changed)."""
        self.loop.poke()
