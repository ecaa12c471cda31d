"""The test cluster's daemons as processes: each started in the foreground in its own
session, recorded by PID, stopped (or frozen) by that PID only.

A mixin of TestCluster (cluster/testcluster.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

from cluster.helpers import RGW_NAME, CephError, pid_alive, pid_cmdline
from cluster.host import ClusterHost


class DaemonProcesses(ClusterHost):
    def daemon_names(self) -> list[str]:
        names = ["mon.a", *(f"mgr.{i}" for i in self.mgr_ids), *(f"osd.{i}" for i in range(self.osds))]
        return names + ([RGW_NAME] if self.with_rgw else [])

    def _argv(self, name: str) -> list[str]:
        kind, _, ident = name.partition(".")
        conf = ["--conf", str(self.conf_path)]
        keyring = ["--keyring", str(self.dir / name / "keyring")]
        if kind == "mon":
            return ["ceph-mon", "-f", *conf, "-i", ident]
        if kind == "mgr":
            # mgr_module_path comes from the config database, as an operator sets it.
            return ["ceph-mgr", "-f", *conf, "-i", ident, *keyring]
        if kind == "osd":
            return ["ceph-osd", "-f", *conf, "-i", ident, *keyring]
        if name == RGW_NAME:
            return ["radosgw", "-f", *conf, "-n", name, *keyring,
                    "--rgw_frontends", f"beast endpoint=127.0.0.1:{self.rgw_port}"]  # fmt: skip
        raise ValueError(f"unknown daemon {name}")

    def start_daemon(self, name: str) -> int:
        """Start one daemon (mon.a, mgr.x, mgr.y, osd.N, client.rgw.a) in the foreground; returns its PID."""
        with self.daemon_lock:  # the laggy watchdog's thread restarts OSDs too
            return self._start_daemon(name)

    def _start_daemon(self, name: str) -> int:
        if name in self.pids and pid_alive(self.pids[name]):
            raise CephError(f"{name} already runs as pid {self.pids[name]}")
        with open(self.dir / "log" / f"{name}.stdout", "ab") as log:
            proc = subprocess.Popen(
                self.release.command(self._argv(name)), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=self.env(), start_new_session=True,
            )  # fmt: skip
        self.procs[name] = proc
        self.pids[name] = proc.pid
        (self.dir / "run" / f"{name}.ourpid").write_text(str(proc.pid))
        self._save_info()
        return proc.pid

    def _owned(self, pid: int) -> bool:
        """The PID is still one of this cluster's daemons (guards against PID reuse)."""
        return pid_alive(pid) and str(self.conf_path) in pid_cmdline(pid)

    def stop_daemon(self, name: str, sig: int = signal.SIGTERM, timeout: float = 30) -> bool:
        """Stop one daemon by its PID: `sig`, wait up to `timeout`, then SIGKILL. True if it ran."""
        with self.daemon_lock:
            self.frozen.discard(name)
            return self._stop_daemon(name, sig, timeout)

    def _stop_daemon(self, name: str, sig: int, timeout: float) -> bool:
        pid = self.pids.pop(name, None)
        proc = self.procs.pop(name, None)
        self._save_info()
        if pid is None or not self._owned(pid):
            if proc is not None:
                proc.poll()
            return False
        try:
            os.kill(pid, signal.SIGCONT)  # a frozen daemon would only take SIGKILL
            os.kill(pid, sig)
        except ProcessLookupError:
            return False
        end = time.monotonic() + timeout
        while time.monotonic() < end and pid_alive(pid):
            if proc is not None and proc.poll() is not None:
                break
            time.sleep(0.1)
        if pid_alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            end = time.monotonic() + 10
            while time.monotonic() < end and pid_alive(pid):
                if proc is not None and proc.poll() is not None:
                    break
                time.sleep(0.1)
        if proc is not None:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
        return True

    def freeze_daemon(self, name: str) -> None:
        """SIGSTOP: the daemon keeps its sockets open and never answers (a hung daemon,
        which clients cannot tell from a slow one: only their timeouts save them)."""
        with self.daemon_lock:
            pid = self.pids[name]
            if not self._owned(pid):
                raise CephError(f"{name} (pid {pid}) is not running")
            os.kill(pid, signal.SIGSTOP)
            self.frozen.add(name)

    def thaw_daemon(self, name: str) -> None:
        with self.daemon_lock:
            self.frozen.discard(name)
            if name in self.pids:
                os.kill(self.pids[name], signal.SIGCONT)

    def restart_daemon(self, name: str, timeout: float = 30) -> int:
        with self.daemon_lock:
            self.stop_daemon(name, timeout=timeout)
            return self.start_daemon(name)

    def running(self) -> dict[str, bool]:
        return {name: (name in self.pids and self._owned(self.pids[name])) for name in self.daemon_names()}
