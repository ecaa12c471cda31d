"""The demo: a throwaway Ceph cluster, the exporter, S3 load, Prometheus and Alertmanager.

    ./scripts/demo.sh                 # runs until Ctrl-C
    ./scripts/demo.sh --duration 300  # or for a while

It makes the study's conditions happen (spillover is there from the start on
osd.0; a bucket grows past its shard limit and reshards; scrubs are held
back until PGs are overdue) and prints the live signals every few seconds.
Alertmanager routes as rules/alertmanager/alertmanager.yml says, to a local webhook that
prints each notification as it arrives.
Everything it starts is stopped by PID when it ends.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

from . import monitoring
from .sidecar import Sidecar

REPO = Path(__file__).resolve().parent.parent


def rule_files() -> list[Path]:
    """rules/*.yml: rule files only (the Alertmanager routing lives in rules/alertmanager/)."""
    rules = REPO / "rules"
    return sorted(rules.glob("*.yml")) if rules.is_dir() else []


def alertmanager_config(webhook_url: str) -> dict:
    """The shipped routing (rules/alertmanager/alertmanager.yml), every receiver sent to the demo's webhook.

    Its placeholders point at 127.0.0.1:9095, where nothing listens.
    """
    return monitoring.webhook_routing(webhook_url)


def notification_lines(path: str, payload: dict) -> list[str]:
    """One line per alert of an Alertmanager notification: receiver, status, alert, cluster."""
    receiver = payload.get("receiver") or path
    return [
        f"  notified    {receiver}: {a.get('status', '?')} {a['labels'].get('alertname', '?')} "
        f"(cluster {a['labels'].get('cluster', '?')})"
        for a in payload.get("alerts", [])
    ]


def fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    if value == float("inf"):
        return "never"
    if unit == "%":
        return f"{value * 100:.1f} %"
    if unit == "B":
        for u in ("B", "KiB", "MiB", "GiB", "TiB"):
            if abs(value) < 1024:
                return f"{value:.0f} {u}"
            value /= 1024
        return f"{value:.0f} PiB"
    if unit == "s":
        return f"{value:.0f} s"
    return f"{value:.3g}"


def summary(exporter: Sidecar) -> str:
    m = exporter.metrics()

    def get(name, **labels):
        found = [v for k, v in m.get(name, {}).items() if set(labels.items()) <= set(k)]
        return found[0] if len(found) == 1 else (sum(found) if found else None)

    spilled = {dict(k)["ceph_daemon"]: v for k, v in m.get("ceph_scale_bluefs_spilled_bytes", {}).items() if v}
    used, target = get("ceph_scale_cluster_used_ratio"), get("ceph_scale_config", option="fill_target_ratio")
    failing = [dict(k)["source"] for k, v in m.get("ceph_scale_source_success", {}).items() if v == 0]
    lines = [
        f"  spillover   {fmt(get('ceph_scale_bluefs_spillover_osds'))} OSD(s) spilling: "
        + (", ".join(f"{d} {fmt(v, 'B')}" for d, v in sorted(spilled.items())) or "none"),
        f"  fill        cluster {fmt(used, '%')}, headroom to the target "
        f"{fmt(None if used is None or target is None else target - used, '%')}",
        f"  reshard     events {fmt(get('ceph_scale_rgw_reshard_events_total'))}, queued "
        f"{fmt(get('ceph_scale_rgw_reshard_queued'))}, buckets over the shard limit "
        f"{fmt(get('ceph_scale_rgw_buckets_over_shard_limit'))}",
        f"  scrub       overdue {fmt(get('ceph_scale_pg_scrub_overdue', kind='scrub'))} / "
        f"{fmt(get('ceph_scale_pgs'))} PGs, oldest "
        f"{fmt(get('ceph_scale_pg_scrub_oldest_age_seconds', kind='scrub'), 's')}, "
        f"clears in {fmt(get('ceph_scale_pg_scrub_backlog_clear_seconds', kind='scrub'), 's')}",
        f"  load        PUT {fmt(get('ceph_scale_s3_ops_per_second', op='put'))} ops/s, GET "
        f"{fmt(get('ceph_scale_s3_ops_per_second', op='get'))} ops/s; mixed load vs 60/90 per HDD "
        f"{fmt(get('ceph_scale_s3_load_ratio', op='mixed', unit='ops'), '%')}",
        f"  sources     {'all ok' if not failing else 'FAILING: ' + ', '.join(sorted(failing))}",
    ]
    return "\n".join(lines)


def load_loop(cluster, stop: threading.Event, log) -> None:
    from cluster import s3load

    access, secret = cluster.user_keys
    round_ = 0
    while not stop.is_set():
        round_ += 1
        # One bucket grows past rgw_max_objs_per_shard and reshards; a 64 KB load
        # keeps PUT and GET rates visible against the per-HDD baseline.
        s3load.run(cluster.rgw_endpoint, access, secret, "growing", objects=60, size=4096, gets=False,
                   prefix=f"r{round_}", max_seconds=20)  # fmt: skip
        s3load.run(cluster.rgw_endpoint, access, secret, "small-objects", objects=40, size=65536,
                   prefix=f"r{round_ % 2}", max_seconds=20)  # fmt: skip
        stop.wait(2)
    log("load stopped")


def run_demo(
    cluster=None, duration: float | None = None, interval: float = 10.0, out=print, hold_scrubs: bool = True
) -> dict:
    """Run the demo; with `cluster` given (tests), use it instead of starting one."""
    from cluster.testcluster import TestCluster

    workdir = monitoring.scratch_dir("ceph-scale-demo-")
    owned = cluster is None
    started: list = []
    stop = threading.Event()
    try:
        if owned:
            out("starting a throwaway Ceph cluster (1 mon, 2 mgr, 3 OSDs with DB files, 1 RGW)...")
            cluster = TestCluster(base_dir=str(workdir / "cluster"), standby_mgr=False)
            started.append(cluster)
            cluster.start()
            out(f"  cluster up in {cluster.started_in:.0f} s: {cluster.conf_path}")
        exporter = Sidecar(cluster, workdir, cluster_label="demo").start()
        started.append(exporter)

        def show(path: str, payload: dict) -> None:
            for line in notification_lines(path, payload):
                out(line)

        hook = monitoring.Webhook(show)
        started.append(hook.start())
        am_config = alertmanager_config(hook.url)
        am = monitoring.Alertmanager(workdir, am_config).start()
        started.append(am)
        prom = monitoring.Prometheus(
            workdir,
            {"ceph-scale": [f"127.0.0.1:{exporter.port}"]},
            rule_files=rule_files(),
            alertmanager_url=am.url,
        ).start()
        started.append(prom)
        out(f"exporter      {exporter.url}")
        out(f"prometheus    {prom.url}   (rules: {', '.join(p.name for p in rule_files()) or 'none yet'})")
        out(f"alertmanager  {am.url}")
        receivers = ", ".join(f"{path} ({name})" for name, path in monitoring.receiver_paths(am_config).items())
        out(f"webhook       {hook.url}   (Alertmanager's receivers, printed as they arrive: {receivers})")
        out(f"mgr prometheus module {cluster.mgr_prometheus_url}; RGW {cluster.rgw_endpoint}")
        if hold_scrubs:
            cluster.block_scrubs(max_interval=60, deep_interval=120)
            out("scrubs held back (noscrub, nodeep-scrub, short intervals): PGs become overdue within about a minute")
        loader = threading.Thread(target=load_loop, args=(cluster, stop, out), daemon=True)
        loader.start()
        end = time.monotonic() + duration if duration else None
        last = ""
        while end is None or time.monotonic() < end:
            time.sleep(interval if end is None else max(0.0, min(interval, end - time.monotonic())))
            last = summary(exporter)
            firing = sorted({a["labels"]["alertname"] for a in prom.alerts() if a["state"] == "firing"})
            out(time.strftime("%H:%M:%S") + " live signals:\n" + last)
            out("  alerts      " + (", ".join(firing) if firing else "none firing"))
        return {
            "summary": last,
            "exporter": exporter.url,
            "prometheus": prom.url,
            "alertmanager": am.url,
            "webhook": hook.url,
            "alertmanager_config": am_config,
        }
    finally:
        stop.set()
        for thing in reversed(started):
            try:
                thing.stop()
            except Exception as e:  # keep stopping the others
                out(f"stopping {thing}: {e}")
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="demo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=float, default=None, help="seconds to run (default: until Ctrl-C)")
    p.add_argument("--interval", type=float, default=10.0, help="seconds between summaries")
    args = p.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        run_demo(duration=args.duration, interval=args.interval, out=lambda s: print(s, flush=True))
    except KeyboardInterrupt:
        print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
