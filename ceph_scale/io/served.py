"""What a scrape gets: the exposition of the last successful derivation, followed by the
derivation's own record, which is rendered at every attempt and so never freezes.

If derive or render keeps failing, the body stays as it was: its ages were computed when
it was made and stop growing, and every source still reads success 1. The record beside it
says when a derivation last succeeded and how often one failed, so that staleness is judged
from a timestamp (`time() - ceph_scale_derivation_last_success_timestamp_seconds`), not from
values frozen inside the body.
"""

from __future__ import annotations

import threading
from typing import Any

from ..core import exposition
from ..core.config import Thresholds
from ..core.derive import DerivationState, cluster_labels, derive
from ..core.families import Family, counter, gauge, with_constant_labels
from ..core.snapshot import Snapshot


class ServedExposition:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._body = b""
        self._labels: dict[str, str] = {}
        self.last_success: float | None = None
        self.failures = 0
        self._record = b""

    def succeeded(self, body: bytes, at: float, labels: dict[str, str]) -> None:
        with self._lock:
            self._body, self._labels, self.last_success = body, labels, at
            self._record = self._render_record()

    def failed(self) -> None:
        with self._lock:
            self.failures += 1
            self._record = self._render_record()

    def body(self) -> bytes:
        with self._lock:
            return self._body + self._record

    def scraped(self) -> bytes:
        """What a scrape gets: nothing before a derivation first succeeded (not ready yet)."""
        return self.body() if self.last_success is not None else b""

    def derive(
        self,
        snap: Snapshot,
        state: DerivationState,
        thresholds: Thresholds,
        *,
        producer: str,
        cluster: str | None,
        log: Any,
        log_prefix: str = "",
    ) -> list[Family]:
        """One derivation of `snap` by either producer, served if it renders; if it raises, the
        failure is counted and the previous body stays. A signal that begins or stops failing
        is one log line, not one a cycle."""
        try:
            families = derive(snap, state, thresholds, producer=producer, cluster=cluster)
            for failing, line in state.signal_error_changes():
                (log.error if failing else log.info)("%s%s", log_prefix, line)
            for line in state.take_notices():
                log.warning("%s%s", log_prefix, line)
            body = exposition.render(families)
        except Exception:
            self.failed()
            raise
        self.succeeded(body, snap.taken_at, cluster_labels(snap, cluster))
        return families

    def _render_record(self) -> bytes:
        return exposition.render(self.record_families())

    def record_families(self) -> list[Family]:
        families = [
            counter("derivation_failures", "Derivations (snapshot to exposition) that failed since start.").add(
                self.failures
            )
        ]
        if self.last_success is not None:
            families.append(
                gauge(
                    "derivation_last_success_timestamp_seconds",
                    "When a derivation last succeeded: the served signals are from then.",
                ).add(self.last_success)
            )
        return with_constant_labels(families, self._labels)
