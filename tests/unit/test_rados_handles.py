"""RadosClient's handles against a fake python-rados: manager commands never left to librados'
own timeout, a bound on those given up on, and stat I/O contexts owned by their handle,
closed before its shutdown and never while a stat may still complete on them.

librados' mgr_command waits for at most rados_mon_op_timeout on a condition in its own frame
and returns while the manager client keeps pointers into that frame; the answer, resent to
the next manager, is written there later (`free(): invalid pointer` when both managers
restart). A stat's completion reads its I/O context without holding it."""

from __future__ import annotations

import errno
import json
import threading
import time
import types
from typing import Any

import pytest

from exporter.sidecar.ceph_client import CephCommandError, RadosClient


class FakeIoctx:
    """A pool's I/O context whose stats complete when the test says so."""

    def __init__(self, cluster: FakeCluster, pool: str) -> None:
        self.cluster, self.pool = cluster, pool
        self.closed = False
        self.pending: list[Any] = []

    def aio_stat(self, oid: str, complete) -> None:
        assert not self.closed and not self.cluster.shut, "a stat on a closed ioctx or a shut-down handle"
        if self.cluster.stats_answer:
            complete(types.SimpleNamespace(get_return_value=lambda: -errno.ENOENT))
        else:
            self.pending.append(complete)

    def complete_pending(self) -> None:
        """librados completes the stats given up on (an answer or rados_osd_op_timeout)."""
        assert not self.closed, "a stat completed on a closed ioctx: a use after free in librados"
        for complete in self.pending:
            complete(types.SimpleNamespace(get_return_value=lambda: -errno.ETIMEDOUT))
        self.pending.clear()

    def close(self) -> None:
        assert not self.cluster.shut, "an ioctx destroyed after its cluster's shutdown"
        self.closed = True


class FakeCluster:
    """python-rados' Rados: mgr_command blocks until `answer` is set (librados without a timeout)."""

    def __init__(self, made: list, answer: threading.Event, **_: object) -> None:
        self.conf: dict[str, str] = {}
        self.answer = answer
        self.shut = False
        self.stats_answer = True
        self.ioctxs: list[FakeIoctx] = []
        self.in_librados = 0
        made.append(self)

    def conf_set(self, key: str, value: str) -> None:
        self.conf[key] = value

    def connect(self, timeout: int) -> None:
        pass

    def mgr_command(self, cmd: str, inbuf: bytes, timeout: int = 0) -> tuple[int, bytes, str]:
        # librados' own timeout is the bug: the manager's handle must have none.
        assert self.conf["rados_mon_op_timeout"] == "0", self.conf
        self.in_librados += 1
        self.answer.wait(10)
        self.in_librados -= 1
        assert not self.shut, "shut down under a call in librados"
        return 0, json.dumps({"prefix": json.loads(cmd)["prefix"]}).encode(), ""

    def mon_command(self, cmd: str, inbuf: bytes, timeout: int = 0) -> tuple[int, bytes, str]:
        assert self.conf["rados_mon_op_timeout"] != "0"  # the monitor client ends its own
        return 0, b"{}", ""

    def open_ioctx(self, pool: str) -> FakeIoctx:
        ioctx = FakeIoctx(self, pool)
        self.ioctxs.append(ioctx)
        return ioctx

    def shutdown(self) -> None:
        assert self.in_librados == 0, "shut down under a call in librados"
        assert all(i.closed for i in self.ioctxs), "shut down with an ioctx still open"
        self.shut = True


@pytest.fixture
def fake():
    made: list[FakeCluster] = []
    answer = threading.Event()
    client = RadosClient(None, "admin", None)
    client._rados_mod = types.SimpleNamespace(
        Rados=lambda **kw: FakeCluster(made, answer, **kw),
        PermissionError=PermissionError,
        PermissionDeniedError=PermissionError,
    )
    yield client, made, answer
    answer.set()


def wait_for(condition, what: str) -> None:
    end = time.monotonic() + 5
    while not condition():
        assert time.monotonic() < end, what
        time.sleep(0.01)


