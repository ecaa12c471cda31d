"""Ceph commands with a deadline, through librados or the `ceph` CLI.

librados (python3-rados) keeps one connection and costs no process per
command; the CLI backend needs nothing but the `ceph` binary and can always
be killed, which is what a hung monitor calls for.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import shutil
import subprocess
import threading
from typing import Any, Callable

from ..core.index_generation import stat_exists
from ..core.reshard_queue import omap_page

log = logging.getLogger(__name__)


class CephCommandError(RuntimeError):
    pass


class CephClient:
    def command(self, prefix: str, timeout: float, **args: Any) -> Any:
        return _decode(prefix, self.command_raw(prefix, timeout, **args))

    def command_raw(self, prefix: str, timeout: float, **args: Any) -> bytes:
        """The command's JSON output, undecoded (for the sources that decode it a chunk at a time)."""
        raise NotImplementedError

    def decoder(self, prefix: str) -> Callable[[bytes], Any]:
        """What `command` does with command_raw's output: for the fallback of a chunked decode."""
        return functools.partial(_decode, prefix)

    def omap_page(self, pool: str, namespace: str, oid: str, start_after: str, limit: int) -> list[tuple[str, bytes]]:
        raise CephCommandError("reading omap needs librados (python3-rados); use --ceph-client rados")

    def object_exists(self, pool: str, oid: str, timeout: float) -> bool:
        raise CephCommandError("reading objects needs librados (python3-rados); use --ceph-client rados")

    def close(self) -> None:
        pass


