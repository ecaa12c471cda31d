"""The test command's replays run in workers beside its other tests (replay/workers.py): each result
reaches the test that reads it, a failed replay is an error naming it, and a session that ends
before them, stopped or killed, leaves no worker, engine or temporary file behind."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from replay import workers

REPO = Path(__file__).resolve().parents[2]


def state(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command's name, or None for a process gone or a zombie
    (ended, not yet reaped: an orphan's is its new parent's to reap)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else fields


def group_members(pgid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = state(int(entry.name))
            if fields is not None and int(fields[2]) == pgid:
                found.append(int(entry.name))
    return found


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
            if str(path) in argv and state(int(entry.name)) is not None:
                found.append(int(entry.name))
    return found


def until(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_each_result_reaches_its_reader_and_a_failed_replay_names_itself(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    replays = workers.Replays([["no_such_scenario.yml", "reboot_without_noout.yml"]])
    try:
        result = replays.result("reboot_without_noout.yml")
        assert result.seconds["evaluations"] == 121
        assert [n.alertname for n in result.pages()] == ["CephScaleOsdsDownLargeDrop"]
        with pytest.raises(workers.ReplayFailed, match=r"^no_such_scenario\.yml: \w+Error: .*no_such") as failed:
            replays.result("no_such_scenario.yml")
        assert "\n" not in str(failed.value)
    finally:
        replays.stop()
    assert list(tmp_path.iterdir()) == []


def test_a_session_that_stops_before_its_replays_stops_both_workers_and_their_engines(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the workers' temporary files, forked
    replays = workers.Replays([["healthy_days.yml"], ["reboot_without_noout.yml", "resharding_rounds.yml"]])
    pids = [w.pid for _, w in replays.workers]
    try:
        assert until(lambda: [p for p in running_in(tmp_path) if p not in pids], 120), "no engine ran"
        assert all(group_members(pid) for pid in pids)  # each leads a group of its own
    finally:
        replays.stop()
    assert [pid for pid in pids if group_members(pid)] == []
    assert running_in(tmp_path) == []  # promtool, the rule engine, Alertmanager: stopped
    assert [w.exitcode for _, w in replays.workers] == [128 + signal.SIGTERM] * 2, replays.killed  # unwound
    assert list(tmp_path.iterdir()) == []  # the replays' series, blocks and results removed


def swallowing(ran_on: Path):
    """A replay whose SIGTERM comes while it is in a __del__, where Python ignores the Stopped it
    raises, and which then runs on (and says so in `ran_on`)."""

    class Finalized:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.5)

    def replay(_name):
        Finalized()
        ran_on.touch()
        while True:
            time.sleep(0.01)

    return replay


def one_worker(tmp_path: Path, monkeypatch, replay) -> tuple[workers.Replays, Path]:
    """One worker running `replay` (forked: it takes the module as patched here), and the
    directory its temporary files go to."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(workers, "replay_in_temp", replay)
    return workers.Replays([["one"]]), temp


def test_a_stop_swallowed_in_a_finalizer_still_ends_the_worker(tmp_path, monkeypatch):
    ran_on = tmp_path / "ran-on"
    monkeypatch.setattr(workers, "STOP_WAIT", 10.0)
    replays, temp = one_worker(tmp_path, monkeypatch, swallowing(ran_on))
    ((_, worker),) = replays.workers
    try:
        worker.join(20)
    finally:
        replays.stop()
    assert ran_on.exists()  # the stop was swallowed
    assert (worker.exitcode, replays.killed) == (128 + signal.SIGTERM, {})
    assert list(temp.iterdir()) == []


def leaking(pids: Path):
    """A replay that starts a process in a session of its own (as demo/monitoring.py starts an
    Alertmanager), which the worker's group signal misses, and holds no handle to stop it by."""

    def replay(_name):
        pids.write_text(str(subprocess.Popen(["sleep", "600"], start_new_session=True).pid))
        while True:
            time.sleep(0.01)

    return replay


def test_a_process_a_stopped_step_left_running_ends_with_its_worker(tmp_path, monkeypatch):
    pids = tmp_path / "pids"
    replays, _ = one_worker(tmp_path, monkeypatch, leaking(pids))
    ((_, worker),) = replays.workers
    try:
        assert until(lambda: pids.exists() and pids.read_text(), 60)
    finally:
        replays.stop()
    assert worker.exitcode == 128 + signal.SIGTERM
    assert state(int(pids.read_text())) is None


def deaf(_name):
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
    while True:
        time.sleep(0.01)


def blocks(pid: int, sig: signal.Signals) -> bool:
    found = re.search(r"SigBlk:\s*(\w+)", Path(f"/proc/{pid}/status").read_text())
    assert found, f"/proc/{pid}/status: no SigBlk"
    return bool(int(found[1], 16) >> (sig - 1) & 1)


def test_a_worker_that_does_not_unwind_is_killed_and_tells_where_it_was(tmp_path, monkeypatch):
    monkeypatch.setattr(workers, "STOP_WAIT", 1.0)
    replays, temp = one_worker(tmp_path, monkeypatch, deaf)
    ((_, worker),) = replays.workers
    try:
        assert until(lambda: blocks(worker.pid, signal.SIGTERM), 60)
    finally:
        replays.stop()
    assert worker.exitcode == -signal.SIGKILL
    assert list(replays.killed) == [worker.pid]
    assert 'in deaf\n  File "' + workers.__file__ + '"' in replays.killed[worker.pid]
    assert list(temp.iterdir()) == []


KILLED_SESSION = """
import sys, tempfile, time
tempfile.tempdir = sys.argv[1]
from replay import workers
replays = workers.Replays([["healthy_days.yml"], ["reboot_without_noout.yml", "resharding_rounds.yml"]])
print(*[w.pid for _, w in replays.workers], flush=True)
time.sleep(600)
"""


def test_a_session_killed_before_its_replays_leaves_no_worker_or_engine(tmp_path):
    """SIGKILL: the session's own cleanup never runs; its workers end with it (PR_SET_PDEATHSIG)."""
    session = subprocess.Popen(
        [sys.executable, "-c", KILLED_SESSION, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        assert select.select([session.stdout], [], [], 120)[0], "the session did not start its workers"
        workers = [int(pid) for pid in session.stdout.readline().split()]
        assert len(workers) == 2
        assert until(lambda: [p for p in running_in(tmp_path) if p not in [session.pid, *workers]], 120)
    finally:
        session.kill()
        session.wait()
    assert until(lambda: all(state(pid) is None for pid in workers), 60)
    assert until(lambda: running_in(tmp_path) == [], 60)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("replay-")] == []  # unwound
