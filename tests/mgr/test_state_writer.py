"""The module writes its durable state off the derivation's thread (statestore.StateWriter):
set_store is a monitor command, and with the monitors away it waits for them. A derivation
that waited with it served the same exposition, the sources failing unseen (found by the
monitor-outage test on every release once the state changed at every poll)."""

from __future__ import annotations

import logging
import threading
import time

from scale import statestore


class MonitorAway:
    """A store whose writes wait until the monitors are back (`back`), recording each write."""

    def __init__(self) -> None:
        self.back = threading.Event()
        self.writes: list[tuple[str, str | None]] = []
        self.fail_next = False

    def set_store(self, key: str, value: str | None) -> None:
        self.back.wait(30)
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("store write refused")
        self.writes.append((key, value))


def wait(predicate, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def test_a_write_the_monitors_hold_does_not_hold_the_caller_and_the_newest_state_wins():
    store = MonitorAway()
    writer = statestore.StateWriter(store.set_store, logging.getLogger("test"))
    started = time.monotonic()
    for n in range(5):  # five derivations while the monitors are away
        writer.submit({"state": f"v{n}"})
    assert time.monotonic() - started < 0.5  # not one of them waited
    assert store.writes == []
    assert not writer.flush(0.2)  # a module stopping now says its last state was not written
    store.back.set()
    assert writer.flush(5) and writer.stored == {"state": "v4"}
    # The first write was already waiting when the others came: it lands, then only the newest.
    assert [v for _, v in store.writes] in (["v0", "v4"], ["v4"])


def test_a_failed_write_is_planned_again_against_what_the_store_holds():
    store = MonitorAway()
    store.back.set()
    writer = statestore.StateWriter(store.set_store, logging.getLogger("test"))
    writer.submit({"state": "a", "state/buckets/0/x": "chunk"})
    assert wait(lambda: writer.stored == {"state": "a", "state/buckets/0/x": "chunk"})
    store.fail_next = True
    writer.submit({"state": "b", "state/buckets/0/y": "chunk2"})
    assert writer.flush(5)
    assert writer.stored == {"state": "a", "state/buckets/0/x": "chunk"}  # as the store holds it
    store.writes.clear()
    writer.submit({"state": "b", "state/buckets/0/y": "chunk2"})
    assert wait(lambda: writer.stored == {"state": "b", "state/buckets/0/y": "chunk2"})
    assert store.writes == [("state/buckets/0/y", "chunk2"), ("state", "b"), ("state/buckets/0/x", None)]
