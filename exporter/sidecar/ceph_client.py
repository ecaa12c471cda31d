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
import threading
from typing import Any, Callable

from ceph_scale.core import json_bound
from ceph_scale.io import child_output
from ceph_scale.io.rados_reads import omap_page, stat_exists

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
    # What one command may print (io/child_output.py): the HTTP reads' cap.
    max_output_bytes = child_output.MAX_OUTPUT_BYTES

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
            proc = child_output.run(argv, timeout, self.max_output_bytes)
        except child_output.ChildTimeout:
            raise CephCommandError(f"`ceph {prefix}` timed out after {timeout:g}s") from None
        except child_output.ChildOutputTooLarge:
            cap = child_output.cap_text(self.max_output_bytes)
            raise CephCommandError(f"`ceph {prefix}`: output over the {cap} cap, stopped") from None
        except OSError as e:
            raise CephCommandError(f"`ceph {prefix}`: {e}") from None
        if proc.returncode != 0:
            raise CephCommandError(f"`ceph {prefix}` exited {proc.returncode}: {proc.last_error_line()}")
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
    """The command's JSON within the decode budget (core/json_bound.py), whatever its shape."""
    raw = raw.strip()
    if not raw:
        return None
    try:
        return json_bound.loads(raw, utf8_errors="replace")
    except json_bound.DecodeBoundError as e:
        raise CephCommandError(f"`ceph {prefix}`: {e}") from None
    except ValueError as e:
        raise CephCommandError(f"`ceph {prefix}` returned invalid JSON: {e}") from None


# RadosClient's three handles: monitor commands, manager commands, object reads.
COMMANDS, MANAGER, OBJECTS = "commands", "manager", "objects"


