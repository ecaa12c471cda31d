"""The test command's replays run beside its other tests (background.py): a session that ends
before they do leaves no worker, engine or temporary file behind."""

from __future__ import annotations

import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from replay.docs import own_session, replay_in_temp
from tests.replay import background


def group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            if int(fields[2]) == pgid:
                members.append(int(entry.name))
    return members


def running_in(path: Path) -> list[int]:
    """The processes whose command line names a file under `path` (an engine's input, an
    Alertmanager's configuration)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if str(path) in argv:
                found.append(int(entry.name))
    return found


def test_a_session_that_ends_before_its_replays_stops_their_workers_engines_and_files(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the worker's temporary files, forked
    pool = ProcessPoolExecutor(max_workers=1, initializer=own_session)
    names = ("reboot_without_noout.yml", "healthy_days.yml")
    futures = {name: pool.submit(replay_in_temp, name) for name in names}
    (worker,) = list(pool._processes)
    deadline = time.monotonic() + 120
    while not [p for p in running_in(tmp_path) if p != worker] and time.monotonic() < deadline:
        time.sleep(0.05)
    engines = [p for p in running_in(tmp_path) if p != worker]
    assert engines, "no engine ran within 2 minutes"
    assert not futures["healthy_days.yml"].done()

    background.stop_pool(pool, futures)

    assert group_members(worker) == []
    assert running_in(tmp_path) == []  # promtool, the rule engine or Alertmanager: stopped
    assert not os.path.exists(f"/proc/{worker}")
    assert list(tmp_path.iterdir()) == []  # the replay's series, blocks and configuration removed
    assert futures["healthy_days.yml"].cancelled() or futures["healthy_days.yml"].exception()
