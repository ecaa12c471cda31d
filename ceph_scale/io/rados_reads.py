"""The two librados reads both producers make on their own handle: a stat bounded in time (the
index generation's probe, core/index_generation.py) and a page of an object's omap (the reshard
queue, core/reshard_queue.py). The callers pass the python-rados module and the I/O context, so
neither producer's way of opening them is assumed here.
"""

from __future__ import annotations

import errno
import os
import threading
from typing import Any, Callable


class ProbeError(RuntimeError):
    pass


def stat_exists(ioctx: Any, pool: str, oid: str, timeout: float, on_settled: Callable[[], None] | None = None) -> bool:
    """Whether `oid` exists, by a python-rados asynchronous stat waited for at most `timeout`:
    without a cap on the pool the OSDs never answer, and a plain stat would wait
    rados_osd_op_timeout. Both producers call it on their own librados handle.

    A stat given up on still completes later (an answer, or rados_osd_op_timeout), and its
    completion reads the ioctx without holding it (IoCtxImpl::C_aio_stat_Ack::finish): the
    ioctx must stay open until then. `on_settled` is called once librados is done with the
    stat, whether it was waited for or not (on librados' callback thread: it must not shut
    the handle down there)."""
    done = threading.Event()
    result: list[int] = []
    settled = on_settled or (lambda: None)

    def complete(completion: Any, *_: Any) -> None:
        try:
            result.append(completion.get_return_value())
            done.set()
        finally:
            settled()

    try:
        ioctx.aio_stat(oid, complete)
    except BaseException:
        settled()  # never sent: no completion will come
        raise
    if not done.wait(timeout):
        raise ProbeError(f"stat of {pool}/{oid}: no answer in {timeout:g}s")
    if result[0] == 0:
        return True
    if result[0] == -errno.ENOENT:
        return False
    raise ProbeError(f"stat of {pool}/{oid}: {os.strerror(-result[0])}")


def omap_page(rados: Any, ioctx: Any, oid: str, start_after: str, limit: int) -> list[tuple[str, bytes]]:
    """Up to `limit` omap (key, value) pairs of `oid` after `start_after`, [] when the object does
    not exist: one read both producers make on their own librados handle (`rados`: the
    python-rados module, for its read-op context and its not-found error)."""
    with rados.ReadOpCtx() as op:
        entries, _ = ioctx.get_omap_vals(op, start_after, "", limit)
        try:
            ioctx.operate_read_op(op, oid)
        except rados.ObjectNotFound:
            return []
        return [(k, v) for k, v in entries]