def test_manager_commands_have_their_own_handle_without_librados_timeout(fake):
    client, made, answer = fake
    answer.set()
    assert client.command("pg dump", 3) == {"prefix": "pg dump"}
    assert client.command("health", 3) == {}
    manager, monitor = made  # made in that order: one handle each
    assert manager.conf["rados_mon_op_timeout"] == "0"
    assert monitor.conf["rados_mon_op_timeout"] == "10"


def test_a_manager_command_times_out_on_ours_and_its_handle_outlives_the_call(fake):
    client, made, answer = fake
    started = time.monotonic()
    with pytest.raises(CephCommandError, match=r"^`pg dump` timed out after 0.2s: the manager did not answer$"):
        client.command("pg dump", 0.2)
    assert time.monotonic() - started < 1
    (manager,) = made
    assert manager.in_librados == 1
    client.close()  # the process stops: the abandoned call still holds the handle
    assert not manager.shut
    answer.set()  # the next manager answers: librados returns into a live frame
    wait_for(lambda: manager.shut, "the handle shut down once the abandoned call returned")


def test_manager_commands_in_librados_are_bounded_and_then_refused(fake):
    client, made, answer = fake
    for _ in range(RadosClient.MAX_MANAGER_CALLS):
        with pytest.raises(CephCommandError, match="timed out"):
            client.command("osd df", 0.05)
    with pytest.raises(CephCommandError) as refused:
        client.command("osd df", 0.05)
    assert (
        str(refused.value) == f"`osd df`: not sent, {RadosClient.MAX_MANAGER_CALLS} manager commands still unanswered"
    )
    assert made[0].in_librados == RadosClient.MAX_MANAGER_CALLS  # no thread more
    assert len(made) == 1  # and one handle for all of them
    answer.set()  # the manager is back: they return, and new commands are sent again
    wait_for(lambda: client._manager_calls == 0, "the abandoned calls to return")
    assert made[0].in_librados == 0
    assert client.command("osd df", 1) == {"prefix": "osd df"}
    assert len(made) == 1  # the same handle: a late answer is no failure


def test_concurrent_callers_never_pass_the_bound(fake):
    """The bound counts the calls sent, not only those given up on: callers racing at a full
    count cannot push past it."""
    client, made, answer = fake
    errors: list[str] = []

    def caller() -> None:
        try:
            client.command("pg dump", 0.3)
        except CephCommandError as e:
            errors.append(str(e))

    threads = [threading.Thread(target=caller) for _ in range(3 * RadosClient.MAX_MANAGER_CALLS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert made[0].in_librados == RadosClient.MAX_MANAGER_CALLS
    assert sum("timed out" in e for e in errors) == RadosClient.MAX_MANAGER_CALLS
    assert sum("not sent" in e for e in errors) == 2 * RadosClient.MAX_MANAGER_CALLS


def test_a_stat_given_up_on_keeps_its_ioctx_open_until_it_completes(fake):
    client, made, _ = fake
    client.object_exists("index", "a", 0.05)  # made the objects' handle (answered at once)
    (objects,) = made
    objects.stats_answer = False
    with pytest.raises(Exception, match="no answer"):
        client.object_exists("index", "b", 0.05)
    (ioctx,) = objects.ioctxs
    # An omap read fails: the objects' handle is retired, while the stat may still complete.
    objects.open_ioctx = lambda pool: (_ for _ in ()).throw(TimeoutError("[errno 110] RADOS timed out"))
    with pytest.raises(CephCommandError, match="timed out"):
        client.omap_page("log", "reshard", "reshard.0", "", 10)
    assert not ioctx.closed and not objects.shut
    ioctx.complete_pending()  # librados completes it: the ioctx is closed, then the handle shut down
    wait_for(lambda: objects.shut, "the retired handle shut down once its stat completed")
    assert ioctx.closed


def test_a_new_handle_never_gets_a_dead_handles_ioctx(fake):
    """Keyed by id() of the handle, a new handle at the freed one's address got its ioctx."""
    client, made, _ = fake
    assert client.object_exists("index", "a", 1) is False
    client.close()
    assert made[0].shut and made[0].ioctxs[0].closed  # closed before the shutdown
    assert client.object_exists("index", "a", 1) is False  # asserts the ioctx is open and its cluster up
    assert len(made) == 2 and made[1].ioctxs[0] is not made[0].ioctxs[0]
    client.close()
    assert made[1].shut and made[1].ioctxs[0].closed
