"""What the sidecar holds through a long monitor outage: open files, threads and memory.

    .venv/bin/python -m bench.soak --minutes 60                 # + ~2 minutes for the cluster
    .venv/bin/python -m bench.soak --minutes 5 --no-cluster     # the outage scenario alone

Runs the real sidecar (`python -m exporter`, librados backend) as a child process in two
scenarios side by side:

- outage: its ceph.conf names a monitor on a loopback port where nothing listens, for the
  whole run; every librados connect fails after the connect timeout;
- flapping: a real throwaway Pacific cluster (cluster/testcluster.py: one mon, one mgr, one
  OSD, no RGW) whose monitor is stopped and started by PID, each state held --flap-minutes.
  Its managers get the ceph-mgr module `scale` installed and enabled as docs/mgr-module.md has
  operators do it (bench/soak_module.py); the active ceph-mgr is sampled as one more row group,
  whose figures are the whole manager's, the manager itself included.

Every --sample-seconds it reads each sidecar's /proc (open descriptors, threads, RSS) and
scrapes its /metrics, and at the end prints per scenario the figures at the start (after
the warm-up, once every source has run and failed), their maximum and at the end, with the
ratio end/start; then how each source's `ceph_scale_source_success` read in the scrapes taken
while the monitor had been down long enough for every source to have failed (0, 1 or absent).
For the module, whether its /metrics answered while the monitor was down and after it came back.
A command, not a test: tests/unit/test_outage_handles.py checks the same flatness in seconds.
Everything it starts (sidecars, cluster daemons) is stopped by PID on the way out, and the
run ends by --minutes plus the cluster's start, whatever happens.
"""

from __future__ import annotations

import argparse
import base64
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bench.process_figures import proc_figures

REPO = Path(__file__).resolve().parent.parent
SUCCESS_LINE = re.compile(r'^ceph_scale_source_success\{[^}]*source="([^"]+)"[^}]*\} (\S+)$', re.M)
# The sources a sidecar without RGW credentials runs (buckets needs the Admin Ops API).
SOURCES = ("osd_map", "capacity", "perf", "pgs", "settings", "health", "reshard")
# A source has certainly failed once the monitor has been down this long: the longest
# interval (pgs, 60 s) plus its timeout (30 s) plus the runner's grace second and slack.
ALL_FAILED_AFTER = 100.0


def free_port() -> int:
    from cluster.helpers import free_port as cluster_free_port

    return cluster_free_port()


