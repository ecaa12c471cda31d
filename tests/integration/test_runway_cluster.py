"""Runway and plan on the real test cluster (Pacific): as it fills and its S3 load grows, the
runways shorten and the plan asks for more (docs/runway.md).

The exporter fits over the last 60 s here (a week by default) and trusts a fit after 20 s (an
hour): minutes of real writes stand for days. Buckets are filled to 90 objects each, under the
test cluster's 100 objects per shard, so nothing reshards under the other tests' counts.
"""

from __future__ import annotations

import json
import math
import subprocess
import threading
import time

import pytest
import yaml

from ceph_scale.core import trend
from cluster import s3load
from cluster.testcluster import TestCluster
from demo.monitoring import wait_until
from demo.sidecar import Sidecar

pytestmark = pytest.mark.cluster

THRESHOLDS = {
    "forecast_min_span_seconds": 20,
    "runway_window_seconds": 60,
    "rate_window_seconds": 10,
    # 1 RGW and 3 HDD OSDs: a per-RGW figure of 200 PUT/s keeps the test's load under it.
    "rgw_put_ops_per_instance": 200,
    # A plan for 180 days from a minute's fit is withheld by default; here it is what is measured.
    "plan_max_extrapolation": 1e6,
}
PER_BUCKET = 90
# PUT/s of each writer, kept to its schedule (a slow PUT is made up for, not added to the period):
# the load grows with the writers, not with what the host can take. Four steady writers of 64 KB
# objects (10 PUT/s); then two ramp writers of 128 KB objects more every RAMP_STEP seconds, 3 to 30
# PUT/s, which stays under what the test cluster takes while the other releases' clusters share its
# two cores (it levelled off at about 45 PUT/s of 256 KB there, and a levelled-off load is rightly
# no growth). Each writer's period holds a PUT of up to 0.4-0.67 s: one run on a loaded machine
# reached only 8 PUT/s where each writer waited its period after a PUT of ~0.3 s.
STEADY_PACE = 2.5
RAMP_PACE = 1.5
RAMP_STEP = 4.0
RAMP_SECONDS = 40.0
# `--once --plan` from cron: a fit needs trend.MIN_POINTS runs over 20 s, within the ramp.
PLAN_EVERY = 6.0


class PutLoad:
    """PUT workers in the background, each filling its own buckets of 90 objects in turn."""

    def __init__(self, cluster: TestCluster, prefix: str, size: int, pace: float) -> None:
        self.s3 = s3load.client(cluster.rgw_endpoint, *cluster.user_keys, 32)
        self.prefix, self.body, self.pace = prefix, b"x" * size, pace
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []
        self.buckets: list[str] = []
        self.puts = self.errors = 0
        self.done: list[float] = []  # when each PUT completed (monotonic)
        self.lock = threading.Lock()

    def add_workers(self, n: int) -> None:
        for _ in range(n):
            t = threading.Thread(target=self._work, args=(len(self.threads),), daemon=True)
            self.threads.append(t)
            t.start()

    def _work(self, w: int) -> None:
        k, due = 0, time.monotonic()
        while not self.stop.is_set():
            bucket = f"{self.prefix}-{w}-{k}"
            self.s3.create_bucket(Bucket=bucket)
            with self.lock:
                self.buckets.append(bucket)
            for i in range(PER_BUCKET):
                due += 1 / self.pace
                # Behind by more than a second (a bucket created, a stalled PUT): no burst to catch up.
                due = max(due, time.monotonic() - 1)
                if self.stop.wait(max(0.0, due - time.monotonic())):
                    return
                try:
                    self.s3.put_object(Bucket=bucket, Key=f"o{i}", Body=self.body)
                    with self.lock:
                        self.puts += 1
                        self.done.append(time.monotonic())
                except Exception:  # noqa: BLE001 - counted, and the test asserts there were none
                    with self.lock:
                        self.errors += 1
            k += 1

    def rate(self, start: float, end: float) -> float:
        """PUTs a second the writers completed between two monotonic times."""
        with self.lock:
            return sum(start <= t < end for t in self.done) / (end - start)

    def close(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(60)
        for bucket in self.buckets:  # the space back for the tests after this one
            keys = [{"Key": f"o{i}"} for i in range(PER_BUCKET)]
            self.s3.delete_objects(Bucket=bucket, Delete={"Objects": keys, "Quiet": True})
            self.s3.delete_bucket(Bucket=bucket)


def reading(exporter: Sidecar) -> dict:
    m = exporter.metrics()

    def one(name: str, **labels) -> float | None:
        found = [v for k, v in m.get(name, {}).items() if set(labels.items()) <= set(k)]
        return found[0] if len(found) == 1 else None

    limits = ("fill_cluster", "load_hdd", "load_rgw")
    return {
        **{f"runway_{x}": one("ceph_scale_runway_seconds", limit=x) for x in limits},
        **{f"span_{x}": one("ceph_scale_runway_fit_span_seconds", limit=x) for x in limits},
        "steady_fill": one("ceph_scale_runway_growth_steady", limit="fill_cluster"),
        "shape_load_hdd": {
            dict(k).get("shape") for k in m.get("ceph_scale_runway_growth_shape", {}) if ("limit", "load_hdd") in k
        },
        "hdd_fill": one("ceph_scale_plan_hdd_osds", by="fill"),
        "hdd_ops": one("ceph_scale_plan_hdd_osds", by="ops"),
        "rgw": one("ceph_scale_plan_rgw_instances"),
        "withheld": {
            dict(k).get("figure")
            for k, v in m.get("ceph_scale_plan_caveat", {}).items()
            if dict(k).get("caveat") == "withheld" and v == 1
        },
        "put_rate": one("ceph_scale_s3_ops_per_second", op="put"),
    }


def once_plan(exporter: Sidecar, config) -> dict:
    """`--once --plan json` with its own state file, as from cron."""
    argv = [a for a in exporter.argv if not a.startswith(("--config.file=", "--web.listen-address="))]
    r = subprocess.run([*argv, f"--config.file={config}", "--once", "--plan", "json"], capture_output=True,
                       text=True, timeout=120, cwd=exporter.dir, env=exporter.environment())  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)


