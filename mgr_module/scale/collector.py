"""Background collection inside the manager: one loop per source, one derivation on change.

Every source is wrapped on its own: a failure (or a hang past its timeout) is recorded in
its SourceStatus with one log line per change of state, its last good part is kept (with a
growing age) until `stale_after`, and nothing escapes the loop. /metrics serves the bytes
rendered by the last derivation and never waits for Ceph.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from .ceph_scale_core.derive import DerivationState
from .ceph_scale_core.loop import CollectionLoop
from .ceph_scale_core.runner import Schedule, SourceRunner
from .ceph_scale_core.served import ServedExposition
from .ceph_scale_core.snapshot import Snapshot

__all__ = ["Collector", "Schedule", "SourceRunner"]


def _without_timeout(fn: Callable[[], Any]) -> Callable[[float], Any]:
    return lambda timeout: fn()


class Collector:
    """Source loops and the derivation; the module supplies schedules, thresholds and hooks."""

    def __init__(
        self,
        collectors: dict[str, Callable[[], Any]],
        schedule: Callable[[str], Schedule],
        thresholds: Callable[[], Any],
        cluster_label: Callable[[], str | None],
        fsid: Callable[[], str],
        after_derive: Callable[[list, Snapshot], None],
        log: Any,
        enabled: Callable[[str], bool] = lambda name: True,
    ) -> None:
        self.enabled = enabled
        # The manager's calls take no deadline of their own; the runner bounds them.
        self.runners = {
            name: SourceRunner(name, _without_timeout(fn), log, log_prefix="scale: ") for name, fn in collectors.items()
        }
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
