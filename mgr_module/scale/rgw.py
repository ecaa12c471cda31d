"""RGW data from inside the manager, with what Pacific offers.

Buckets (`bucket stats` for every bucket):
  * the Admin Ops API, `GET /admin/bucket?stats=true`, one signed request whatever the
    number of buckets (the dashboard module talks to RGW the same way); or
  * `radosgw-admin bucket stats`, run as this manager (`-n mgr.<id>` with its keyring,
    as MgrModule.send_rgwadmin_command does in 16.2.15+), when radosgw-admin is installed.

Reshard queue: Pacific's Admin Ops API has no reshard endpoint. The queue is the omap of
the objects `reshard.0000000000`.. in the zone's log pool, namespace `reshard`; each value
is an encoded `cls_rgw_reshard_entry`. The manager reads it with its own librados handle
(`self.rados`), so no RGW and no tool are needed, and a down RGW does not hide the queue.
`radosgw-admin reshard list` is the alternative.

Only the stdlib; secrets never reach a log line or an error text.
"""

from __future__ import annotations

import dataclasses
import shutil
import threading
from typing import Any, Callable

from ceph_scale.core import reshard_queue
from ceph_scale.core.inputs import InputError
from ceph_scale.core.snapshot import ReshardEntry
from ceph_scale.io.admin_ops import AdminOps, AdminOpsError
from ceph_scale.io.rados_reads import omap_page, stat_exists

from .options import ModuleSettings


class RgwError(RuntimeError):
    pass


# --- Admin Ops API -----------------------------------------------------------------


def admin_ops_client(
    endpoint: str,
    access_key: str,
    secret_key: str,
    region: str = "us-east-1",
    verify_tls: bool = True,
    max_response_mb: int = 256,
) -> AdminOps:
    """The core's Admin Ops client, once the module's options for it are set."""
    if not endpoint:
        raise RgwError("rgw_endpoint is not set (ceph config set mgr mgr/scale/rgw_endpoint http://HOST:PORT)")
    if not access_key or not secret_key:
        raise RgwError("rgw_access_key / rgw_secret_key are not set (ceph config set mgr mgr/scale/rgw_access_key ...)")
    try:
        return AdminOps(endpoint, access_key, secret_key, region, verify_tls, max_response_mb)
    except AdminOpsError as e:
        raise RgwError(f"rgw_endpoint: {e}") from None


def with_stored_keys(settings: ModuleSettings, get_store: Callable[[str], Any]) -> ModuleSettings:
    """The settings, with the RGW keys from the module's store (`ceph config-key set
    mgr/scale/rgw_secret_key ...`, not shown by `ceph config dump`) when the options are empty."""
    if settings.rgw_access_key and settings.rgw_secret_key:
        return settings
    return dataclasses.replace(
        settings,
        rgw_access_key=settings.rgw_access_key or get_store("rgw_access_key") or "",
        rgw_secret_key=settings.rgw_secret_key or get_store("rgw_secret_key") or "",
    )


# --- radosgw-admin as this manager -------------------------------------------------


def radosgw_admin_available() -> bool:
    return shutil.which("radosgw-admin") is not None


def radosgw_admin_argv(conf_path: str, keyring: str, mgr_id: str, args: list[str]) -> list[str]:
    """The command line MgrModule.send_rgwadmin_command uses (16.2.15+), with our own timeout."""
    argv = ["radosgw-admin"]
    if conf_path:
        argv += ["-c", conf_path]
    if keyring:
        argv += ["-k", keyring]
    return argv + ["-n", f"mgr.{mgr_id}", *args, "--format", "json"]


# --- the reshard queue from RADOS ---------------------------------------------------


def rgw_log_pools(pool_names: list[str]) -> list[str]:
    """Every zone's log pool: `<zone>.rgw.log` (default.rgw.log for the default zone)."""
    return sorted(n for n in pool_names if n.endswith(".rgw.log"))


def read_reshard_queue(
    read_omap: Callable[[str, str, str], list[tuple[str, bytes]]], pools: list[str], num_logs: int
) -> list[ReshardEntry]:
    """read_omap(pool, oid, start_after) -> [(key, value)] in key order, [] when absent."""
    try:
        return reshard_queue.read_queue(read_omap, pools, num_logs)
    except InputError as e:
        raise RgwError(str(e)) from None


