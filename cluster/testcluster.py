"""A throwaway real Ceph cluster from Debian's binaries, on loopback, under one directory.

1 mon, 1 or 2 mgrs, N BlueStore OSDs on plain files each with a separate DB
file, and an RGW (beast) on a free port. No systemd: every daemon runs in the
foreground as our child, its PID recorded, and is stopped by that PID.

    python -m cluster.testcluster start --dir /tmp/c   # prints connection info as JSON
    python -m cluster.testcluster stop --dir /tmp/c
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
import time
import uuid
from pathlib import Path
from typing import Any

STOCK_MGR_DIR = Path("/usr/share/ceph/mgr")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_size(text: str) -> int:
    units = {"K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
    text = str(text).strip().upper().rstrip("IB")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def wait_for(predicate, timeout: float, interval: float = 1.0, what: str = "condition") -> Any:
    end = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < end:
        try:
            value = predicate()
            if value:
                return value
        except Exception as e:  # not ready yet
            last = e
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:g}s waiting for {what}" + (f" (last error: {last})" if last else ""))


class CephError(RuntimeError):
    pass


class TestCluster:
    __test__ = False  # not a pytest test class

    def __init__(
        self,
        base_dir: str | None = None,
        osds: int = 3,
        db_sizes: tuple[str, ...] = ("256M", "1G", "1G"),
        block_size: str = "4G",
        standby_mgr: bool = False,
        rgw: bool = True,
        reshard_objs_per_shard: int = 100,
        extra_mgr_modules: dict[str, str] | None = None,
        keep: bool = False,
    ) -> None:
        self.owns_dir = base_dir is None
        self.dir = Path(base_dir or tempfile.mkdtemp(prefix="ceph-test-"))
        self.osds = osds
        self.db_sizes = [db_sizes[i] if i < len(db_sizes) else db_sizes[-1] for i in range(osds)]
        self.block_size = block_size
        self.standby_mgr = standby_mgr
        self.with_rgw = rgw
        self.reshard_objs_per_shard = reshard_objs_per_shard
        self.extra_mgr_modules = dict(extra_mgr_modules or {})
        self.keep = keep
        self.conf_path = self.dir / "ceph.conf"
        self.keyring_path = self.dir / "keyring"
        self.fsid = ""
        self.procs: dict[str, subprocess.Popen] = {}
        self.mon_port = 0
        self.mon_v1_port = 0
        self.prometheus_port = 0
        self.rgw_port = 0
        self.admin_keys: tuple[str, str] = ("", "")
        self.user_keys: tuple[str, str] = ("", "")

    # --- info ------------------------------------------------------------------

    @property
    def mgr_prometheus_url(self) -> str:
        return f"http://127.0.0.1:{self.prometheus_port}/metrics"

    @property
    def rgw_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.rgw_port}"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["CEPH_CONF"] = str(self.conf_path)
        return env

    def info(self) -> dict:
        return {
            "dir": str(self.dir),
            "fsid": self.fsid,
            "conf": str(self.conf_path),
            "keyring": str(self.keyring_path),
            "mgr_prometheus_url": self.mgr_prometheus_url,
            "rgw_endpoint": self.rgw_endpoint if self.with_rgw else None,
            "admin_keys": {"access_key": self.admin_keys[0], "secret_key": self.admin_keys[1]},
            "user_keys": {"access_key": self.user_keys[0], "secret_key": self.user_keys[1]},
            "pids": {name: p.pid for name, p in self.procs.items()},
        }

    # --- commands --------------------------------------------------------------

    def _run(self, argv: list[str], timeout: float = 60, input_data: bytes | None = None) -> str:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout, input=input_data, env=self.env())
        if proc.returncode != 0:
            raise CephError(f"{' '.join(argv[:6])}... exited {proc.returncode}: {proc.stderr.decode()[-800:]}")
        return proc.stdout.decode()

    def ceph(self, *args: str, fmt_json: bool = True, timeout: float = 60, input_data: bytes | None = None) -> Any:
        argv = ["ceph", "--conf", str(self.conf_path), *args]
        if fmt_json:
            argv += ["--format", "json"]
        out = self._run(argv, timeout, input_data)
        if not fmt_json:
            return out
        out = out.strip()
        return json.loads(out) if out else None

    def radosgw_admin(self, *args: str, fmt_json: bool = True, timeout: float = 60) -> Any:
        out = self._run(["radosgw-admin", "--conf", str(self.conf_path), *args], timeout).strip()
        return json.loads(out) if (fmt_json and out) else out

    def admin_socket(self, daemon: str, *args: str, timeout: float = 30) -> Any:
        out = self._run(["ceph", "--conf", str(self.conf_path), "daemon", daemon, *args], timeout).strip()
        try:
            return json.loads(out) if out else None
        except json.JSONDecodeError:
            return out

    # --- lifecycle -------------------------------------------------------------

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.dir / "log" / f"{name}.stdout", "ab")
        self.procs[name] = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, env=self.env(), start_new_session=True
        )
        (self.dir / "run" / f"{name}.pid").write_text(str(self.procs[name].pid))

    def _write_conf(self) -> None:
        d = self.dir
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
            "ms_bind_ipv4 = true",
            "public_addr = 127.0.0.1",
            "osd_pool_default_size = 1",
            "osd_pool_default_min_size = 1",
            "osd_pool_default_pg_num = 8",
            "osd_pool_default_pgp_num = 8",
            "osd_pool_default_pg_autoscale_mode = off",
            "mon_allow_pool_size_one = true",
            "mon_warn_on_pool_no_redundancy = false",
            "mon_allow_pool_delete = true",
            "osd_crush_chooseleaf_type = 0",
            "mon_max_pg_per_osd = 1000",
            "debug_ms = 0",
            "crash_dir = " + str(d / "crash"),
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
            # Outside the OSD directory: BlueStore links <osd_data>/block.db to it.
            f"bluestore_block_db_path = {d}/devices/$name.db",
            "bluestore_block_db_create = true",
            "osd_memory_target = 939524096",
            "bluestore_cache_autotune = false",
            "bluestore_cache_size = 134217728",
            "osd_op_num_shards = 2",
            "osd_op_num_threads_per_shard = 1",
            "osd_scrub_load_threshold = 100",
            "osd_scrub_sleep = 0",
            "bluestore_fsck_on_mount = false",
            "",
            "[client.rgw.a]",
            "rgw_enable_usage_log = false",
            "rgw_thread_pool_size = 64",
            "",
        ]
        for i, size in enumerate(self.db_sizes):
            lines += [f"[osd.{i}]", f"bluestore_block_db_size = {parse_size(size)}", ""]
        self.conf_path.write_text("\n".join(lines))

    def start(self) -> TestCluster:
        t0 = time.monotonic()
        for sub in ("run", "log", "crash", "devices"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        self.fsid = str(uuid.uuid4())
        self.mon_port, self.mon_v1_port = free_port(), free_port()
        self.prometheus_port = free_port()
        self.rgw_port = free_port()
        self._write_conf()
        self._start_mon()
        self._start_mgr("x")
        if self.standby_mgr:
            self._start_mgr("y")
        self._start_osds()
        if self.with_rgw:
            self._start_rgw()
        self.started_in = time.monotonic() - t0
        (self.dir / "cluster.json").write_text(json.dumps(self.info(), indent=2))
        return self

    def _start_mon(self) -> None:
        d = self.dir
        mon_keyring = d / "mon.keyring"
        self._run(
            [
                "ceph-authtool",
                "--create-keyring",
                str(mon_keyring),
                "--gen-key",
                "-n",
                "mon.",
                "--cap",
                "mon",
                "allow *",
            ]
        )
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
        self._run(
            ["ceph-mon", "--conf", str(self.conf_path), "--mkfs", "-i", "a", "--monmap", str(monmap),
             "--keyring", str(mon_keyring)]
        )  # fmt: skip
        self.start_daemon("mon.a")
        wait_for(lambda: self.ceph("mon", "stat", timeout=10), 60, what="the monitor")
        # Scrub options live in the config database so that `config get` (which the
        # exporter reads) sees what the manager uses for PG_NOT_SCRUBBED.
        for who, key, value in (
            ("global", "mon_warn_pg_not_scrubbed_ratio", "0.5"),
            ("global", "mon_warn_pg_not_deep_scrubbed_ratio", "0.75"),
            ("mgr", "mgr/prometheus/server_addr", "127.0.0.1"),
            ("mgr", "mgr/prometheus/server_port", str(self.prometheus_port)),
            ("mgr", "mgr/prometheus/scrape_interval", "5"),
            ("mgr", "mgr_stats_period", "1"),
            ("global", "mon_pg_warn_min_per_osd", "0"),
            ("global", "mon_data_avail_warn", "1"),
            # Resharding within seconds: a low per-shard limit, one shard per new
            # bucket, fresh bucket stats every second, the reshard thread every 10 s
            # (its minimum). In the config database, where the exporter reads them.
            ("client.rgw", "rgw_dynamic_resharding", "true"),
            ("client.rgw", "rgw_max_objs_per_shard", str(self.reshard_objs_per_shard)),
            ("client.rgw", "rgw_reshard_thread_interval", "10"),
            ("client.rgw", "rgw_bucket_quota_ttl", "1"),
            ("client.rgw", "rgw_user_quota_bucket_sync_interval", "1"),
            ("client.rgw", "rgw_user_quota_sync_interval", "1"),
            ("client.rgw", "rgw_override_bucket_index_max_shards", "1"),
        ):
            # --force: module options are unknown to the monitor until a manager reports them.
            self.ceph("config", "set", who, key, value, "--force", fmt_json=False)

    def _mgr_module_path(self) -> Path | None:
        if not self.extra_mgr_modules:
            return None
        path = self.dir / "mgr-modules"
        path.mkdir(exist_ok=True)
        for entry in STOCK_MGR_DIR.iterdir():
            link = path / entry.name
            if not link.exists():
                link.symlink_to(entry)
        for name, src in self.extra_mgr_modules.items():
            link = path / name
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(Path(src).resolve())
        return path

    def _start_mgr(self, ident: str) -> None:
        mgr_dir = self.dir / f"mgr.{ident}"
        mgr_dir.mkdir(exist_ok=True)
        self.ceph(
            "auth", "get-or-create", f"mgr.{ident}", "mon", "allow profile mgr", "osd", "allow *", "mds", "allow *",
            "-o", str(mgr_dir / "keyring"), fmt_json=False,
        )  # fmt: skip
        self.start_daemon(f"mgr.{ident}")
        if ident == "x":
            wait_for(lambda: self.ceph("mgr", "stat", timeout=10).get("available"), 90, what="an active manager")
            self.ceph("mgr", "module", "enable", "prometheus", fmt_json=False)

    def _start_osds(self) -> None:
        for _ in range(self.osds):
            osd_uuid = str(uuid.uuid4())
            secret = self._run(["ceph-authtool", "--gen-print-key"]).strip()
            new = json.dumps({"cephx_secret": secret}).encode()
            osd_id = int(self.ceph("osd", "new", osd_uuid, "-i", "-", fmt_json=False, input_data=new).strip())
            osd_dir = self.dir / f"osd.{osd_id}"
            osd_dir.mkdir(exist_ok=True)
            self._run(
                ["ceph-authtool", "--create-keyring", str(osd_dir / "keyring"), "--name", f"osd.{osd_id}",
                 "--add-key", secret]
            )  # fmt: skip
            self._run(
                ["ceph-osd", "--conf", str(self.conf_path), "-i", str(osd_id), "--mkfs", "--osd-uuid", osd_uuid,
                 "--keyring", str(osd_dir / "keyring")], timeout=180,
            )  # fmt: skip
            self._spawn(
                f"osd.{osd_id}",
                [
                    "ceph-osd",
                    "-f",
                    "--conf",
                    str(self.conf_path),
                    "-i",
                    str(osd_id),
                    "--keyring",
                    str(osd_dir / "keyring"),
                ],
            )
        wait_for(lambda: self.ceph("osd", "stat", timeout=10).get("num_up_osds") == self.osds, 120, what="all OSDs up")
        for i in range(self.osds):
            self.ceph("osd", "crush", "rm-device-class", f"osd.{i}", fmt_json=False)
            self.ceph("osd", "crush", "set-device-class", "hdd", f"osd.{i}", fmt_json=False)

    def _start_rgw(self) -> None:
        rgw_dir = self.dir / "client.rgw.a"
        rgw_dir.mkdir(exist_ok=True)
        self.ceph(
            "auth", "get-or-create", "client.rgw.a", "mon", "allow rw", "osd", "allow rwx", "mgr", "allow rw",
            "-o", str(rgw_dir / "keyring"), fmt_json=False,
        )  # fmt: skip
        self.start_daemon("client.rgw.a")
        wait_for(self._rgw_answers, 120, what="the RGW")
        admin = self.radosgw_admin(
            "user", "create", "--uid", "scale-admin", "--display-name", "ceph-scale admin",
            "--caps", "buckets=*;users=*;metadata=*;usage=*;zone=*",
        )  # fmt: skip
        self.admin_keys = (admin["keys"][0]["access_key"], admin["keys"][0]["secret_key"])
        user = self.radosgw_admin("user", "create", "--uid", "loadgen", "--display-name", "S3 load")
        self.user_keys = (user["keys"][0]["access_key"], user["keys"][0]["secret_key"])
        (self.dir / "rgw-keys.json").write_text(json.dumps(self.info()["admin_keys"]))

    def _rgw_answers(self) -> bool:
        import urllib.request

        try:
            with urllib.request.urlopen(self.rgw_endpoint, timeout=3) as r:
                return r.status == 200
        except OSError:
            return False

    # --- daemons ---------------------------------------------------------------

    def stop_daemon(self, name: str, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
        proc = self.procs.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)

    def start_daemon(self, name: str) -> None:
        kind, _, ident = name.partition(".")
        conf = ["--conf", str(self.conf_path)]
        if kind == "mon":
            self._spawn(name, ["ceph-mon", "-f", *conf, "-i", ident])
        elif kind == "mgr":
            argv = ["ceph-mgr", "-f", *conf, "-i", ident, "--keyring", str(self.dir / name / "keyring")]
            module_path = self._mgr_module_path()
            if module_path:
                argv += ["--mgr_module_path", str(module_path)]
            self._spawn(name, argv)
        elif kind == "osd":
            self._spawn(name, ["ceph-osd", "-f", *conf, "-i", ident, "--keyring", str(self.dir / name / "keyring")])
        elif name == "client.rgw.a":
            self._spawn(
                name,
                ["radosgw", "-f", *conf, "-n", name, "--keyring", str(self.dir / name / "keyring"),
                 "--rgw_frontends", f"beast endpoint=127.0.0.1:{self.rgw_port}"],
            )  # fmt: skip
        else:
            raise ValueError(f"unknown daemon {name}")

    def stop(self) -> None:
        for name in sorted(self.procs, key=lambda n: (n.startswith("mon"), n)):  # monitors last
            self.stop_daemon(name, timeout=20)
        if not self.keep and self.owns_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        elif not self.keep:
            for sub in self.dir.glob("osd.*"):
                shutil.rmtree(sub, ignore_errors=True)

    def __enter__(self) -> TestCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- study conditions ------------------------------------------------------

    def bluefs(self, osd_id: int) -> dict:
        return self.ceph("tell", f"osd.{osd_id}", "perf", "dump", "bluefs")["bluefs"]

    def make_nearfull(self, osd_id: int) -> None:
        self.admin_socket(f"osd.{osd_id}", "injectfull", "nearfull")

    def clear_nearfull(self, osd_id: int) -> None:
        self.admin_socket(f"osd.{osd_id}", "injectfull", "none")

    def block_scrubs(self, max_interval: int = 60, deep_interval: int = 90) -> None:
        """noscrub/nodeep-scrub plus short intervals: PGs become overdue within about a minute."""
        self.ceph("osd", "set", "noscrub", fmt_json=False)
        self.ceph("osd", "set", "nodeep-scrub", fmt_json=False)
        for key, value in (
            ("osd_scrub_min_interval", "20"),
            ("osd_scrub_max_interval", str(max_interval)),
            ("osd_deep_scrub_interval", str(deep_interval)),
        ):
            self.ceph("config", "set", "global", key, value, fmt_json=False)

    def unblock_scrubs(self) -> None:
        self.ceph("osd", "unset", "noscrub", fmt_json=False)
        self.ceph("osd", "unset", "nodeep-scrub", fmt_json=False)

    def health_checks(self) -> dict:
        return self.ceph("health", "detail").get("checks", {})


def _load(dir_: Path) -> dict:
    return json.loads((dir_ / "cluster.json").read_text())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cluster.testcluster")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("start")
    s.add_argument("--dir", required=True)
    s.add_argument("--osds", type=int, default=3)
    s.add_argument("--db-sizes", default="256M,1G,1G")
    s.add_argument("--standby-mgr", action="store_true")
    s.add_argument("--no-rgw", action="store_true")
    s.add_argument("--mgr-module", action="append", default=[], help="NAME=PATH of an extra mgr module")
    t = sub.add_parser("stop")
    t.add_argument("--dir", required=True)
    st = sub.add_parser("status")
    st.add_argument("--dir", required=True)
    args = p.parse_args(argv)
    d = Path(args.dir)
    if args.cmd == "start":
        d.mkdir(parents=True, exist_ok=True)
        modules = dict(m.split("=", 1) for m in args.mgr_module)
        c = TestCluster(
            base_dir=str(d), osds=args.osds, db_sizes=tuple(args.db_sizes.split(",")),
            standby_mgr=args.standby_mgr, rgw=not args.no_rgw, extra_mgr_modules=modules, keep=True,
        )  # fmt: skip
        c.start()
        print(json.dumps(c.info(), indent=2))
        # Detach: the daemons keep running after this process exits.
        return 0
    if args.cmd == "stop":
        info = _load(d)
        for _name, pid in sorted(info["pids"].items(), key=lambda kv: kv[0].startswith("mon")):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.2)
            else:
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(d, ignore_errors=True)
        return 0
    info = _load(d)
    print(json.dumps(info, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
