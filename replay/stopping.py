"""How a replay worker stops (replay/workers.py): SIGTERM raises Stopped where the worker is, so
that the step it is in unwinds and cleans up as its own code does (its engines killed, its
Alertmanager stopped, its temporary directories removed), once; the worker's process group (its
engines and their children, a rule engine's build) is told too. What the unwinding could miss is
caught here: a Stopped that Python ignored, and a process that outlived its step."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from types import FrameType

STOPPING: list[int] = []  # the signal that stops the worker, once received
SWALLOWED: list[int] = []  # a Stopped that Python ignored, to raise again
RAISE_AGAIN = 0.05  # seconds between the timer's ticks that raise it again


class Stopped(BaseException):
    """SIGTERM in a worker: raised where it is, so that the step it is in cleans up."""


def stopped(signum: int, frame: FrameType | None) -> None:
    """One unwinding, which a second signal does not cut; the worker's group told too, when the
    worker leads it: the signal of a session that died reaches the worker alone."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    STOPPING.append(signum)
    if os.getpgrp() == os.getpid():
        os.killpg(0, signal.SIGTERM)
    if in_hook(frame):  # raised here, it would be ignored with the error the hook handles
        raise_later(signum)
        return
    raise Stopped(signum)


def unraisable(info: sys.UnraisableHookArgs) -> None:
    """sys.unraisablehook in a worker. A Stopped raised where Python ignores errors (a __del__, a
    finalizer, a generator closed by the garbage collector) would leave the worker running with
    SIGTERM ignored: a timer raises it again, at its first tick outside such a place."""
    if isinstance(info.exc_value, Stopped):
        raise_later(info.exc_value.args[0])
        return
    sys.__unraisablehook__(info)


def raise_later(signum: int) -> None:
    SWALLOWED.append(signum)
    signal.signal(signal.SIGALRM, raise_swallowed)
    signal.setitimer(signal.ITIMER_REAL, RAISE_AGAIN, RAISE_AGAIN)


def raise_swallowed(_signum: int, frame: FrameType | None) -> None:
    """A tick: the swallowed Stopped raised again, unless the tick came inside the hook (the next
    one does). The timer stops with it; the hook starts it again if this one is swallowed too."""
    if SWALLOWED and not in_hook(frame):
        signal.setitimer(signal.ITIMER_REAL, 0)
        raise Stopped(SWALLOWED.pop())


def in_hook(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code is unraisable.__code__:
            return True
        frame = frame.f_back
    return False


def ended() -> None:
    """The worker's last step: no tick after it, and no process it started left running (one
    started in a session of its own, which its group's signal missed, by a step stopped before it
    held a handle to stop it by)."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    SWALLOWED.clear()
    for pid in children(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                found.append(int(entry.name))
    return found
