"""Replays in worker processes, one list of scenarios a worker, each replayed in turn and its
Result handed back through a file: the test command's replays beside its other tests
(tests/replay/background.py) and `python -m replay.docs`.

Each worker leads a process group of its own, which the engines it runs (promtool, the rule
engine) join, and ends with the process that started it: stopped, or when that process is gone
(killed, its signal handlers never run), a SIGTERM that unwinds the step it is in, so that its
engines, its Alertmanager and its temporary files are cleaned up as that step's own code does
(replay/stopping.py).
"""

from __future__ import annotations

import ctypes
import faulthandler
import multiprocessing
import os
import pickle
import shutil
import signal
import sys
import tempfile
import time
from multiprocessing.process import BaseProcess
from pathlib import Path

from replay import stopping
from replay.run import Result, replay

SCENARIOS = Path(__file__).resolve().parent / "scenarios"

STOP_WAIT = 30.0  # seconds a stopped worker has to unwind (an Alertmanager's stop: up to 15)
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends
STACK_SIGNAL = signal.SIGUSR1  # a worker that did not unwind writes where it is before it is killed


class ReplayFailed(RuntimeError):
    pass


def work(names: list[str], out: str, parent: int) -> None:
    """A worker: each replay in turn, its Result pickled to `out` (or its error written there).
    Its temporary files go in a directory of its own, removed whatever the step it stops in."""
    own = tempfile.mkdtemp(prefix="replay-worker-", dir=out)  # removed with `out` if it is killed
    tempfile.tempdir = own
    stack = (Path(out) / f"{os.getpid()}.stack").open("w")
    try:
        faulthandler.register(STACK_SIGNAL, file=stack, all_threads=True)
        sys.unraisablehook = stopping.unraisable
        signal.signal(signal.SIGTERM, stopping.stopped)
        os.setsid()
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
        if os.getppid() != parent:  # the session ended before the line above
            return
        for name in names:
            try:
                written(Path(out) / f"{name}.pickle", pickle.dumps(replay_in_temp(name)))
            except Exception as e:  # noqa: BLE001 (the session reports it with the scenario's tests)
                if stopping.STOPPING:  # an error of the unwinding itself: the worker stops all the same
                    raise stopping.Stopped(stopping.STOPPING[0]) from None
                written(Path(out) / f"{name}.error", f"{type(e).__name__}: {e}".encode())
    except stopping.Stopped:
        pass  # raised only once a stop was received (STOPPING)
    finally:
        stopping.ended()
        shutil.rmtree(own, ignore_errors=True)
        faulthandler.unregister(STACK_SIGNAL)
        stack.close()
    # Stopped, even by a stop that came as the last replay ended: the process ends here, not in
    # multiprocessing's own exit.
    if stopping.STOPPING:
        os._exit(128 + stopping.STOPPING[0])


def replay_in_temp(name: str) -> Result:
    with tempfile.TemporaryDirectory(prefix="replay-") as d:
        return replay(SCENARIOS / name, Path(d))


def written(path: Path, data: bytes) -> None:
    """The file whole or not at all, for a reader that waits for it to exist."""
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    part.rename(path)


class Replays:
    """Replays running in worker processes, one list of scenarios a worker, each in turn."""

    def __init__(self, lanes: list[list[str]]) -> None:
        self.out = Path(tempfile.mkdtemp(prefix="replays-"))
        fork = multiprocessing.get_context("fork")
        self.workers = [
            (names, fork.Process(target=work, args=(names, str(self.out), os.getpid()), daemon=True)) for names in lanes
        ]
        for _, worker in self.workers:
            worker.start()
        self.done: dict[str, Result] = {}
        self.killed: dict[int, str] = {}  # a worker that did not unwind: where it was

    def result(self, name: str) -> Result:
        """The scenario's result, once its worker has written it."""
        if name in self.done:
            return self.done[name]
        (worker,) = [w for names, w in self.workers if name in names]
        pickled, error = self.out / f"{name}.pickle", self.out / f"{name}.error"
        while True:
            alive = worker.is_alive()
            if pickled.exists():
                self.done[name] = pickle.loads(pickled.read_bytes())
                return self.done[name]
            if error.exists():
                raise ReplayFailed(f"{name}: {error.read_text()}")
            if not alive:
                raise ReplayFailed(f"{name}: its worker ended ({worker.exitcode}) before it was replayed")
            worker.join(0.5)

    def results(self) -> dict[str, Result]:
        return {name: self.result(name) for names, _ in self.workers for name in names}

    def stop(self) -> None:
        """Workers still running unwound (STOP_WAIT), else killed with their groups; the results'
        directory removed."""
        running = [(w, w.pid) for _, w in self.workers if w.is_alive() and w.pid is not None]
        for _, pid in running:
            signal_worker(pid, signal.SIGTERM)
        for worker, pid in running:
            worker.join(STOP_WAIT)
            if worker.is_alive():
                self.killed[pid] = self.stack(worker, pid)
                signal_worker(pid, signal.SIGKILL)
                worker.join()
        shutil.rmtree(self.out, ignore_errors=True)

    def stack(self, worker: BaseProcess, pid: int) -> str:
        """The threads' stacks of a worker still running, as faulthandler writes them from its
        signal handler, even in a stuck C call; once the file stops growing."""
        dump = self.out / f"{pid}.stack"
        try:
            os.kill(pid, STACK_SIGNAL)
        except ProcessLookupError:
            return ""
        size, deadline = -1, time.monotonic() + 5
        while worker.is_alive() and time.monotonic() < deadline:
            time.sleep(0.2)
            try:
                now = dump.stat().st_size
            except OSError:  # the worker stuck before it opened it
                return ""
            if now and now == size:
                break
            size = now
        try:
            return dump.read_text()
        except OSError:
            return ""


def signal_worker(pid: int, sig: signal.Signals) -> None:
    """The worker's group (its engines), and the worker itself, in case it had not yet made it."""
    for send in (os.killpg, os.kill):
        try:
            send(pid, sig)
        except ProcessLookupError:
            pass