class CliClient(CephClient):
    def __init__(self, conf: str | None, user: str | None, keyring: str | None, binary: str = "ceph") -> None:
        self.binary = shutil.which(binary) or binary
        self.base = [self.binary]
        if conf:
            self.base += ["--conf", conf]
        if user:
            self.base += ["--name", user if "." in user else f"client.{user}"]
        if keyring:
            self.base += ["--keyring", keyring]

    def command_raw(self, prefix: str, timeout: float, **args: Any) -> bytes:
        argv = self.base + prefix.split() + _argv(args) + ["--format", "json", "--connect-timeout", str(int(timeout))]
        try:
            proc = subprocess.run(argv, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise CephCommandError(f"`ceph {prefix}` timed out after {timeout:g}s") from None
        except OSError as e:
            raise CephCommandError(f"`ceph {prefix}`: {e}") from None
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip().splitlines()
            raise CephCommandError(f"`ceph {prefix}` exited {proc.returncode}: {err[-1] if err else ''}")
        return proc.stdout


def _argv(args: dict[str, Any]) -> list[str]:
    out = []
    for value in args.values():
        if isinstance(value, list):
            out += [str(v) for v in value]
        else:
            out.append(str(value))
    return out


def _decode(prefix: str, raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CephCommandError(f"`ceph {prefix}` returned invalid JSON: {e}") from None


class RadosClient(CephClient):
    """One librados connection; reconnects after an error."""

    # Commands the manager serves in Pacific and later; the rest go to the monitors.
    MGR_PREFIXES = ("pg dump", "osd df", "osd perf", "scale ", "service dump", "config show")

    def __init__(self, conf: str | None, user: str | None, keyring: str | None, connect_timeout: float = 10) -> None:
        import rados  # python3-rados

        self._rados_mod = rados
        self.conf = conf
        self.name = user if (user and "." in user) else f"client.{user or 'admin'}"
        self.keyring = keyring
        self.connect_timeout = connect_timeout
        self._cluster = None
        # Object reads get their own handle. A handle whose first reads went to OSDs that
        # were shutting down kept timing out for good in Pacific (150 s and more, while a new
        # one read at once), so after a failed read it is dropped and made anew, without
        # touching the handle the other sources' commands use at the same moment.
        self._objects = None
        self._stat_ioctxs: dict[tuple[int, str], Any] = {}
        self._lock = threading.Lock()

    def _connect(self):
        conf = {"keyring": self.keyring} if self.keyring else {}
        cluster = self._rados_mod.Rados(conffile=self.conf or "", name=self.name, conf=conf)
        # python-rados ignores connect(timeout=...) while no monitor answers: without this a
        # client waits client_mount_timeout's default, 300 s.
        cluster.conf_set("client_mount_timeout", str(int(self.connect_timeout)))
        cluster.conf_set("rados_mon_op_timeout", str(int(self.connect_timeout)))
        cluster.conf_set("rados_osd_op_timeout", str(int(self.connect_timeout)))
        try:
            cluster.connect(timeout=int(self.connect_timeout))
        except BaseException:
            # python-rados never releases a handle by itself: each failed connect during a
            # monitor outage kept its sockets and threads (274 descriptors after 300 s).
            _shutdown(cluster)
            raise
        return cluster

    def _connected(self):
        with self._lock:
            if self._cluster is None:
                self._cluster = self._connect()
            return self._cluster

    def _objects_handle(self):
        with self._lock:
            if self._objects is None:
                self._objects = self._connect()
            return self._objects

    def _drop_objects_handle(self) -> None:
        with self._lock:
            handle, self._objects = self._objects, None
        _shutdown(handle)

    def command_raw(self, prefix: str, timeout: float, **args: Any) -> bytes:
        cmd = {"prefix": prefix, "format": "json", **args}
        try:
            cluster = self._connected()
            if prefix.startswith(self.MGR_PREFIXES):
                ret, out, err = cluster.mgr_command(json.dumps(cmd), b"", timeout=int(max(1, timeout)))
            else:
                ret, out, err = cluster.mon_command(json.dumps(cmd), b"", timeout=int(max(1, timeout)))
        except CephCommandError:
            raise
        except Exception as e:  # librados raises many types; all mean "this command failed"
            self.close()
            raise CephCommandError(f"`{prefix}`: {type(e).__name__}: {e}") from None
        if ret != 0:
            raise CephCommandError(f"`{prefix}` failed ({ret}): {err.strip()}")
        return out

    def _object_read(self, pool: str, namespace: str, oid: str, kind: str, read: Callable[[Any], Any]) -> Any:
        """read(ioctx) on the objects' own handle. Bounded by rados_osd_op_timeout; a refusal raises."""
        rados = self._rados_mod
        try:
            ioctx = self._objects_handle().open_ioctx(pool)
        except Exception as e:
            self._drop_objects_handle()
            raise CephCommandError(f"open pool {pool}: {type(e).__name__}: {e}") from None
        try:
            try:
                ioctx.set_namespace(namespace)
                return read(ioctx)
            finally:
                ioctx.close()
        except Exception as e:
            # A refusal leaves the handle sound (the caps are wrong); after a timeout, reset or
            # vanished pool the next read starts on a new handle.
            if not isinstance(e, (rados.PermissionError, rados.PermissionDeniedError)):
                self._drop_objects_handle()
            raise CephCommandError(f"{kind} of {pool}/{namespace}/{oid}: {type(e).__name__}: {e}") from None

    def omap_page(self, pool: str, namespace: str, oid: str, start_after: str, limit: int) -> list[tuple[str, bytes]]:
        """Up to `limit` omap (key, value) pairs of one object after `start_after`; [] when
        the object does not exist."""
        rados = self._rados_mod
        return self._object_read(
            pool, namespace, oid, "omap", lambda ioctx: omap_page(rados, ioctx, oid, start_after, limit)
        )

    def object_exists(self, pool: str, oid: str, timeout: float) -> bool:
        """A stat that waits at most `timeout`: without a cap on the pool, the OSDs never
        answer and a plain stat would wait rados_osd_op_timeout. The ioctx is kept (a stat
        given up on may still complete on it), on the objects' handle of the moment."""
        handle = self._objects_handle()
        key = (id(handle), pool)
        ioctx = self._stat_ioctxs.get(key)
        if ioctx is None:
            try:
                ioctx = handle.open_ioctx(pool)
            except Exception as e:
                raise CephCommandError(f"open pool {pool}: {type(e).__name__}: {e}") from None
            self._stat_ioctxs = {k: v for k, v in self._stat_ioctxs.items() if k[0] == id(handle)}
            self._stat_ioctxs[key] = ioctx
        return stat_exists(ioctx, pool, oid, timeout)

    def close(self) -> None:
        with self._lock:
            cluster, self._cluster = self._cluster, None
        _shutdown(cluster)


def _shutdown(cluster) -> None:
    if cluster is not None:
        try:
            cluster.shutdown()
        except Exception:  # already broken; nothing more to release
            log.debug("rados shutdown failed", exc_info=True)


def make_client(backend: str, conf: str | None, user: str | None, keyring: str | None) -> CephClient:
    if backend == "rados" or backend == "auto":
        try:
            return RadosClient(conf, user, keyring)
        except ImportError:
            if backend == "rados":
                raise CephCommandError("python3-rados is not installed (apt install python3-rados)") from None
            log.info("python3-rados not found; using the ceph CLI")
    return CliClient(conf or os.environ.get("CEPH_CONF"), user, keyring)