OMAP_PAGE = reshard_queue.OMAP_PAGE


def rados_omap_reader(
    rados_handle: Any, time_left: Callable[[], float]
) -> Callable[[str, str, str], list[tuple[str, bytes]]]:
    """read_omap over a python-rados handle (the manager's `self.rados`), refused once the
    source's time is up. A page read itself is synchronous and takes no deadline (the
    manager's rados_osd_op_timeout, 0 by default: none): the runner's bound ends a hung one."""
    import rados  # python3-rados, always present next to ceph-mgr

    ioctxs: dict[str, Any] = {}

    def read(pool: str, oid: str, start_after: str) -> list[tuple[str, bytes]]:
        if time_left() <= 0:
            raise RgwError(f"timed out before reading the omap of {pool}/{reshard_queue.RESHARD_NAMESPACE}/{oid}")
        ioctx = ioctxs.get(pool)
        if ioctx is None:
            try:
                ioctx = rados_handle.open_ioctx(pool)
            except rados.ObjectNotFound:
                raise RgwError(f"RGW log pool {pool!r} does not exist") from None
            ioctx.set_namespace(reshard_queue.RESHARD_NAMESPACE)
            ioctxs[pool] = ioctx
        return omap_page(rados, ioctx, oid, start_after, OMAP_PAGE)

    read.close = lambda: [i.close() for i in ioctxs.values()]  # type: ignore[attr-defined]
    return read


def rgw_index_pools(pool_names: list[str]) -> list[str]:
    """Every zone's bucket index pool: `<zone>.rgw.buckets.index`."""
    return sorted(n for n in pool_names if n.endswith(".rgw.buckets.index"))


PROBE_TIMEOUT = 2.0  # a stat answers in milliseconds; no answer means no cap on the pool, or its PGs down


class IndexStats:
    """exists(oid): the object is in one of `pools`, each stat waited for at most
    `probe_timeout()` seconds (see stat_exists). A stat given up on may still complete in its I/O
    context, and its completion reads that context: none is closed while a stat is pending in
    it. `retire()` closes the idle ones at once; the others are closed by `close_settled()` on
    the module's own thread once their stats complete, never on librados' callback thread."""

    def __init__(self, rados_handle: Any, pools: list[str], probe_timeout: Callable[[], float]) -> None:
        self.probe_timeout = probe_timeout
        self.ioctxs: list[tuple[str, Any]] = []
        self.pending = 0
        self.lock = threading.Lock()
        try:
            for pool in pools:
                self.ioctxs.append((pool, rados_handle.open_ioctx(pool)))
        except BaseException:  # the caller retries every poll: what was opened must not pile up
            self._close()
            raise

    def __call__(self, oid: str) -> bool:
        return any(self._stat(pool, ioctx, oid) for pool, ioctx in self.ioctxs)

    def _stat(self, pool: str, ioctx: Any, oid: str) -> bool:
        with self.lock:
            self.pending += 1
        return stat_exists(ioctx, pool, oid, self.probe_timeout(), on_settled=self._settled)

    def _settled(self) -> None:
        with self.lock:
            self.pending -= 1

    def retire(self) -> None:
        """No more stats: its I/O contexts are closed now, or once their stats settle."""
        with self.lock:
            idle = self.pending == 0
        if idle:
            self._close()
        else:
            with _RETIRED_LOCK:
                _RETIRED.append(self)

    def _close(self) -> None:
        for _, ioctx in self.ioctxs:
            ioctx.close()
        self.ioctxs = []


_RETIRED: list[IndexStats] = []
_RETIRED_LOCK = threading.Lock()


def close_settled() -> int:
    """Close the retired index stats none of whose stats is pending any more; how many are left."""
    with _RETIRED_LOCK:
        settled = [r for r in _RETIRED if r.pending == 0]
        _RETIRED[:] = [r for r in _RETIRED if r.pending != 0]
        left = len(_RETIRED)
    for retired in settled:
        retired._close()
    return left


def rados_exists_checker(rados_handle: Any, pools: list[str], probe_timeout: Callable[[], float]) -> IndexStats:
    """exists(oid) over the pools' index objects (IndexStats)."""
    close_settled()
    return IndexStats(rados_handle, pools, probe_timeout)
