"""The manager's own handles and data, as every source of the module reads them: its librados
handle, made safely and made anew after a failed connect, and what `MgrModule.get` returns,
decoded within the core's decode bound."""

from __future__ import annotations

import threading
from typing import Any

from ceph_scale.core import json_bound

# MgrModule.rados makes the manager's librados handle on first use without a lock: two
# collection threads asking at once connected one handle from both, and its address query
# crashed the whole manager (a segfault in rados_getaddrs, seen on Tentacle).
_RADOS_LOCK = threading.Lock()


def manager_rados(mgr: Any) -> Any:
    """The manager's librados handle, made by one thread at a time; after a failed connect (a
    monitor outage) made anew: MgrModule.rados keeps the handle it failed to connect and would
    hand it out for the module's life, with its sockets and threads."""
    with _RADOS_LOCK:
        _drop_unconnected(mgr)
        try:
            return mgr.rados
        except Exception:
            _drop_unconnected(mgr)
            raise


def _drop_unconnected(mgr: Any) -> None:
    handle = getattr(mgr, "_rados", None)
    if handle is not None and getattr(handle, "state", "connected") != "connected":
        mgr._rados = None
        handle.shutdown()  # python-rados releases nothing by itself


class SourceError(RuntimeError):
    pass


def _loads(obj: Any, what: str) -> Any:
    """What the manager answered, decoded; objects it hands out are Python already."""
    if isinstance(obj, (bytes, str)):
        raw = obj if isinstance(obj, bytes) else obj.encode()
        try:
            return json_bound.loads(raw, utf8_errors="replace")
        except json_bound.DecodeBoundError as e:
            raise SourceError(f"{what}: {e}") from None
        except ValueError as e:
            raise SourceError(f"{what}: invalid JSON: {e}") from None
    return obj


def mgr_get(mgr: Any, name: str) -> Any:
    data = _loads(mgr.get(name), name)
    if data is None:
        raise SourceError(f"the manager has no {name!r} yet")
    return data
