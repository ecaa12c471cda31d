"""The test command's replays (replay.docs.REPLAYED), started in two worker processes as soon as
the session knows it runs a test that reads them (tests/conftest.py), so that the session's other
tests run while they do; the tests that read them come last. The healthy month alone takes minutes
on the two cores.

The workers each lead a process group of their own (replay.docs.own_session): a session that ends
before the replays do (a failure under -x, an interrupt) stops each group, the engines the
replays run included, and leaves no process behind.
"""

from __future__ import annotations

import os
import signal
from concurrent.futures import Future, ProcessPoolExecutor

from replay.docs import own_session, replays_started
from replay.run import Result

_POOL: list[ProcessPoolExecutor] = []
_STARTED: dict[str, Future[Result]] = {}


def reads_replays(item) -> bool:
    return "replays" in getattr(item, "fixturenames", ())


def start() -> None:
    if not _POOL:
        _POOL.append(ProcessPoolExecutor(max_workers=2, initializer=own_session))
        _STARTED.update(replays_started(_POOL[0]))


def results() -> dict[str, Result]:
    start()
    return {name: future.result() for name, future in _STARTED.items()}


def stop() -> None:
    """The session's replays stopped (those still running) and their pool shut down."""
    if _POOL:
        stop_pool(_POOL.pop(), dict(_STARTED))
        _STARTED.clear()


def stop_pool(pool: ProcessPoolExecutor, futures: dict[str, Future[Result]]) -> None:
    """A worker told to stop unwinds the step it is in (replay.docs.own_session), which stops the
    Alertmanager it may have started; one still there after STOP_WAIT is killed with its group."""
    running = not all(f.done() for f in futures.values())
    workers = list((getattr(pool, "_processes", None) or {}).values())  # no public list of them
    if running:
        for worker in workers:
            signal_group(worker.pid, signal.SIGTERM)
    pool.shutdown(wait=not running, cancel_futures=True)
    for worker in workers if running else ():
        worker.join(STOP_WAIT)
        signal_group(worker.pid, signal.SIGKILL)


STOP_WAIT = 15.0


def signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass
