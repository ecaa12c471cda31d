"""The plunge detector at its shipped defaults on a real cluster, measured (issue 27: the 60 s
window, the 1,800 s baseline and the 20 % drop had only run in the replays and the unit tests; the
test command's plunge run judges windows of 15 s against 120 s, to stay within its budget).

    python -m bench.plunge_defaults                   # starts a Pacific cluster: about 45 minutes
    python -m bench.plunge_defaults --steady 900      # a shorter steady stretch (the baseline half full)

On the test cluster (3 OSDs on files, one RGW, a size-1 data pool) under cluster/steady_load.py's
closed-loop load (4 workers, each PUTting a 64 KB object and GETting one), the sidecar runs with
the shipped plunge thresholds (`Thresholds()`'s) and is polled every POLL seconds through three
stretches, each from a quiet detector (no plunge, no demand drop over three polls: the seconds
waited are printed), each printed as it ends and all in one JSON document at the end:

1. `steady`: the load alone for `--steady` seconds (default: one whole baseline). Every plunge
   window here is a false one. The spread of the PUT and GET drop ratios (5th to 95th
   percentile, and the largest) is the noise the 20 % threshold sits above.
2. `pause`: the clients stop for PAUSE_WINDOWS windows and come back: a demand drop, never a
   plunge.
3. `osd_stopped`: an OSD of the size-1 pool stopped for OSD_WINDOWS windows, so every request to
   its PGs waits: seconds from the stop to the first plunge window and to its blame on
   `osds_down`, the plunge's windows, the causes named, the largest drop, and how long after the
   OSD was up again the plunge was over.

It asserts nothing (the scenarios are the plunge run's, tests/integration/test_plunge_cluster.py,
at its own thresholds); it prints what the defaults did, for docs/benchmark.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ceph_scale.core.config import Thresholds  # noqa: E402
from cluster.steady_load import SteadyLoad  # noqa: E402
from cluster.testcluster import TestCluster  # noqa: E402
from demo.sidecar import Sidecar  # noqa: E402

POLL = 5.0
PAUSE_WINDOWS = 3
OSD_WINDOWS = 4
SETTLE_WINDOWS = 3  # after the clients or the OSD came back: the plunge ends and is counted
QUIET_TIMEOUT = 900.0
STOPPED_OSD = 2
DEFAULTS = Thresholds()
SHIPPED = {
    "plunge_window_seconds": DEFAULTS.plunge_window_seconds,
    "plunge_baseline_seconds": DEFAULTS.plunge_baseline_seconds,
    "plunge_drop_ratio": DEFAULTS.plunge_drop_ratio,
}


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Watch:
    """The sidecar polled every POLL seconds: each poll's plunge figures, kept per stretch."""

    def __init__(self, sidecar: Sidecar) -> None:
        self.sidecar = sidecar
        self.polls: list[dict[str, Any]] = []

    def poll(self) -> dict[str, Any]:
        m = self.sidecar.metrics()

        def by(name: str, key: str) -> dict[str, float]:
            return {dict(k).get(key, ""): v for k, v in m.get(name, {}).items()}

        row = {
            "t": time.time(),
            "active": max(m.get("ceph_scale_s3_plunge_active", {}).values(), default=None),
            "demand_drop": max(m.get("ceph_scale_s3_demand_drop_active", {}).values(), default=None),
            "drop": by("ceph_scale_s3_plunge_drop_ratio", "op"),
            "causes": sorted({dict(k)["cause"] for k in m.get("ceph_scale_s3_plunge_info", {})}),
            "evidence": sorted({dict(k)["evidence"] for k in m.get("ceph_scale_s3_plunge_info", {})}),
            "plunges": by("ceph_scale_s3_plunges_total", "cause"),
            "demand_drops": sum(m.get("ceph_scale_s3_demand_drops_total", {}).values()),
        }
        self.polls.append(row)
        return row

    def quiet(self, timeout: float) -> float:
        """Polls until three in a row show no plunge and no demand drop, or `timeout` passes; the
        seconds waited (each stretch starts from a quiet detector, as the plunge run's do)."""
        began, calm = time.monotonic(), 0
        while calm < 3 and time.monotonic() - began < timeout:
            row = self.poll()
            calm = calm + 1 if row["active"] == 0 and row["demand_drop"] == 0 else 0
            time.sleep(POLL)
        return round(time.monotonic() - began)

    def run_for(self, seconds: float) -> list[dict[str, Any]]:
        start = len(self.polls)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.poll()
            time.sleep(POLL)
        return self.polls[start:]


def summary(rows: list[dict[str, Any]], since: float) -> dict[str, Any]:
    """What the detector said over `rows`: its plunge and demand-drop polls, causes, drops."""
    active = [r for r in rows if r["active"] == 1]
    blamed = [r for r in active if r["causes"] and r["causes"] != ["none"]]
    out: dict[str, Any] = {
        "seconds": round(rows[-1]["t"] - since) if rows else 0,
        "polls": len(rows),
        "plunge_polls": len(active),
        "demand_drop_polls": sum(1 for r in rows if r["demand_drop"] == 1),
        "causes": sorted({c for r in active for c in r["causes"]}),
        "first_plunge_s": round(active[0]["t"] - since) if active else None,
        "first_blamed_s": round(blamed[0]["t"] - since) if blamed else None,
        "evidence": next((r["evidence"] for r in blamed), []),
    }
    for op in ("put", "get"):
        drops = [r["drop"][op] for r in rows if op in r["drop"]]
        out[f"{op}_drop"] = {
            "p5": percentile(drops, 0.05),
            "median": statistics.median(drops) if drops else None,
            "p95": percentile(drops, 0.95),
            "max": max(drops, default=None),
        }
    return out


def counted(before: dict[str, Any], after: dict[str, Any]) -> dict[str, float]:
    """Plunges counted between two polls, by cause."""
    was = before["plunges"]
    return {c: v - was.get(c, 0.0) for c, v in after["plunges"].items() if v > was.get(c, 0.0)}


def measure(c: TestCluster, steady: float, workdir: Path) -> dict[str, Any]:
    access, secret = c.user_keys
    c.ceph("osd", "set", "noscrub", fmt_json=False)  # scheduled scrubs would be causes too
    c.ceph("osd", "set", "nodeep-scrub", fmt_json=False)
    window = DEFAULTS.plunge_window_seconds
    load = SteadyLoad(c.rgw_endpoint, access, secret, "plunge-defaults", keys=50).start()
    sidecar = None
    try:
        load.wait_warm()
        sidecar = Sidecar(c, workdir, thresholds=SHIPPED).start()
        watch = Watch(sidecar)
        result: dict[str, Any] = {"thresholds": SHIPPED, "poll_seconds": POLL}

        began = time.time()
        rows = watch.run_for(steady)
        result["steady"] = {**summary(rows, began), "clients_ops": load.rates(window)}
        print("steady:", json.dumps(result["steady"]), flush=True)

        waited = watch.quiet(QUIET_TIMEOUT)
        before, began = watch.poll(), time.time()
        load.pause()
        rows = watch.run_for(PAUSE_WINDOWS * window)
        load.resume()
        rows += watch.run_for(SETTLE_WINDOWS * window)  # the clients back: their burst, then their level
        result["pause"] = {**summary(rows, began), "counted": counted(before, watch.poll()), "quiet_after_s": waited}
        result["pause"]["demand_drops"] = rows[-1]["demand_drops"] - before["demand_drops"]
        print("pause:", json.dumps(result["pause"]), flush=True)

        waited = watch.quiet(QUIET_TIMEOUT)
        before, began = watch.poll(), time.time()
        c.stop_daemon(f"osd.{STOPPED_OSD}")
        try:
            rows = watch.run_for(OSD_WINDOWS * window)
        finally:
            c.osd_up(STOPPED_OSD)
        rows += watch.run_for(SETTLE_WINDOWS * window)
        ended = watch.quiet(QUIET_TIMEOUT)  # the plunge over and counted
        result["osd_stopped"] = {
            **summary(rows, began),
            "counted": counted(before, watch.poll()),
            "quiet_after_s": waited,
            "over_after_up_s": SETTLE_WINDOWS * window + ended,
        }
        print("osd_stopped:", json.dumps(result["osd_stopped"]), flush=True)
        return result
    finally:
        load.stop()
        if sidecar is not None:
            sidecar.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--release", default="pacific")
    p.add_argument(
        "--steady", type=float, default=DEFAULTS.plunge_baseline_seconds, help="seconds of the load alone first"
    )
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="plunge-defaults-") as tmp:
        c = TestCluster(base_dir=str(Path(tmp) / "cluster"), release_name=args.release)
        try:
            c.start()
            result = measure(c, args.steady, Path(tmp))
        finally:
            c.stop()
    result["release"] = args.release
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