def scrape(port: int) -> dict[str, str]:
    """source -> its ceph_scale_source_success value; {} when the scrape failed."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            text = r.read().decode()
    except OSError:
        return {}
    return dict(SUCCESS_LINE.findall(text))


@dataclass
class Sidecar:
    name: str
    conf: Path
    keyring: Path | None
    log_path: Path
    port: int = 0
    proc: subprocess.Popen | None = None
    samples: list[tuple[float, int, int, float]] = field(default_factory=list)  # t, fds, threads, MB
    outage_reads: dict[str, dict[str, int]] = field(default_factory=dict)  # source -> value -> count
    up_reads: dict[str, dict[str, int]] = field(default_factory=dict)
    died: str = ""

    def start(self) -> None:
        self.port = free_port()
        argv = [sys.executable, "-m", "exporter", f"--web.listen-address=127.0.0.1:{self.port}",
                f"--ceph-conf={self.conf}", "--ceph-client=rados", "--log.level=warning"]  # fmt: skip
        if self.keyring:
            argv.append(f"--ceph-keyring={self.keyring}")
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(argv, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def sample(self, t: float, mon_down_for: float | None, mon_up_for: float | None) -> None:
        """mon_down_for / mon_up_for: how long the monitor has been down / up (None: it is not)."""
        assert self.proc is not None
        if self.died:
            return
        if self.proc.poll() is not None:
            self.died = f"exited {self.proc.returncode} at {t:.0f} s"
            return
        try:
            self.samples.append((t, *proc_figures(self.proc.pid)))
        except (OSError, KeyError, ValueError):
            return
        for held, reads in ((mon_down_for, self.outage_reads), (mon_up_for, self.up_reads)):
            if held is not None and held >= ALL_FAILED_AFTER:
                self.count(reads, scrape(self.port))

    @staticmethod
    def count(into: dict[str, dict[str, int]], reads: dict[str, str]) -> None:
        into.setdefault("(scrapes)", {}).setdefault("n", 0)
        into["(scrapes)"]["n"] += 1
        for source in SOURCES:
            counts = into.setdefault(source, {})
            value = reads.get(source, "absent")
            counts[value] = counts.get(value, 0) + 1

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def dead_monitor_conf(work: Path) -> tuple[Path, Path]:
    """A ceph.conf whose only monitor is a loopback port nothing listens on, and a keyring
    (a random cephx key, so that the client goes as far as a real one would)."""
    secret = struct.pack("<HIIH", 1, 0, 0, 16) + os.urandom(16)  # Ceph's CryptoKey encoding, AES
    keyring = work / "dead.keyring"
    keyring.write_text(f"[client.admin]\n\tkey = {base64.b64encode(secret).decode()}\n")
    conf = work / "dead.conf"
    conf.write_text(f"[global]\nfsid = 00000000-0000-0000-0000-000000000000\nmon_host = 127.0.0.1:{free_port()}\n")
    return conf, keyring


class MonitorFlapper:
    """The cluster's monitor up for `hold` seconds, down for `hold` seconds, and so on."""

    def __init__(self, cluster, hold: float) -> None:
        self.cluster = cluster
        self.hold = hold
        self.down_since: float | None = None
        self.transitions = 0

    def step(self, t: float) -> None:
        want_down = int(t // self.hold) % 2 == 1
        if want_down and self.down_since is None:
            self.cluster.stop_daemon("mon.a")
            self.down_since = t
            self.transitions += 1
        elif not want_down and self.down_since is not None:
            self.cluster.start_daemon("mon.a")
            self.down_since = None
            self.transitions += 1

    def down_for(self, t: float) -> float | None:
        return None if self.down_since is None else t - self.down_since

    def up_for(self, t: float) -> float | None:
        if self.down_since is not None:
            return None
        return t - int(t // self.hold) * self.hold


def start_cluster(work: Path):
    from bench.soak_module import module_dir
    from cluster.testcluster import TestCluster

    cluster = TestCluster(work / "cluster", osds=1, db_sizes=("1G",), rgw=False, laggy_watchdog=False,
                          extra_mgr_modules=module_dir())  # fmt: skip
    try:
        cluster.start()
        # The reshard source reads RGW's log pool: made here so that its reads succeed while the
        # monitor is up, and fail only for the outage.
        cluster.ceph("osd", "pool", "create", "default.rgw.log", "8", fmt_json=False)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def table(measured: list, warmup: float) -> str:
    """Sidecars and the module's manager (anything with name, samples and died)."""
    w = max([len("scenario")] + [len(s.name) for s in measured])
    rows = [f"{'scenario':<{w}} {'figure':<14} {'start':>9} {'max':>9} {'end':>9} {'end/start':>10}"]
    for s in measured:
        after = [x for x in s.samples if x[0] >= warmup] or s.samples
        if not after:
            rows.append(f"{s.name:<{w}} no sample {s.died}")
            continue
        for i, figure in ((1, "open files"), (2, "threads"), (3, "RSS MB")):
            first, top, last = after[0][i], max(x[i] for x in after), after[-1][i]
            rows.append(f"{s.name:<{w}} {figure:<14} {first:>9.1f} {top:>9.1f} {last:>9.1f} {last / first:>10.2f}")
        rows.append(f"{s.name:<{w}} {'(at)':<14} {after[0][0]:>8.0f}s {'':>9} {after[-1][0]:>8.0f}s")
        if s.died:
            rows.append(f"{s.name:<{w}} DIED: {s.died}")
    return "\n".join(rows)


def success_report(sidecars: list[Sidecar]) -> str:
    rows = []
    for title, which in (("down", "outage_reads"), ("up", "up_reads")):
        if not any(getattr(s, which) for s in sidecars):
            continue
        rows.append(f"ceph_scale_source_success in the scrapes taken once the monitor had been {title} "
                    f"{ALL_FAILED_AFTER:g} s or more (value: scrapes):")  # fmt: skip
        for s in sidecars:
            reads = getattr(s, which)
            if not reads:
                continue
            rows.append(f"  {s.name} ({reads['(scrapes)']['n']} scrapes):")
            for source in SOURCES:
                text = ", ".join(f"{value}: {n}" for value, n in sorted(reads.get(source, {}).items()))
                rows.append(f"    {source:<10} {text}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--minutes", type=float, default=60, help="how long the sidecars run (default 60)")
    p.add_argument("--flap-minutes", type=float, default=3, help="how long the monitor stays up, then down (default 3)")
    p.add_argument("--sample-seconds", type=float, default=30, help="between two samples (default 30)")
    p.add_argument("--warmup-seconds", type=float, default=120, help="the 'start' sample is the first after it")
    p.add_argument("--no-cluster", action="store_true", help="the outage scenario alone, no real cluster")
    args = p.parse_args(argv)
    if args.minutes <= 0 or args.flap_minutes <= 0 or args.sample_seconds <= 0:
        p.error("--minutes, --flap-minutes and --sample-seconds must be positive")

    def interrupted(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupted)
    work = Path(tempfile.mkdtemp(prefix="ceph-scale-soak-"))
    cluster = None
    sidecars: list[Sidecar] = []
    flapper: MonitorFlapper | None = None
    module = None
    try:
        outage = Sidecar("outage", *dead_monitor_conf(work), work / "outage.log")
        sidecars.append(outage)
        if not args.no_cluster:
            print("starting a one-OSD Pacific cluster ...", flush=True)
            try:
                cluster = start_cluster(work)
            except Exception as e:  # the outage scenario still runs; the table says what is missing
                print(f"the cluster did not start ({type(e).__name__}: {e}); the flapping scenario is not run")
            else:
                print(f"cluster up in {cluster.started_in:.0f} s; mon.a pid {cluster.pids['mon.a']}", flush=True)
                flapper = MonitorFlapper(cluster, args.flap_minutes * 60)
                sidecars.append(Sidecar("flapping", cluster.conf_path, cluster.keyring_path, work / "flapping.log"))
                module = enable_module(cluster)
        for s in sidecars:
            s.start()
            print(f"{s.name}: sidecar pid {s.proc.pid if s.proc else '?'} on port {s.port}", flush=True)
        started = time.monotonic()
        end = started + args.minutes * 60
        next_sample = started + 2.0
        while True:
            now = time.monotonic()
            t = now - started
            if flapper is not None:
                flapper.step(t)
            if now >= next_sample or now >= end:
                for s in sidecars:
                    if s is outage:
                        s.sample(t, t, None)
                    elif flapper is not None:
                        s.sample(t, flapper.down_for(t), flapper.up_for(t))
                if module is not None and flapper is not None:
                    module.sample(t, flapper.down_for(t), flapper.down_for(t) is None and flapper.transitions >= 2)
                last = ", ".join(f"{s.name} {s.samples[-1][1]} fds/{s.samples[-1][2]} thr/{s.samples[-1][3]:.0f} MB"
                                 for s in [*sidecars, *([module] if module else [])] if s.samples)  # fmt: skip
                print(f"[{t:6.0f} s] {last}", flush=True)
                next_sample += args.sample_seconds
            if now >= end or all(s.died for s in [*sidecars, *([module] if module else [])]):
                break
            time.sleep(min(1.0, max(0.0, min(next_sample, end) - time.monotonic())))
    except KeyboardInterrupt as e:
        print(f"interrupted ({e}); cleaning up", flush=True)
    finally:
        for s in sidecars:
            s.stop()
        if cluster is not None:
            cluster.stop()
        for s in sidecars:
            if s.died and s.log_path.exists():
                print(
                    f"{s.name}: the end of its log:\n"
                    + "".join(s.log_path.read_text(errors="replace").splitlines(True)[-20:])
                )
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(f"soak: {args.minutes:g} min; flapping: monitor up/down every {args.flap_minutes:g} min"
          + (f" ({flapper.transitions} transitions)" if flapper else " (not run)"))  # fmt: skip
    if module is not None:
        print(f"{module.name}: the figures are the whole ceph-mgr process (pid {module.pid}), the manager itself "
              "included, not the module alone")  # fmt: skip
    print(table([*sidecars, *([module] if module else [])], args.warmup_seconds))
    print(success_report(sidecars))
    if module is not None:
        print(module.report())
    return 1 if any(s.died for s in sidecars) or (module is not None and module.died) else 0


def enable_module(cluster):
    """The module enabled in the cluster's active manager; None (said why) when it would not serve."""
    from bench.soak_module import ModuleInManager

    module = ModuleInManager(cluster)
    try:
        module.enable(free_port())
    except Exception as e:  # the sidecars still run; the table says the module row is missing
        print(f"the module did not start serving ({type(e).__name__}: {e}); its row group is not measured")
        return None
    print(f"module: ceph-mgr pid {module.pid} serving /metrics on 127.0.0.1:{module.port}", flush=True)
    return module


if __name__ == "__main__":
    sys.exit(main())
