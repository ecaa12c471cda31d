"""The test command's replays (replay.docs.REPLAYED, replay.workers) in two worker processes
beside the session's other tests: the month, minutes long, on one, the others behind one another
on the second. In a session of tests that start no cluster they start as its tests begin
(tests/conftest.py); in one that starts clusters, when a test first reads one, so as not to take
the cores from them. They stop with the session, or end when it is killed."""

from __future__ import annotations

from replay.docs import two_lanes
from replay.workers import Replays

_SESSION: list[Replays] = []


def session() -> Replays:
    """The session's replays, started on first use."""
    if not _SESSION:
        _SESSION.append(Replays(two_lanes()))
    return _SESSION[0]


def stop() -> None:
    while _SESSION:
        _SESSION.pop().stop()