class _Handle:
    """One librados handle, the calls in it and the stat I/O contexts it keeps."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.users = 0  # calls in librados on it, a manager command given up on included
        self.retired = False
        self.shut = False
        # Stats given up on may still complete on these I/O contexts: librados' completion reads
        # its I/O context without holding it (IoCtxImpl::C_aio_stat_Ack::finish, c->io), so each
        # stays open until its stats have completed, and is closed before the handle's shutdown.
        self.stat_ioctxs: dict[str, Any] = {}
        self.stats_in_flight = 0

    def claim_shutdown(self) -> bool:
        """Whether the caller is the one to shut it down now (retired, and nothing in it)."""
        if self.retired and not self.shut and self.users == 0 and self.stats_in_flight == 0:
            self.shut = True
            return True
        return False


class RadosClient(CephClient):
    """librados connections that reconnect after an error.

    Manager commands go through a handle of their own with no librados timeout
    (rados_mon_op_timeout 0), in a thread the caller stops waiting for at its deadline:
    librados' mgr_command waits on a condition on its own stack for at most
    rados_mon_op_timeout and returns -ETIMEDOUT while the manager client keeps pointers into
    that frame, and resends the command to the next active manager, whose answer is then
    written into a frame that is gone (`free(): invalid pointer` when both managers restart).
    Without the timeout the call returns only once answered. Monitor commands keep librados'
    timeout: the monitor client ends such a command itself before waking the caller."""

    # Commands the manager serves in Pacific and later; the rest go to the monitors.
    MGR_PREFIXES = ("pg dump", "osd df", "osd perf", "scale ", "service dump", "config show")
    # Manager commands in librados at once, those given up on included: past this many no more
    # are sent, so a long manager outage cannot pile up threads (four of the sidecar's sources
    # send them, one at a time each, while the manager answers).
    MAX_MANAGER_CALLS = 8

    def __init__(self, conf: str | None, user: str | None, keyring: str | None, connect_timeout: float = 10) -> None:
        import rados  # python3-rados

        self._rados_mod = rados
        self.conf = conf
        self.name = user if (user and "." in user) else f"client.{user or 'admin'}"
        self.keyring = keyring
        self.connect_timeout = connect_timeout
        # Object reads get their own handle. A handle whose first reads went to OSDs that
        # were shutting down kept timing out for good in Pacific (150 s and more, while a new
        # one read at once), so after a failed read it is dropped and made anew, without
        # touching the handle the other sources' commands use at the same moment.
        self._handles: dict[str, _Handle | None] = {COMMANDS: None, MANAGER: None, OBJECTS: None}
        self._manager_calls = 0  # manager commands in librados, those given up on included
        self._lock = threading.Lock()

    def _connect(self, kind: str):
        conf = {"keyring": self.keyring} if self.keyring else {}
        cluster = self._rados_mod.Rados(conffile=self.conf or "", name=self.name, conf=conf)
        try:
            # python-rados ignores connect(timeout=...) while no monitor answers: without this a
            # client waits client_mount_timeout's default, 300 s.
            cluster.conf_set("client_mount_timeout", str(int(self.connect_timeout)))
            op_timeout = "0" if kind == MANAGER else str(int(self.connect_timeout))  # see the class
            cluster.conf_set("rados_mon_op_timeout", op_timeout)
            cluster.conf_set("rados_osd_op_timeout", str(int(self.connect_timeout)))
            cluster.connect(timeout=int(self.connect_timeout))
        except BaseException:
            # python-rados never releases a handle by itself, not even when it is freed: each
            # failed connect during a monitor outage kept 9 descriptors and 4 threads.
            _shutdown(cluster)
            raise
        return cluster

    def _acquire(self, kind: str, what: str) -> _Handle:
        """The `kind` handle for one call, connected if need be; _release it after the call.
        A failed connect (it kept nothing) raises the call's error, naming `what`."""
        try:
            with self._lock:
                handle = self._handles[kind]
                if handle is None:
                    handle = self._handles[kind] = _Handle(self._connect(kind))
                handle.users += 1
                return handle
        except Exception as e:
            raise CephCommandError(f"{what}: {type(e).__name__}: {e}") from None

    def _release(self, handle: _Handle, retire: bool = False) -> None:
        """The call is done with it; `retire`: the next call makes a new one. A retired handle
        is shut down by the last call or stat in it: never under another call still in
        librados (a shutdown frees what that call is using)."""
        with self._lock:
            handle.users -= 1
            if retire:
                self._retire(handle)
            last = handle.claim_shutdown()
        if last:
            _close_handle(handle)

    def _retire(self, handle: _Handle) -> None:
        handle.retired = True
        for kind, current in self._handles.items():
            if current is handle:
                self._handles[kind] = None

    def command_raw(self, prefix: str, timeout: float, **args: Any) -> bytes:
        cmd = json.dumps({"prefix": prefix, "format": "json", **args})
        if prefix.startswith(self.MGR_PREFIXES):
            ret, out, err = self._manager_command(prefix, cmd, timeout)
        else:
            ret, out, err = self._monitor_command(prefix, cmd, timeout)
        if ret != 0:
            raise CephCommandError(f"`{prefix}` failed ({ret}): {err.strip()}")
        return out

    def _monitor_command(self, prefix: str, cmd: str, timeout: float) -> tuple[int, bytes, str]:
        """Bounded by rados_mon_op_timeout, which the monitor client enforces itself."""
        handle = self._acquire(COMMANDS, f"`{prefix}`")
        failed = True
        try:
            result = handle.cluster.mon_command(cmd, b"", timeout=int(max(1, timeout)))
            failed = False
            return result
        except Exception as e:  # librados raises many types; all mean "this command failed"
            raise CephCommandError(f"`{prefix}`: {type(e).__name__}: {e}") from None
        finally:
            self._release(handle, retire=failed)

    def _manager_command(self, prefix: str, cmd: str, timeout: float) -> tuple[int, bytes, str]:
        """Waits at most `timeout`; a call given up on keeps its handle until librados returns."""
        with self._lock:
            if self._manager_calls >= self.MAX_MANAGER_CALLS:
                raise CephCommandError(f"`{prefix}`: not sent, {self._manager_calls} manager commands still unanswered")
            self._manager_calls += 1
        try:
            handle = self._acquire(MANAGER, f"`{prefix}`")
        except CephCommandError:
            with self._lock:
                self._manager_calls -= 1
            raise
        outcome: list[Any] = []
        answered = threading.Event()

        def call() -> None:
            failed = True
            try:
                outcome.append(handle.cluster.mgr_command(cmd, b""))
                failed = False
            except Exception as e:  # librados raises many types; all mean "this command failed"
                outcome.append(CephCommandError(f"`{prefix}`: {type(e).__name__}: {e}"))
            finally:
                self._release(handle, retire=failed)
                with self._lock:
                    self._manager_calls -= 1
                answered.set()

        threading.Thread(target=call, name="rados-mgr-command", daemon=True).start()
        if not answered.wait(timeout):
            raise CephCommandError(f"`{prefix}` timed out after {round(timeout, 1):g}s: the manager did not answer")
        if isinstance(outcome[0], CephCommandError):
            raise outcome[0]
        return outcome[0]

    def _object_read(self, pool: str, namespace: str, oid: str, kind: str, read: Callable[[Any], Any]) -> Any:
        """read(ioctx) on the objects' own handle. Bounded by rados_osd_op_timeout; a refusal raises."""
        rados = self._rados_mod
        handle = self._acquire(OBJECTS, f"open pool {pool}")
        retire = True
        try:
            try:
                ioctx = handle.cluster.open_ioctx(pool)
            except Exception as e:
                raise CephCommandError(f"open pool {pool}: {type(e).__name__}: {e}") from None
            try:
                try:
                    ioctx.set_namespace(namespace)
                    result = read(ioctx)
                finally:
                    ioctx.close()
            except Exception as e:
                # A refusal leaves the handle sound (the caps are wrong); after a timeout, reset
                # or vanished pool the next read starts on a new handle.
                retire = not isinstance(e, (rados.PermissionError, rados.PermissionDeniedError))
                raise CephCommandError(f"{kind} of {pool}/{namespace}/{oid}: {type(e).__name__}: {e}") from None
            retire = False
            return result
        finally:
            self._release(handle, retire)

    def omap_page(self, pool: str, namespace: str, oid: str, start_after: str, limit: int) -> list[tuple[str, bytes]]:
        """Up to `limit` omap (key, value) pairs of one object after `start_after`; [] when
        the object does not exist."""
        rados = self._rados_mod
        return self._object_read(
            pool, namespace, oid, "omap", lambda ioctx: omap_page(rados, ioctx, oid, start_after, limit)
        )

    def object_exists(self, pool: str, oid: str, timeout: float) -> bool:
        """A stat that waits at most `timeout`: without a cap on the pool, the OSDs never
        answer and a plain stat would wait rados_osd_op_timeout. The pool's I/O context is
        the handle's, kept open while a stat given up on may still complete on it."""
        handle = self._acquire(OBJECTS, f"stat of {pool}/{oid}")
        try:
            with self._lock:
                ioctx = handle.stat_ioctxs.get(pool)
            if ioctx is None:
                try:
                    ioctx = handle.cluster.open_ioctx(pool)
                except Exception as e:
                    raise CephCommandError(f"open pool {pool}: {type(e).__name__}: {e}") from None
                with self._lock:
                    handle.stat_ioctxs[pool] = ioctx
            with self._lock:
                handle.stats_in_flight += 1
            return stat_exists(ioctx, pool, oid, timeout, on_settled=lambda: self._stat_settled(handle))
        finally:
            self._release(handle)

    def _stat_settled(self, handle: _Handle) -> None:
        """librados is done with one stat (from its completion callback, on librados' thread)."""
        with self._lock:
            handle.stats_in_flight -= 1
            last = handle.claim_shutdown()
        if last:
            # Not on librados' callback thread: a shutdown waits for that thread to finish.
            threading.Thread(target=_close_handle, args=(handle,), name="rados-shutdown", daemon=True).start()

    def close(self) -> None:
        """Every handle retired: each is shut down now, or by the last call or stat in it."""
        idle = []
        with self._lock:
            for handle in [h for h in self._handles.values() if h is not None]:
                self._retire(handle)
                if handle.claim_shutdown():
                    idle.append(handle)
        for handle in idle:
            _close_handle(handle)


def _close_handle(handle: _Handle) -> None:
    """Its stat I/O contexts closed first: one destroyed after its cluster's shutdown would
    be freed against a client that is gone."""
    for ioctx in handle.stat_ioctxs.values():
        try:
            ioctx.close()
        except Exception:  # already broken; nothing more to release
            log.debug("rados ioctx close failed", exc_info=True)
    handle.stat_ioctxs.clear()
    _shutdown(handle.cluster)


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
