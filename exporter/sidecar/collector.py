"""Background loops: each source on its own interval and deadline, one cached exposition.

A scrape never waits for Ceph: it is served from the bytes rendered after
the last change. A source that fails or hangs keeps its last good part (its
age grows) until `stale_after`, then its signals disappear; it is never
turned into zeros, and the other sources go on.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState
from ceph_scale.core.failure_kind import failure_kind
from ceph_scale.core.saved_rows import UNREADABLE
from ceph_scale.core.snapshot import Snapshot
from ceph_scale.io.loop import CollectionLoop
from ceph_scale.io.runner import Schedule, SourceRunner, default_stale_after
from ceph_scale.io.served import ServedExposition

from .sources import Deadline, Source

log = logging.getLogger(__name__)


SourceSchedule = Schedule  # the sidecar's name for it


class SidecarRunner(SourceRunner):
    """The shared runner, with the source object and its fixed schedule."""

    def __init__(self, source: Source, schedule: SourceSchedule) -> None:
        super().__init__(source.name, self._collect, log)
        self.source = source
        self.schedule = schedule
        self._deadline: Deadline | None = None

    def _collect(self, timeout: float):
        self._deadline = Deadline(timeout)
        return self.source.collect(self._deadline)

    def waiting_on(self) -> str:
        return self._deadline.waiting_on if self._deadline else ""


class Collector:
    def __init__(
        self,
        runners_spec: list[tuple[Source, SourceSchedule]],
        thresholds: Thresholds,
        *,
        cluster_label: str | None = None,
        state_file: str | None = None,
        fsid: str = "",
        save_state: bool = True,
    ) -> None:
        self.thresholds = thresholds
        self.cluster_label = cluster_label
        self.state_file = state_file
        self.save_state = save_state  # False: a --once run beside a serving exporter reads its file only
        self.fsid = fsid
        self.state = DerivationState(thresholds)
        self.runners = [SidecarRunner(src, sched) for src, sched in runners_spec]
        by_name = {r.name: r for r in self.runners}
        self.loop = CollectionLoop(by_name, lambda name: by_name[name].schedule, self.derive_now, log)
        self._derive_lock = threading.Lock()
        self.served = ServedExposition()
        self.exposition: bytes = b""  # what a scrape gets: self.served's bytes after each attempt
        self.families: list = []
        self._saved_state: str | None = None
        self._save_error = ""  # the last failure to write the state file, while it lasts
        self._load_state()

    def latest_part(self, name: str):
        """A source's last good part, however old (None before its first success)."""
        for r in self.runners:
            if r.name == name:
                return r.part
        return None

    def cluster_fsid(self) -> str | None:
        """ceph.conf's fsid, else the OSD map's once read, as DerivationState.own compares them;
        "" until then, None where neither will ever say (no fsid in ceph.conf, osd_map off)."""
        if self.fsid:
            return self.fsid.strip().lower()
        if not any(r.name == "osd_map" for r in self.runners):
            return None
        osd_map = self.latest_part("osd_map")
        return (osd_map.fsid if osd_map is not None else "").strip().lower()

    # --- durable state ---------------------------------------------------------

    def _load_state(self) -> None:
        if not self.state_file or not os.path.exists(self.state_file):
            return
        try:
            with open(self.state_file, encoding="utf-8") as f:
                problems = self.state.restore(json.load(f))
            for p in problems:
                log.warning("state file %s: %s", self.state_file, p)
            log.info("restored state from %s", self.state_file)
        except (OSError, *UNREADABLE) as e:
            # A broken state file must not stop monitoring; the reshard
            # counter then starts from zero, which rate() handles as a reset.
            log.warning("ignoring unreadable state file %s: %s: %s", self.state_file, type(e).__name__, e)

    def _save_state(self) -> None:
        if not self.state_file or not self.save_state:
            return
        data = json.dumps(self.state.durable(), sort_keys=True, separators=(",", ":"))
        if data == self._saved_state:
            return
        tmp = f"{self.state_file}.tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.state_file)
            self._saved_state = data
        except OSError as e:
            # Tried at every derivation: said once per kind of failure, and once when it works again.
            error = f"{type(e).__name__}: {e}"
            if failure_kind(error) != failure_kind(self._save_error):
                log.error("cannot write state file %s: %s", self.state_file, e)
            self._save_error = error
            return
        if self._save_error:
            log.info("state file %s written again", self.state_file)
            self._save_error = ""

    # --- derivation ------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        now = time.time()
        parts = {r.source.field: r.served_part(now, r.schedule.stale_after) for r in self.runners}
        fsid = self.fsid
        return Snapshot(taken_at=now, fsid=fsid, sources=tuple(r.status() for r in self.runners), **parts)

    def derive_now(self) -> bytes:
        with self._derive_lock:
            snap = self.snapshot()
            try:
                families = self.served.derive(
                    snap, self.state, self.thresholds, producer="sidecar", cluster=self.cluster_label, log=log
                )
            except Exception:
                self.exposition = self.served.scraped()
                raise
            self.families, self.exposition = families, self.served.body()
            self._save_state()
            return self.exposition

    # --- loops -----------------------------------------------------------------

    def collect_all_once(self) -> bytes:
        """Every source once, in parallel, then one derivation (for --once and tests)."""
        threads = [threading.Thread(target=r.run_once, args=(r.schedule,)) for r in self.runners]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return self.derive_now()

    def start(self) -> None:
        self.loop.start()

    def stop(self) -> None:
        self.loop.stop()
        for r in self.runners:
            r.source.close()


def schedule_for(source: Source, overrides: dict | None) -> SourceSchedule:
    o = overrides or {}
    interval = float(o.get("interval", source.default_interval))
    timeout = float(o.get("timeout", min(source.default_timeout, interval)))
    stale_after = float(o.get("stale_after", default_stale_after(interval)))
    return SourceSchedule(interval=interval, timeout=timeout, stale_after=stale_after)


__all__ = ["Collector", "SourceRunner", "SourceSchedule", "SidecarRunner", "schedule_for"]
