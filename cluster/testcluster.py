"""A throwaway real Ceph cluster from Debian's binaries, on loopback, under one directory.

1 mon, 1 or 2 mgrs, N BlueStore OSDs on plain (sparse) files each with a
separate DB file, and an RGW (beast) on a free port. No systemd: every daemon
runs in the foreground (`-f`) as our child in its own session, its PID is
recorded in ``<dir>/run/<name>.ourpid`` and ``<dir>/cluster.json``, and it is
stopped by that PID (SIGTERM, wait, SIGKILL after a timeout).

    python -m cluster.testcluster start --dir /tmp/c   # prints connection info as JSON, daemons keep running
    python -m cluster.testcluster status --dir /tmp/c
    python -m cluster.testcluster stop --dir /tmp/c [--keep]

    with TestCluster() as c:
        c.ceph("osd", "df")

Stdlib only (boto3 is imported by `fill_bucket_until_reshard` / `queue_reshard`, which put objects).
See cluster/README.md for the study conditions and the timings measured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any, Callable

from cluster.commands import DOCUMENTED_RGW_USER, SECURITY_DOC, ClusterCommands
from cluster.conditions import SCRUB_INTERVAL_OPTIONS, StudyConditions
from cluster.daemons import DaemonProcesses
from cluster.failover import ManagerFailover
from cluster.helpers import (  # noqa: F401 - re-exported: the tests and the demo import them from here
    RGW_NAME,
    CephError,
    free_port,
    parse_size,
    parse_stamp,
    pid_alive,
    pid_cmdline,
    wait_for,
)
from cluster.mgr_modules import ManagerModules
from cluster.osd_states import OsdStates
from cluster.releases import RELEASES, Release, release
from cluster.watchdog import LaggyWatchdog


class TestCluster(
    StudyConditions, ClusterCommands, DaemonProcesses, ManagerModules, ManagerFailover, OsdStates, LaggyWatchdog
):
    """A real Ceph cluster for tests and the demo: its lifecycle here, each other job in a mixin
    of its own. See the module docstring and cluster/README.md."""

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        base_dir: str | os.PathLike | None = None,
        osds: int = 3,
        db_sizes: tuple[str, ...] | list[str] = ("256M", "1G", "1G"),
        block_size: str = "4G",
        standby_mgr: bool = False,
        rgw: bool = True,
        reshard_objs_per_shard: int = 100,
        reshard_interval: int = 10,
        bucket_shards: int = 1,
        extra_mgr_modules: dict[str, str] | None = None,
        keep: bool = False,
        pool_size: int = 1,
        pg_num: int = 8,
        osd_memory_target: str = "768M",
        scrub_intervals: tuple[int, int, int] = (60, 120, 120),
        extra_config: dict[str, dict[str, str]] | None = None,
        laggy_watchdog: bool = True,
        release_name: str | None = None,
    ) -> None:
        """
        base_dir: where everything lives (a new temp dir if None; removed by stop() unless keep).
        db_sizes: DB file size per OSD (the last one repeats). 256M spills over at once (the
            RocksDB WAL, preallocated at ~256 MiB, does not fit), 1G does not.
        reshard_objs_per_shard: rgw_max_objs_per_shard (and rgw_safe_max_objects_per_shard, which
            `bucket limit check` uses). With bucket_shards=1 a bucket reshards after this many objects.
        reshard_interval: rgw_reshard_thread_interval (Ceph's minimum is 10 s).
        bucket_shards: rgw_override_bucket_index_max_shards, the shard count of new buckets (0 = the
            zonegroup's bucket_index_max_shards, 11 in pacific).
        pool_size: osd_pool_default_size (1, or the OSD count to survive an OSD down).
        scrub_intervals: (osd_scrub_min_interval, osd_scrub_max_interval, osd_deep_scrub_interval) in
            seconds, set before any PG exists: an OSD schedules a PG's next scrub from the values
            in force when the PG registers (creation, peering, end of its last scrub); changing
            them later moves the manager's warnings at once but the OSDs' schedule only slowly.
        extra_mgr_modules: {"scale": its directory}, installed into the managers' module directory
            with the install.sh beside it, as docs/mgr-module.md documents (cluster/mgr_modules.py).
        extra_config: {who: {option: value}} set in the config database at start.
        laggy_watchdog: heal PGs stuck laggy (see heal_stuck_laggy_pgs) from a background thread
            while this process keeps the cluster running.
        release_name: pacific (the host's packages), reef or tentacle (a Debian root built once per
            machine, see cluster/releases.py); default $CEPH_SCALE_RELEASE, else pacific.
        """
        self.release: Release = release(release_name)
        self.owns_dir = base_dir is None
        self.dir = Path(base_dir) if base_dir is not None else Path(tempfile.mkdtemp(prefix="ceph-test-"))
        self.dir = self.dir.resolve()
        self.osds = osds
        db_sizes = list(db_sizes) or ["1G"]
        self.db_sizes = [db_sizes[i] if i < len(db_sizes) else db_sizes[-1] for i in range(osds)]
        self.block_size = block_size
        self.standby_mgr = standby_mgr
        self.with_rgw = rgw
        self.reshard_objs_per_shard = reshard_objs_per_shard
        self.reshard_interval = reshard_interval
        self.bucket_shards = bucket_shards
        self.extra_mgr_modules = dict(extra_mgr_modules or {})
        self.keep = keep
        self.pool_size = pool_size
        self.pg_num = pg_num
        self.osd_memory_target = osd_memory_target
        self.extra_config = dict(extra_config or {})
        self.scrub_intervals = tuple(int(x) for x in scrub_intervals)
        self.conf_path = self.dir / "ceph.conf"
        self.keyring_path = self.dir / "keyring"
        self.keys_path = self.dir / "keys.json"
        self.fsid = ""
        self.hostname = socket.gethostname().split(".")[0]
        self.procs: dict[str, subprocess.Popen] = {}  # daemons we are the parent of
        self.pids: dict[str, int] = {}  # every daemon we started, by name
        self.mon_port = 0
        self.mon_v1_port = 0
        self.prometheus_ports: dict[str, int] = {}  # mgr id -> its prometheus port
        self.active_mgr = "x"
        self.rgw_port = 0
        self.admin_keys: tuple[str, str] = ("", "")
        self.user_keys: tuple[str, str] = ("", "")
        self.started_in = 0.0
        self.timings: dict[str, float] = {}
        self.laggy_watchdog = laggy_watchdog
        self._laggy_since: dict[str, float] = {}
        self._healed_at: dict[str, float] = {}  # pgid -> when the watchdog last treated it
        self.frozen: set[str] = set()  # daemons SIGSTOPped by freeze_daemon
        self.daemon_lock = threading.RLock()  # daemons started and stopped from the watchdog's thread too
        self.laggy_heals: list[dict] = []
        self._watchdog: threading.Thread | None = None
        self._watchdog_stop = threading.Event()
        self.mgr_install_output = ""  # what mgr_module/install.sh printed (cluster/mgr_modules.py)

    # --- info ------------------------------------------------------------------

    @property
    def mgr_ids(self) -> list[str]:
        return ["x", "y"] if self.standby_mgr else ["x"]

    @property
    def prometheus_port(self) -> int:
        return self.prometheus_ports.get(self.active_mgr, 0)

    @property
    def mgr_prometheus_url(self) -> str:
        """/metrics of the mgr prometheus module on the mgr we know to be active.

        Each mgr serves on its own port (mgr/prometheus/<id>/server_port): two mgrs on one host
        cannot share one. After a failover made outside fail_mgr(), call refresh_active_mgr().
        """
        return f"http://127.0.0.1:{self.prometheus_port}/metrics"

    @property
    def rgw_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.rgw_port}"

    def env(self) -> dict[str, str]:
        """Environment for subprocesses that should talk to this cluster (ceph, rados, radosgw-admin)."""
        env = dict(os.environ)
        env["CEPH_CONF"] = str(self.conf_path)
        env["CEPH_KEYRING"] = str(self.keyring_path)
        env.pop("CEPH_ARGS", None)
        return env

    def info(self) -> dict:
        return {
            "dir": str(self.dir),
            "release": self.release.name,
            "fsid": self.fsid,
            "conf": str(self.conf_path),
            "keyring": str(self.keyring_path),
            "keys_file": str(self.keys_path),
            "mon_host": f"[v2:127.0.0.1:{self.mon_port},v1:127.0.0.1:{self.mon_v1_port}]",
            "mgr_prometheus_url": self.mgr_prometheus_url,
            "mgr_prometheus_ports": self.prometheus_ports,
            "active_mgr": self.active_mgr,
            "rgw_endpoint": self.rgw_endpoint if self.with_rgw else None,
            "admin_keys": {"access_key": self.admin_keys[0], "secret_key": self.admin_keys[1]},
            "user_keys": {"access_key": self.user_keys[0], "secret_key": self.user_keys[1]},
            "pids": dict(self.pids),
            "started_in_seconds": round(self.started_in, 1),
            "options": {
                "osds": self.osds,
                "db_sizes": self.db_sizes,
                "block_size": self.block_size,
                "standby_mgr": self.standby_mgr,
                "rgw": self.with_rgw,
                "reshard_objs_per_shard": self.reshard_objs_per_shard,
                "reshard_interval": self.reshard_interval,
                "bucket_shards": self.bucket_shards,
                "extra_mgr_modules": self.extra_mgr_modules,
                "pool_size": self.pool_size,
                "scrub_intervals": list(self.scrub_intervals),
            },
            "start_timings": self.timings,
        }

    @property
    def exporter_rgw_keys(self) -> tuple[str, str]:
        """The keys of the read-only RGW user docs/security.md documents, made at the start."""
        keys = json.loads((self.dir / "rgw-keys.json").read_text())
        return keys["access_key"], keys["secret_key"]

    def _save_info(self) -> None:
        path = self.dir / "cluster.json"
        if self.dir.exists():
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.info(), indent=2))
            os.chmod(tmp, 0o600)  # it holds the S3 keys
            tmp.replace(path)

    @classmethod
    def attach(cls, base_dir: str | os.PathLike) -> TestCluster:
        """A TestCluster for a cluster already running in `base_dir` (e.g. started by the CLI)."""
        d = Path(base_dir).resolve()
        info = json.loads((d / "cluster.json").read_text())
        o = info["options"]
        c = cls(
            base_dir=d, osds=o["osds"], db_sizes=o["db_sizes"], block_size=o["block_size"],
            standby_mgr=o["standby_mgr"], rgw=o["rgw"], reshard_objs_per_shard=o["reshard_objs_per_shard"],
            reshard_interval=o["reshard_interval"], bucket_shards=o["bucket_shards"],
            extra_mgr_modules=o["extra_mgr_modules"], pool_size=o["pool_size"], keep=True,
            scrub_intervals=tuple(o.get("scrub_intervals", (60, 120, 120))),
            release_name=info.get("release"),
        )  # fmt: skip
        c.fsid = info["fsid"]
        c.prometheus_ports = {k: int(v) for k, v in info["mgr_prometheus_ports"].items()}
        c.active_mgr = info["active_mgr"]
        hostport = info["mon_host"].strip("[]").split(",")
        c.mon_port = int(hostport[0].rsplit(":", 1)[1])
        c.mon_v1_port = int(hostport[1].rsplit(":", 1)[1])
        if info["rgw_endpoint"]:
            c.rgw_port = int(info["rgw_endpoint"].rsplit(":", 1)[1])
        c.admin_keys = (info["admin_keys"]["access_key"], info["admin_keys"]["secret_key"])
        c.user_keys = (info["user_keys"]["access_key"], info["user_keys"]["secret_key"])
        c.pids = {k: int(v) for k, v in info["pids"].items()}
        c.started_in = info.get("started_in_seconds", 0.0)
        c.timings = info.get("start_timings", {})
        return c

    # --- lifecycle -------------------------------------------------------------

    def _write_conf(self) -> None:
        d = self.dir
        osd_mem = parse_size(self.osd_memory_target)
        lines = [
            "[global]",
            f"fsid = {self.fsid}",
            f"mon_host = [v2:127.0.0.1:{self.mon_port},v1:127.0.0.1:{self.mon_v1_port}]",
            "auth_cluster_required = cephx",
            "auth_service_required = cephx",
            "auth_client_required = cephx",
            f"keyring = {self.keyring_path}",
            f"run_dir = {d / 'run'}",
            f"admin_socket = {d / 'run'}/$name.asok",
            f"log_file = {d / 'log'}/$name.log",
            f"pid_file = {d / 'run'}/$name.pid",
            f"mon_data = {d}/$name",
            f"mgr_data = {d}/$name",
            f"osd_data = {d}/$name",
            f"crash_dir = {d / 'crash'}",
            # The cluster and audit logs of this cluster, not of every cluster on the host
            # (the default is /var/log/ceph/ceph.$channel.log); tests count commands in it.
            f"mon_cluster_log_file = default={d / 'log'}/ceph.$channel.log cluster={d / 'log'}/ceph.log",
            "ms_bind_ipv4 = true",
            "ms_bind_ipv6 = false",
            "public_addr = 127.0.0.1",
            "public_network = 127.0.0.0/8",
            f"osd_pool_default_size = {self.pool_size}",
            "osd_pool_default_min_size = 1",
            f"osd_pool_default_pg_num = {self.pg_num}",
            f"osd_pool_default_pgp_num = {self.pg_num}",
            "osd_pool_default_pg_autoscale_mode = off",
            "mon_allow_pool_size_one = true",
            "mon_warn_on_pool_no_redundancy = false",
            "mon_allow_pool_delete = true",
            "osd_crush_chooseleaf_type = 0",
            "mon_max_pg_per_osd = 1000",
            "debug_ms = 0",
            "",
            "[mon]",
            "mon_initial_members = a",
            "mon_warn_on_insecure_global_id_reclaim_allowed = false",
            "auth_allow_insecure_global_id_reclaim = false",
            "",
            "[osd]",
            "osd_objectstore = bluestore",
            "bluestore_block_create = true",
            f"bluestore_block_size = {parse_size(self.block_size)}",
            # Outside the OSD directory: BlueStore makes <osd_data>/block.db a symlink to it.
            f"bluestore_block_db_path = {d}/devices/$name.db",
            "bluestore_block_db_create = true",
            "osd_class_update_on_start = false",  # the class is set to hdd before the OSD boots
            f"osd_memory_target = {osd_mem}",
            "bluestore_cache_autotune = false",
            "bluestore_cache_size = 134217728",
            "osd_op_num_shards = 2",
            "osd_op_num_threads_per_shard = 1",
            "osd_scrub_load_threshold = 100",
            "osd_scrub_sleep = 0",
            "osd_scrub_backoff_ratio = 0",  # try to start a due scrub on every tick, not 1 in 3
            "bluestore_fsck_on_mount = false",
            # Pacific's memtable size (Quincy cut it to 16 MiB): RocksDB's WAL then takes ~256 MiB,
            # which a 256 MiB DB cannot hold, so such an OSD spills over at once on every release.
            "bluestore_rocksdb_options_annex = write_buffer_size=268435456",
            "",
            f"[{RGW_NAME}]",
            "rgw_enable_usage_log = false",
            "rgw_thread_pool_size = 64",
            "",
        ]
        for i, size in enumerate(self.db_sizes):
            lines += [f"[osd.{i}]", f"bluestore_block_db_size = {parse_size(size)}", ""]
        self.conf_path.write_text("\n".join(lines))

    def start(self, timeout: float = 240) -> TestCluster:
        """Create and start everything; returns when usable: mon in quorum, mgr active with
        prometheus answering, all OSDs up and in, every PG active+clean, RGW answering, users made."""
        t0 = self._t_last = time.monotonic()
        self.dir.mkdir(parents=True, exist_ok=True)
        for sub in ("run", "log", "crash", "devices"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        self.release.mount_dir(self.dir)
        self.fsid = str(uuid.uuid4())
        self.mon_port, self.mon_v1_port = free_port(), free_port()
        self.prometheus_ports = {ident: free_port() for ident in self.mgr_ids}
        self.active_mgr = "x"
        self.rgw_port = free_port() if self.with_rgw else 0
        self._write_conf()
        self._mark("conf")
        self._start_mon()
        self._mark("mon")
        if self.uses_mgr_module_dir():  # as docs/mgr-module.md has operators do it
            self.install_mgr_modules()
            self.point_managers_at_module_dir()
            self._mark("mgr modules")
        for ident in self.mgr_ids:
            self._create_mgr(ident)
            self.start_daemon(f"mgr.{ident}")
        self._create_osds()
        self._mark("osd mkfs")
        for i in range(self.osds):
            self.start_daemon(f"osd.{i}")
        wait_for(lambda: self.ceph("mgr", "stat", timeout=10).get("available"), 90, what="an active manager")
        self.active_mgr = self.ceph("mgr", "stat", timeout=30)["active_name"]
        self.ceph("mgr", "module", "enable", "prometheus", fmt_json=False)
        self._mark("mgr")
        wait_for(self._all_osds_up, 120, what="all OSDs up and in")
        self._mark("osds up")
        if self.with_rgw:
            # The bucket pools the RGW would create at the first bucket / first PUT, made now so that
            # every pool exists (and is re-peered below) from the start.
            pools = ("default.rgw.buckets.index", "default.rgw.buckets.data")
            self.ceph_batch([f"osd pool create {p} {self.pg_num}" for p in pools]
                            + [f"osd pool application enable {p} rgw" for p in pools])  # fmt: skip
            self._start_rgw()
            self._mark("rgw")
        wait_for(self._pgs_clean, 120, interval=0.5, what="every PG active+clean")
        self.repeer_all()
        self._mark("re-peer")
        self.await_prometheus(60)
        self._mark("prometheus")
        self.started_in = time.monotonic() - t0
        self._save_info()
        if self.started_in > timeout:
            raise TimeoutError(f"cluster took {self.started_in:.0f}s to start")
        if self.laggy_watchdog:
            self._watchdog_stop.clear()
            self._watchdog = threading.Thread(target=self._watch_laggy, name="laggy-watchdog", daemon=True)
            self._watchdog.start()
        return self

    def _mark(self, what: str) -> None:
        self.timings[what] = round(time.monotonic() - getattr(self, "_t_last", time.monotonic()), 1)
        self._t_last = time.monotonic()

    def _all_osds_up(self) -> bool:
        s = self.ceph("osd", "stat", timeout=10)
        return s.get("num_up_osds") == self.osds and s.get("num_in_osds") == self.osds

    def _pgs_clean(self) -> bool:
        s = self.ceph("pg", "stat", timeout=10)
        s = s.get("pg_summary", s)  # Pacific nests the counts under pg_summary
        total = s.get("num_pgs", 0)
        clean = sum(x["num"] for x in s.get("num_pg_by_state", []) if x["name"].startswith("active+clean"))
        return total > 0 and clean == total

    def repeer_all(self, timeout: float = 120, while_down: Callable[[], Any] | None = None) -> None:
        """Restart every OSD (in parallel) and wait for all PGs active+clean; `while_down` is
        called once they were told to stop, before they are seen down.

        Pacific (16.2.15) does not put the PGs of a newly created pool in the scrub queue of their
        primary OSD (`ceph daemon osd.N dump_scrubs` lists none of them) until the PG's primary
        changes; `ceph pg repeer` is not enough, an OSD going down and up is. Without this the PGs
        of a new cluster (or of a pool created later) never scrub on schedule.
        """
        names = [f"osd.{i}" for i in range(self.osds)]
        for name in names:
            pid = self.pids.get(name)
            if pid and self._owned(pid):
                os.kill(pid, signal.SIGTERM)
        if while_down is not None:
            while_down()
        for name in names:
            self.stop_daemon(name, timeout=30)
        # Otherwise the map from before the restart can still say "all up", and the PG stats
        # "all clean", and this returns while the OSDs are still booting. An OSD whose mark-me-down
        # did not reach the monitor in time (CI's loaded Reef: 120 s with the OSDs gone, still up)
        # has no peer left to report it, and the monitor would wait mon_osd_report_timeout
        # (900 s): every OSD is stopped, so mark them down as an operator would.
        ids = [str(i) for i in range(self.osds)]
        wait_for(lambda: self._marked_down(ids), timeout, interval=0.5, what="the OSDs seen down")
        for name in names:
            self.start_daemon(name)
        wait_for(self._all_osds_up, timeout, interval=0.5, what="the OSDs back up")
        wait_for(self._pgs_clean, timeout, interval=0.5, what="every PG active+clean")

    def _marked_down(self, ids: list[str]) -> bool:
        if self.ceph("osd", "stat", timeout=10).get("num_up_osds") == 0:
            return True
        self.ceph("osd", "down", *ids, fmt_json=False, timeout=10)
        return False

    def _start_mon(self) -> None:
        d = self.dir
        mon_keyring = d / "mon.keyring"
        self._run(["ceph-authtool", "--create-keyring", str(mon_keyring), "--gen-key", "-n", "mon.",
                   "--cap", "mon", "allow *"])  # fmt: skip
        self._run(
            ["ceph-authtool", "--create-keyring", str(self.keyring_path), "--gen-key", "-n", "client.admin",
             "--cap", "mon", "allow *", "--cap", "osd", "allow *", "--cap", "mgr", "allow *", "--cap", "mds", "allow *"]
        )  # fmt: skip
        self._run(["ceph-authtool", str(mon_keyring), "--import-keyring", str(self.keyring_path)])
        monmap = d / "monmap"
        self._run(
            ["monmaptool", "--create", "--fsid", self.fsid, "--addv", "a",
             f"[v2:127.0.0.1:{self.mon_port},v1:127.0.0.1:{self.mon_v1_port}]", str(monmap)]
        )  # fmt: skip
        self._run(["ceph-mon", "--conf", str(self.conf_path), "--mkfs", "-i", "a", "--monmap", str(monmap),
                   "--keyring", str(mon_keyring)])  # fmt: skip
        self.start_daemon("mon.a")
        wait_for(lambda: self.ceph("mon", "stat", timeout=10), 60, interval=0.5, what="the monitor")
        settings: list[tuple[str, str, str]] = [
            # Scrubs every minute or two; warnings at osd_scrub_max_interval x 1.5 and
            # osd_deep_scrub_interval x 1.75. In the config database so that `ceph config get`
            # (which the exporter reads) sees what the manager uses.
            ("global", "mon_warn_pg_not_scrubbed_ratio", "0.5"),
            ("global", "mon_warn_pg_not_deep_scrubbed_ratio", "0.75"),
            *(("global", key, str(value)) for key, value in zip(SCRUB_INTERVAL_OPTIONS, self.scrub_intervals)),
            ("global", "mon_pg_warn_min_per_osd", "0"),
            ("global", "mon_data_avail_warn", "1"),
            ("mgr", "mgr/prometheus/server_addr", "127.0.0.1"),
            ("mgr", "mgr/prometheus/server_port", str(self.prometheus_ports["x"])),
            ("mgr", "mgr/prometheus/scrape_interval", "5"),
            ("mgr", "mgr_stats_period", "1"),
            # Resharding within seconds: one shard per new bucket, a low per-shard limit, fresh
            # bucket stats every second, the reshard thread every 10 s (its minimum).
            ("client.rgw", "rgw_dynamic_resharding", "true"),
            ("client.rgw", "rgw_max_objs_per_shard", str(self.reshard_objs_per_shard)),
            ("client.rgw", "rgw_reshard_thread_interval", str(self.reshard_interval)),
            ("client.rgw", "rgw_bucket_quota_ttl", "1"),
            ("client.rgw", "rgw_user_quota_bucket_sync_interval", "1"),
            ("client.rgw", "rgw_user_quota_sync_interval", "1"),
            ("client.rgw", "rgw_override_bucket_index_max_shards", str(self.bucket_shards)),
            # `radosgw-admin bucket limit check` judges against this one, not rgw_max_objs_per_shard.
            ("client", "rgw_safe_max_objects_per_shard", str(self.reshard_objs_per_shard)),
        ]
        if self.release.name != "pacific":
            # From Reef on the stock module leaves per-daemon counters to ceph-exporter, which
            # Debian does not ship; the session's sidecar reads them here, as operators who keep
            # the stock module do. (Without it the sidecar asks the scale module: tested apart.)
            settings.append(("mgr", "mgr/prometheus/exclude_perf_counters", "false"))
        for ident, port in self.prometheus_ports.items():
            # Per-daemon ("localized") option: each mgr's module binds its own port.
            settings.append(("mgr", f"mgr/prometheus/{ident}/server_port", str(port)))
        for who, opts in self.extra_config.items():
            settings += [(who, k, str(v)) for k, v in opts.items()]
        self.set_config(settings)

    def _create_mgr(self, ident: str) -> None:
        mgr_dir = self.dir / f"mgr.{ident}"
        mgr_dir.mkdir(exist_ok=True)
        self.ceph(
            "auth", "get-or-create", f"mgr.{ident}", "mon", "allow profile mgr", "osd", "allow *", "mds", "allow *",
            "-o", str(mgr_dir / "keyring"), fmt_json=False,
        )  # fmt: skip

    def _create_osds(self) -> None:
        """osd new + keyring + crush placement (host bucket, class hdd) + parallel mkfs."""
        mkfs: list[tuple[int, subprocess.Popen]] = []
        # Weight in TiB of the data device, as the OSD would compute it; class hdd before boot.
        weight = f"{parse_size(self.block_size) / 1024**4:.6f}"
        crush = [f"osd crush add-bucket {self.hostname} host", f"osd crush move {self.hostname} root=default"]
        for _ in range(self.osds):
            osd_uuid = str(uuid.uuid4())
            secret = self._run(["ceph-authtool", "--gen-print-key"]).strip()
            new = json.dumps({"cephx_secret": secret}).encode()
            osd_id = int(self.ceph("osd", "new", osd_uuid, "-i", "-", fmt_json=False, input_data=new).strip())
            osd_dir = self.dir / f"osd.{osd_id}"
            osd_dir.mkdir(exist_ok=True)
            self._run(["ceph-authtool", "--create-keyring", str(osd_dir / "keyring"), "--name", f"osd.{osd_id}",
                       "--add-key", secret])  # fmt: skip
            crush.append(f"osd crush add osd.{osd_id} {weight} host={self.hostname}")
            log = open(self.dir / "log" / f"osd.{osd_id}.mkfs", "wb")
            mkfs.append((osd_id, subprocess.Popen(self.release.command(
                ["ceph-osd", "--conf", str(self.conf_path), "-i", str(osd_id), "--mkfs", "--osd-uuid", osd_uuid,
                 "--keyring", str(osd_dir / "keyring")]), stdout=log, stderr=subprocess.STDOUT, env=self.env(),
            )))  # fmt: skip
            log.close()
        crush.append("osd crush set-device-class hdd " + " ".join(f"osd.{i}" for i, _ in mkfs))
        self.ceph_batch(crush)
        for osd_id, proc in mkfs:
            if proc.wait(180) != 0:
                raise CephError(f"ceph-osd --mkfs for osd.{osd_id} failed, see {self.dir}/log/osd.{osd_id}.mkfs")

    def _start_rgw(self) -> None:
        rgw_dir = self.dir / RGW_NAME
        rgw_dir.mkdir(exist_ok=True)
        self.ceph(
            "auth", "get-or-create", RGW_NAME, "mon", "allow rw", "osd", "allow rwx", "mgr", "allow rw",
            "-o", str(rgw_dir / "keyring"), fmt_json=False,
        )  # fmt: skip
        self.start_daemon(RGW_NAME)
        wait_for(self.rgw_answers, 120, interval=0.5, what="the RGW")
        admin = self.radosgw_admin(
            "user", "create", "--uid", "scale-admin", "--display-name", "ceph-scale admin",
            "--caps", "buckets=*;users=*;metadata=*;usage=*;zone=*",
        )  # fmt: skip
        self.admin_keys = (admin["keys"][0]["access_key"], admin["keys"][0]["secret_key"])
        user = self.radosgw_admin("user", "create", "--uid", "loadgen", "--display-name", "S3 load")
        self.user_keys = (user["keys"][0]["access_key"], user["keys"][0]["secret_key"])
        # What an exporter is given: the read-only RGW user docs/security.md has operators make,
        # by its command, in the exporter's credentials_file shape.
        access, secret = self.create_documented_rgw_user(SECURITY_DOC, DOCUMENTED_RGW_USER)
        for path, data in (
            (self.keys_path, {"admin": self.info()["admin_keys"], "user": self.info()["user_keys"]}),
            (self.dir / "rgw-keys.json", {"access_key": access, "secret_key": secret}),
        ):
            path.write_text(json.dumps(data, indent=2))
            os.chmod(path, 0o600)

    def rgw_answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.rgw_endpoint, timeout=3) as r:
                return r.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def stop(self, keep: bool | None = None, timeout: float = 20) -> None:
        """Stop every daemon by PID (rgw, osds, mgrs, then the mon); remove the directory unless keep.

        keep=None uses the constructor's `keep`. A directory we did not create (base_dir given)
        keeps its log/ subdirectory and cluster.json; everything else in it is removed.
        """
        keep = self.keep if keep is None else keep
        self._watchdog_stop.set()
        if self._watchdog is not None:
            self._watchdog.join(60)  # a restart of an OSD under way takes up to 45 s
            self._watchdog = None
        order = {"client": 0, "osd": 1, "mgr": 2, "mon": 3}
        for name in sorted(self.pids, key=lambda n: (order.get(n.split(".")[0], 9), n)):
            self.stop_daemon(name, timeout=timeout)
        self.release.unmount_dir(self.dir)
        if keep:
            return
        if self.owns_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            for entry in self.dir.iterdir():
                if entry.name in ("log", "cluster.json"):
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)

    def __enter__(self) -> TestCluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


# --- CLI ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cluster.testcluster", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("start", help="start a cluster in DIR, print its connection info as JSON, leave it running")
    s.add_argument("--dir", required=True)
    s.add_argument("--osds", type=int, default=3)
    s.add_argument("--db-sizes", default="256M,1G,1G", help="per OSD, comma-separated; the last repeats")
    s.add_argument("--block-size", default="4G")
    s.add_argument("--standby-mgr", action="store_true")
    s.add_argument("--no-rgw", action="store_true")
    s.add_argument("--pool-size", type=int, default=1)
    s.add_argument("--reshard-objs-per-shard", type=int, default=100)
    s.add_argument("--mgr-module", action="append", default=[], metavar="NAME=PATH", help="an extra mgr module")
    s.add_argument("--release", choices=RELEASES, default=None, help="Ceph release (default: the host's, pacific)")
    t = sub.add_parser("stop", help="stop every daemon of DIR by PID and remove DIR")
    t.add_argument("--dir", required=True)
    t.add_argument("--keep", action="store_true", help="keep DIR (data, logs)")
    t.add_argument("--timeout", type=float, default=20, help="seconds between SIGTERM and SIGKILL")
    st = sub.add_parser("status", help="connection info, which daemons run, and `ceph health`")
    st.add_argument("--dir", required=True)
    args = p.parse_args(argv)
    d = Path(args.dir)
    if args.cmd == "start":
        if (d / "cluster.json").exists():
            p.error(f"{d} already holds a cluster (stop it, or remove the directory)")
        modules = dict(m.split("=", 1) for m in args.mgr_module)
        c = TestCluster(
            base_dir=d, osds=args.osds, db_sizes=tuple(args.db_sizes.split(",")), block_size=args.block_size,
            standby_mgr=args.standby_mgr, rgw=not args.no_rgw, extra_mgr_modules=modules, keep=True,
            pool_size=args.pool_size, reshard_objs_per_shard=args.reshard_objs_per_shard,
            release_name=args.release,
        )  # fmt: skip
        try:
            c.start()
        except BaseException:
            c.stop(keep=True)
            raise
        print(json.dumps(c.info(), indent=2))
        return 0  # the daemons run on in their own sessions
    if not (d / "cluster.json").exists():
        p.error(f"no cluster.json in {d}")
    c = TestCluster.attach(d)
    if args.cmd == "stop":
        c.owns_dir = True  # the CLI removes the whole directory
        c.stop(keep=args.keep, timeout=args.timeout)
        return 0
    info = c.info()
    info["running"] = c.running()
    try:
        info["health"] = c.ceph("health", timeout=10)
    except CephError as e:
        info["health"] = str(e)
    print(json.dumps(info, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
