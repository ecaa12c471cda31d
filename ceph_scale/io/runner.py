"""How both producers run a source: one collection in flight, bounded by a timeout.

The sidecar and the ceph-mgr module collect differently (the `ceph` CLI or
librados against the manager's own maps) but must fail the same way, so the
rules and dashboards can trust `ceph_scale_source_*` from either: a source that
raises or hangs is recorded as failed with one log line per change of state,
its last good part is kept with a growing age until `stale_after`, and then its
signals disappear. Nothing here talks to Ceph; the collect callable does.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from ..core.failure_kind import failure_kind
from ..core.snapshot import SourceStatus


@dataclass(frozen=True)
class Schedule:
    interval: float
    timeout: float
    stale_after: float


def default_stale_after(interval: float) -> float:
    """Ten missed collections, and never under five minutes: a slow source is not a stale one."""
    return max(10.0 * interval, 300.0)


class SourceRunner:
    def __init__(self, name: str, collect: Callable[[float], Any], log: Any, log_prefix: str = "") -> None:
        """collect(timeout) returns the source's snapshot part or raises."""
        self.name = name
        self.collect = collect
        self.log = log
        self.log_prefix = log_prefix
        self.part: Any = None
        self.last_success_at: float | None = None
        self.success = False
        self.duration = 0.0
        self.error = ""
        self.failures = 0
        self.interval: float | None = None
        self._in_flight: threading.Thread | None = None
        self._in_flight_since = 0.0

    def status(self) -> SourceStatus:
        return SourceStatus(
            name=self.name,
            success=self.success,
            duration_seconds=self.duration,
            last_success_at=self.last_success_at,
            error=self.error,
            failures=self.failures,
            interval_seconds=self.interval,
        )

    def served_part(self, now: float, stale_after: float) -> Any:
        if self.part is None or self.last_success_at is None:
            return None
        if now - self.last_success_at > stale_after:
            return None
        return self.part

    def run_once(self, schedule: Schedule) -> None:
        """Collect once, waiting at most the timeout; a hung call is abandoned, never stacked."""
        self.interval = schedule.interval
        timeout = schedule.timeout
        if self._in_flight is not None and self._in_flight.is_alive():
            # Still the same hang: the same error (so no new log line), and the
            # duration is how long the stuck call has been running, not 0.
            self._failed(time.monotonic() - self._in_flight_since, self._timed_out(timeout))
            return
        result: list[tuple[bool, Any]] = []

        def work() -> None:
            try:
                result.append((True, self.collect(timeout)))
            except Exception as e:  # every failure of a source is reported, none escapes
                result.append((False, f"{type(e).__name__}: {e}"))

        started = time.monotonic()
        thread = threading.Thread(target=work, name=f"source-{self.name}", daemon=True)
        self._in_flight, self._in_flight_since = thread, started
        thread.start()
        # A collect callable honours its own deadline; the extra second only
        # catches one that does not (a C call that never returns).
        thread.join(timeout + 1.0)
        duration = time.monotonic() - started
        if not result:
            self._failed(duration, self._timed_out(timeout))
            return
        self._in_flight = None
        ok, value = result[0]
        if not ok:
            self._failed(duration, value)
            return
        if not self.success and self.failures:
            self.log.info("%ssource %s: ok again", self.log_prefix, self.name)
        self.part, self.success, self.duration, self.error = value, True, duration, ""
        self.last_success_at = time.time()

    def waiting_on(self) -> str:
        """What a hung collection is blocked in, where the producer knows it."""
        return ""

    def _timed_out(self, timeout: float) -> str:
        waiting_on = self.waiting_on()
        return f"timed out after {timeout:g}s" + (f" waiting on {waiting_on}" if waiting_on else "")

    def _failed(self, duration: float, error: str) -> None:
        self.failures += 1
        if self.success or failure_kind(error) != failure_kind(self.error):
            # One line per change of state (the failure's kind, not its ids), not one per cycle.
            self.log.warning("%ssource %s failed: %s", self.log_prefix, self.name, error)
        self.success, self.duration, self.error = False, duration, error
