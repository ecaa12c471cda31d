"""The test cluster's laggy-PG watchdog (cluster/watchdog.py) leaves alone the PGs of an OSD a test
holds frozen: they are laggy because of it, and marking their healthy primaries down would make a
second fault in the middle of the test's own (seen: osd.0 and osd.1 marked down 47 s into osd.2's
hang, tests/integration/test_plunge_cluster.py). The `pg ls laggy` answers and the mark-downs are
stand-ins here; the watchdog runs on every real test cluster."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from cluster import watchdog
from cluster.watchdog import LaggyWatchdog


class Watched(LaggyWatchdog):
    def __init__(self, tmp: Path) -> None:
        self.dir = tmp
        (tmp / "log").mkdir()
        self.frozen, self.pids = set(), {}
        self.daemon_lock = threading.RLock()
        self._laggy_since, self._healed_at, self.laggy_heals = {}, {}, []
        self.commands: list[tuple[str, ...]] = []

    def laggy_pgs(self) -> dict[str, int]:
        return {"2.1": 0, "2.5": 1}  # osd.2 is their replica: primaries 0 and 1 are healthy

    def ceph(self, *args: str, fmt_json: bool = True, timeout: float = 60, input_data: bytes | None = None):
        self.commands.append(args)


@pytest.fixture
def clock(monkeypatch):
    """The watchdog's clock only (its module's `time`), stepped by the test."""
    now = [1000.0]
    monkeypatch.setattr(watchdog, "time", SimpleNamespace(monotonic=lambda: now[0], time=time.time))
    return now


def test_no_heal_while_an_osd_is_frozen_and_those_still_stuck_are_healed_after_the_thaw(tmp_path, clock):
    w = Watched(tmp_path)
    w.frozen.add("osd.2")
    for _ in range(7):  # 60 s of rounds, past the 30 s a PG may stay laggy
        assert w.heal_stuck_laggy_pgs() == []
        clock[0] += 10
    assert w.commands == []
    w.frozen.clear()  # thawed, and the PGs still laggy: stuck for 70 s
    assert w.heal_stuck_laggy_pgs() == [0, 1]
    assert w.commands == [("osd", "down", "0", "1")]


def test_a_frozen_monitor_or_manager_does_not_stop_the_heal(tmp_path, clock):
    w = Watched(tmp_path)
    w.frozen.add("mgr.x")
    w.heal_stuck_laggy_pgs()
    clock[0] += 30
    assert w.heal_stuck_laggy_pgs() == [0, 1]