def plans_until(stop: threading.Event, exporter: Sidecar, config, plans: list) -> None:
    """`--once --plan` every PLAN_EVERY seconds on the clock (a slow run delays the next, not all
    after it) until `stop`, each result (or its failure) appended to `plans` with how long it took."""
    due = time.monotonic()
    while True:
        began = time.monotonic()
        try:
            plans.append({**once_plan(exporter, config), "took": time.monotonic() - began})
        except Exception as e:  # noqa: BLE001 - reported by the test, with the plans before it
            plans.append({"failed": repr(e)})
            return
        due += PLAN_EVERY
        if stop.wait(max(0.0, due - time.monotonic())):
            return


def test_runways_shorten_and_the_plan_grows_as_the_cluster_fills_and_its_load_grows(ceph_cluster, scratch):
    exporter = Sidecar(ceph_cluster, scratch, thresholds=THRESHOLDS).start()
    cron = exporter.dir / "cron.yml"
    config = yaml.safe_load(exporter.config_path.read_text())
    cron.write_text(yaml.safe_dump({**config, "state_file": str(exporter.dir / "cron-state.json")}))
    steady = PutLoad(ceph_cluster, f"runway-a{int(time.time())}", 65536, STEADY_PACE)
    ramp = PutLoad(ceph_cluster, f"runway-b{int(time.time())}", 131072, RAMP_PACE)
    planner: threading.Thread | None = None
    try:
        # A: 10 PUT/s of 64 KB objects, long enough that the 60 s window holds nothing else.
        steady.add_workers(4)
        start = time.monotonic()
        a = wait_until(
            lambda: (
                (r := reading(exporter))["runway_fill_cluster"] is not None
                and r["runway_load_hdd"] is not None
                and time.monotonic() - start > 70
                and r
            ),
            120,
            what="runways fitted over the steady load",
        )
        # B: two writers of 128 KB objects more every RAMP_STEP seconds: the cluster fills faster
        # and the load grows linearly, from 3 to 30 PUT/s. Writers are added on the clock, and
        # `--once --plan` runs from cron beside them (one run took seconds on a loaded machine,
        # and the ramp waiting for it fell behind).
        steady.stop.set()
        plans: list[dict] = []
        planner = threading.Thread(target=lambda: plans_until(ramp.stop, exporter, cron, plans), daemon=True)
        start = time.monotonic()
        planner.start()
        while (elapsed := time.monotonic() - start) < RAMP_SECONDS:
            ramp.add_workers(2 * (int(elapsed // RAMP_STEP) + 1) - len(ramp.threads))
            time.sleep(RAMP_STEP - elapsed % RAMP_STEP)
        b = reading(exporter)
        third = RAMP_SECONDS / 3
        ramped = (ramp.rate(start, start + third), ramp.rate(start + 2 * third, start + RAMP_SECONDS))
    finally:
        steady.close()
        ramp.close()  # stops the planner too, after its run in flight
        if planner is not None:
            planner.join(150)
        exporter.stop()
    assert planner is None or not planner.is_alive(), "a --once --plan run outlived the test"
    print(f"A (steady): {a}\nB (ramp, {ramp.puts} PUTs, {ramped[0]:.1f} then {ramped[1]:.1f} PUT/s): {b}")
    assert (steady.errors, ramp.errors) == (0, 0)
    # What the assertions below stand on: the load the cluster took grew (not only the writers).
    assert ramped[1] >= 2 * ramped[0] > 0, f"the ramp's PUT/s, first and last third: {ramped}"
    assert b["put_rate"] > a["put_rate"]
    # Filling faster: less runway to the fill target, more HDDs to hold the target date.
    assert b["runway_fill_cluster"] < a["runway_fill_cluster"]

    def grew(key: str, figure: str) -> bool:
        """Larger, or withheld and saying so: the ramp's growth may read as accelerating."""
        return figure in b["withheld"] or (b[key] is not None and a[key] is not None and b[key] > a[key])

    assert grew("hdd_fill", "hdd_by_fill"), (a, b)
    # A load that grows reaches the baseline in finite time, sooner than a steady one; the plan by
    # ops and the RGWs grow with it.
    assert math.isfinite(b["runway_load_hdd"]) and b["runway_load_hdd"] < a["runway_load_hdd"]
    assert b["runway_load_rgw"] < a["runway_load_rgw"]
    assert grew("hdd_ops", "hdd_by_ops") and grew("rgw", "rgw_instances"), (a, b)
    # Each runway says what its fit stands on.
    assert b["span_fill_cluster"] >= THRESHOLDS["forecast_min_span_seconds"]
    assert b["steady_fill"] in (0.0, 1.0)
    # --once --plan from cron fits across runs, through its state file.
    assert not [p for p in plans if "failed" in p], plans
    assert len(plans) >= trend.MIN_POINTS, [p["took"] for p in plans]
    fitted = [p for p in plans if [r for r in p["runways"] if r["limit"] == "fill_cluster"][0]["seconds"] is not None]
    assert fitted, [p["runways"] for p in plans]
    assert plans[-1]["plan"]["hdd_osds"]["now"] == 3
