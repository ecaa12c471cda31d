"""The ceph-mgr module `scale` in the real test cluster's managers (2 mgrs), on every release.

Uses the session fixture `ceph_cluster` (tests/conftest.py): a running TestCluster with a
standby manager, the module installed as docs/mgr-module.md documents it (install.sh
--module-path, then `ceph config set mgr mgr_module_path`; cluster/mgr_modules.py). The
module is enabled once for this file (which respawns the active manager, as Pacific does for
any module change) and disabled at the end. Each manager serves on its own port
(mgr/scale/<id>/server_port): two managers on one host cannot share one.

Ordered: the scenarios run in file order and each leaves the module serving.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bench.process_figures import proc_figures
from cluster.commands import DOCUMENTED_RGW_USER, documented_rgw_user_command
from cluster.helpers import RGW_NAME
from cluster.testcluster import free_port
from cluster.testcluster import wait_for as wait_until
from tests import freshness
from tests.conftest import ON_EVERY_RELEASE
from tests.freshness import last_success, source_age
from tests.scrub_checks import agree_without_pool

pytestmark = [pytest.mark.cluster, ON_EVERY_RELEASE]

REPO = Path(__file__).resolve().parents[2]
# How docs/mgr-module.md has operators give the module its RGW keys: this read-only user's, in
# the module's store.
MGR_DOC = "docs/mgr-module.md"
MGR_RGW_USER = DOCUMENTED_RGW_USER  # the sidecar's too
SOURCES = ("osd_map", "capacity", "perf", "pgs", "settings", "health", "buckets", "reshard")
TITLES = (
    "1. BlueFS / RocksDB spillover",
    "2. Distance to the fill target",
    "3. RGW dynamic bucket resharding",
    "4. Scrub backlog",
    "5. S3 load per HDD OSD against the study's baseline",
)
# Families that need two samples of a moving quantity (rates, fitted trends): present or not
# depending on timing, in either producer. The runways and the plan hang on fits and rates.
TIMING = re.compile(
    r"ceph_scale_(s3_|osd_ops_per_second|osd_hotspot|cluster_fill_rate|cluster_fill_seconds|pool_fill_seconds"
    r"|bluefs_db_next_level|pg_scrub_backlog_clear|rgw_bucket_reshard_seconds|runway_|plan_"
    r"|hdd_osd_hot|rgw_tenant_growth|rgw_tenant_quota_runway|rgw_bucket_usage_growth)"
)


def http_get(url: str, timeout: float = 10) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def families(text: str) -> dict[str, dict[tuple, float]]:
    """{sample name (counters with _total): {sorted label pairs, cluster dropped: value}}."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, dict[tuple, float]] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            labels = tuple(sorted((k, v) for k, v in s.labels.items() if k != "cluster"))
            out.setdefault(s.name, {})[labels] = s.value
    return out


def label_names(text: str) -> dict[str, frozenset]:
    """{family name as docs/metrics.md writes it (counters with _total): label names}."""
    from prometheus_client.parser import text_string_to_metric_families

    out = {}
    for fam in text_string_to_metric_families(text):
        names: set[str] = set()
        for s in fam.samples:
            names |= set(s.labels) - {"le"}
        out[fam.name + ("_total" if fam.type == "counter" else "")] = frozenset(names)
    return out


class Scale:
    """The module as seen from outside: its URLs (from `ceph mgr services`), metrics, options."""

    def __init__(self, cluster) -> None:
        self.c = cluster
        self.ports = {ident: free_port() for ident in cluster.mgr_ids}

    def set(self, key: str, value, force: bool = True) -> None:
        args = ["config", "set", "mgr", f"mgr/scale/{key}", str(value)] + (["--force"] if force else [])
        self.c.ceph(*args, fmt_json=False)

    pinned: str | None = None  # while the monitor is away, `mgr services` cannot be asked

    def url(self) -> str:
        if self.pinned:
            return self.pinned
        # No short limit: under the test command's load the CLI has printed its answer and then
        # taken more than 10 s to exit.
        uri = self.c.ceph("mgr", "services").get("scale")
        assert uri, "the active manager has not published the scale URI"
        return uri.rstrip("/") + "/metrics"

    def text(self) -> str:
        status, body = http_get(self.url())
        assert status == 200, (status, body[:300])
        return body

    def metrics(self) -> dict[str, dict[tuple, float]]:
        return families(self.text())

    def value(self, name: str, **labels):
        samples = self.metrics().get(name, {})
        found = [v for k, v in samples.items() if set(labels.items()) <= set(k)]
        return found[0] if len(found) == 1 else None

    def source_ok(self) -> dict[str, float]:
        return {dict(k)["source"]: v for k, v in self.metrics()["ceph_scale_source_success"].items()}

    def wait_value(self, name: str, predicate, timeout: float = 60, **labels):
        """The value once predicate(value) holds (0 included)."""
        seen = []

        def ok() -> bool:
            v = self.value(name, **labels)
            if v is not None and predicate(v):
                seen.append(v)
                return True
            return False

        wait_until(ok, timeout, what=f"{name}{labels}")
        return seen[-1]


def assert_fresh(scale, names, slack: float = 8.0) -> None:
    freshness.assert_fresh(scale.metrics(), names, slack)


def assert_failed_and_ageing(scale, name: str, wait: float = 4.0) -> None:
    last1 = last_success(scale, name)  # no success since: its data ages
    time.sleep(wait)
    assert scale.source_ok()[name] == 0, name
    assert last_success(scale, name) == last1, name


@pytest.fixture(scope="module")
def scale(ceph_cluster):
    c = ceph_cluster
    m = Scale(c)
    # As documented, without --force: the monitor refuses an option no manager has reported,
    # as it does every mgr/scale/* option when the managers could not load the module.
    m.set("server_addr", "127.0.0.1", force=False)
    for ident, port in m.ports.items():
        m.set(f"{ident}/server_port", port, force=False)
    # The test cluster holds dozens of small buckets, and a test looks its own up by name: the
    # top 50 by shard fill named (the default 10 names the fullest of a production cluster's).
    for key, value in (
        ("interval", 2),
        ("pgs_interval", 3),
        ("settings_interval", 5),
        ("rgw_interval", 3),
        ("rgw_top_buckets", 50),
    ):
        m.set(key, value, force=False)
    # RGW through the Admin Ops API, as docs/mgr-module.md has operators set it up
    m.set("rgw_endpoint", c.rgw_endpoint, force=False)
    store_documented_rgw_keys(c)
    c.ceph("mgr", "module", "enable", "scale", fmt_json=False)
    wait_until(lambda: c.ceph("mgr", "stat", timeout=10).get("available"), 120, what="an active manager")
    wait_until(lambda: "ceph_scale_build_info" in m.text(), 120, interval=2, what="the module's /metrics")
    c.await_prometheus(120)  # of whichever manager the respawn made active
    yield m
    c.ceph("mgr", "module", "disable", "scale", fmt_json=False)  # respawns the active manager again
    c.await_prometheus(120)


def store_documented_rgw_keys(c) -> tuple[str, str]:
    """The module's read-only RGW user and its keys in the module's store, by the commands of
    docs/mgr-module.md; the keys."""
    keys = c.create_documented_rgw_user(MGR_DOC, MGR_RGW_USER)
    for key, value in zip(("rgw_access_key", "rgw_secret_key"), keys, strict=True):
        c.set_documented_config_key(MGR_DOC, f"mgr/scale/{key}", value)
    return keys


def test_the_documented_install_loads_the_module(scale, ceph_cluster):
    """The cluster's managers got the module as docs/mgr-module.md has operators install it (its
    installer with --module-path, `ceph config set mgr mgr_module_path`, the managers started,
    `ceph mgr module enable scale`): on every release the manager loads it (on Reef with the
    bcrypt stand-in the installer found needed), knows its options and answers its commands."""
    from cluster.helpers import pid_cmdline

    c = ceph_cluster
    assert ("installed a stand-in in" in c.mgr_install_output) == (c.release.name == "reef"), c.mgr_install_output
    assert c.ceph("config", "get", "mgr", "mgr_module_path", fmt_json=False).strip() == str(c.mgr_module_dir)
    for ident in c.mgr_ids:  # from the config database, as an operator's managers read it
        assert "mgr_module_path" not in pid_cmdline(c.pids[f"mgr.{ident}"])
    dependency = c.ceph("health", "detail")["checks"].get("MGR_MODULE_DEPENDENCY", {})
    assert "scale" not in json.dumps(dependency), dependency
    scale.set("interval", 2, force=False)
    assert c.ceph("config", "get", "mgr", "mgr/scale/interval", fmt_json=False).strip() == "2"
    counters = json.loads(c.ceph("scale", "counters", fmt_json=False))
    for i in range(c.osds):
        assert "bluefs.db_used_bytes" in counters.get(f"osd.{i}", {}), sorted(counters)


def test_every_source_succeeds(scale):
    wait_until(lambda: scale.source_ok() == {s: 1.0 for s in SOURCES}, 90, what="every source to succeed")
    assert scale.value("ceph_scale_build_info", producer="mgr") == 1


def test_exposition_passes_promtool(scale):
    import subprocess

    proc = subprocess.run(["promtool", "check", "metrics"], input=scale.text().encode(), capture_output=True)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()


def documented_labels() -> dict[str, frozenset]:
    """family -> label names (plus cluster) from the tables of docs/metrics.md."""
    out = {}
    for line in (REPO / "docs" / "metrics.md").read_text().splitlines():
        m = re.match(r"\|\s*`(ceph_scale_[a-z0-9_]+)`\s*\|\s*(\w+)\s*\|([^|]*)\|", line)
        if m:
            labels = {x.strip() for x in m.group(3).split(",") if x.strip()}
            out[m.group(1)] = frozenset(labels | {"cluster"})
    return out


def test_families_and_labels_are_the_documented_ones(scale):
    wait_until(lambda: "ceph_scale_rgw_buckets" in scale.metrics(), 60, what="RGW families")
    ours = label_names(scale.text())
    docs = documented_labels()
    assert set(ours) <= set(docs), sorted(set(ours) - set(docs))
    for name, labels in ours.items():
        assert labels == docs[name], name


# Values both producers must give alike for the same cluster (each collected on its own
# schedule, so compared a few times until a moment where neither is mid-change).
STABLE = re.compile(
    r"ceph_scale_(osds|osds_down_ratio|hdd_osds|pgs|bluefs_db_size_bytes|bluefs_db_osds|bluefs_spillover_osds"
    r"|bluefs_db_usable_bytes|bluefs_db_share_ratio|osd_full_ratio"
    r"|pool_expected_amplification_ratio|rgw_buckets|rgw_reshard_queued|rgw_instances|health_check"
    r"|degraded_expected_drop_ratio|pg_scrub_overdue_after_seconds)$"
)
# Differ by design: how each producer runs its sources, and what it is.
PRODUCER = re.compile(r"ceph_scale_(source_|build_info)")


def test_module_and_sidecar_agree_family_by_family(scale, sidecar):
    """The same cluster through both producers: the same families with the same label names,
    and the same values where the value does not move between two collections."""
    wait_until(lambda: scale.source_ok() == {s: 1.0 for s in SOURCES}, 90, what="every module source")

    def compare():
        ours, theirs = scale.text(), sidecar.text()
        a, b = label_names(ours), label_names(theirs)
        only = {n for n in set(a) ^ set(b) if not TIMING.match(n)}
        assert not only, f"in one producer only: {sorted(only)}"
        for name in set(a) & set(b):
            assert a[name] == b[name], name
        x, y = families(ours), families(theirs)
        return {
            name: (x[name], y[name])
            for name in set(x) & set(y)
            if STABLE.match(name) and not PRODUCER.match(name) and x[name] != y[name]
        }

    differing = wait_until(lambda: compare() == {}, 60, what="the stable values to agree") and compare()
    assert differing == {}
    checked = [n for n in families(scale.text()) if STABLE.match(n)]
    assert len(checked) >= 15, checked  # the comparison covered the signals, not just a few


def test_values_agree_with_ceph(scale, ceph_cluster):
    direct = ceph_cluster.bluefs(0)["slow_used_bytes"]
    spilled = scale.wait_value("ceph_scale_bluefs_spilled_bytes", lambda v: v > 0, ceph_daemon="osd.0")
    assert abs(spilled - direct) <= 0.2 * direct
    assert scale.value("ceph_scale_bluefs_spilled_bytes", ceph_daemon="osd.1") == 0
    stats = ceph_cluster.ceph("df")["stats"]
    assert scale.value("ceph_scale_cluster_used_ratio") == pytest.approx(stats["total_used_raw_ratio"], abs=0.01)
    nodes = {f"osd.{n['id']}": n["utilization"] / 100 for n in ceph_cluster.ceph("osd", "df")["nodes"]}
    for daemon, ratio in nodes.items():
        assert scale.value("ceph_scale_osd_used_ratio", ceph_daemon=daemon) == pytest.approx(ratio, abs=0.01)
    limit = int(ceph_cluster.ceph("config", "get", "client.rgw", "rgw_max_objs_per_shard"))
    assert scale.value("ceph_scale_config", option="rgw_max_objs_per_shard") == limit


def test_status_command_reports_every_signal(scale, ceph_cluster):
    text = ceph_cluster.ceph("scale", "status", fmt_json=False)
    for title in TITLES:
        assert title in text
    assert "osd.0:" in text  # the spilling OSD is named
    data = ceph_cluster.ceph("scale", "status")  # --format json
    assert set(data["signals"]) == {"spillover", "fill", "reshard", "tenants", "scrub", "load", "plunge"}
    assert data["signals"]["spillover"]["offenders"][0]["ceph_daemon"] == "osd.0"
    assert data["sources"]["buckets"]["success"] is True


def test_plan_command_on_the_real_manager(scale, ceph_cluster):
    text = ceph_cluster.ceph("scale", "plan", fmt_json=False)
    assert text.startswith("Runway to the target date (180 days)") and "HDD OSDs: 3 now" in text
    doc = ceph_cluster.ceph("scale", "plan")  # --format json
    runways = {r["limit"]: r for r in doc["runways"]}
    assert set(runways) == {"fill_cluster", "fill_osd", "db_levels", "load_hdd", "load_rgw", "scrub", "shard"}
    # osd.0's 256 MiB DB spills from the start (its WAL does not fit): the DB runway is spent.
    assert runways["db_levels"]["seconds"] == 0 and runways["db_levels"]["detail"] == "1 of 3 OSDs spill now"
    # One host: the failure domain the plan survives is one OSD of the three.
    assert doc["plan"]["failure_domain_osds"] == 1 and doc["plan"]["hdd_osds"]["now"] == 3
    assert doc["plan"]["db_per_osd"]["osds_short_share"] == 0  # 6.25 % and 25 % of 4 GiB


def test_out_of_range_threshold_refused_by_the_monitor(scale, ceph_cluster):
    from cluster.testcluster import CephError

    with pytest.raises(CephError, match="exceeds maximum"):
        scale.set("fill_target_ratio", 2, force=False)
    assert scale.value("ceph_scale_config", option="fill_target_ratio") == 0.8


def test_bad_threshold_rejected_previous_kept_module_serving(scale, ceph_cluster):
    c = ceph_cluster
    scale.set("fill_target_ratio", 2)  # --force: past the monitor's range check
    wait_until(
        lambda: "fill_target_ratio: 2.0 is outside" in json.dumps(c.health_checks().get("SCALE_BAD_CONFIG")),
        60,
        what="SCALE_BAD_CONFIG naming fill_target_ratio",
    )
    assert scale.value("ceph_scale_config", option="fill_target_ratio") == 0.8
    scale.set("fill_target_ratio", 0.95)  # in range, but above fill_critical_ratio
    wait_until(
        lambda: "fill_warn_ratio <= fill_target_ratio" in json.dumps(c.health_checks().get("SCALE_BAD_CONFIG")),
        60,
        what="the cross-field rejection",
    )
    assert scale.value("ceph_scale_config", option="fill_target_ratio") == 0.8
    assert scale.source_ok()["osd_map"] == 1
    scale.set("fill_target_ratio", 0.8)
    c.wait_health("SCALE_BAD_CONFIG", False, 60)


def test_threshold_change_moves_metrics_and_health(scale, ceph_cluster):
    c = ceph_cluster
    used = scale.value("ceph_scale_cluster_used_ratio")
    target = round(used + 0.02, 3)  # within the 5-point margin
    scale.set("fill_warn_ratio", round(target / 2, 3))
    scale.set("fill_target_ratio", target)
    scale.wait_value("ceph_scale_config", lambda v: v == target, option="fill_target_ratio")
    check = c.wait_health("SCALE_FILL_HEADROOM", True, 60)
    assert any("the cluster is" in d["message"] for d in check["detail"])
    fill = c.ceph("scale", "status")["signals"]["fill"]
    assert fill["status"] == "WARN" and fill["data"]["target_ratio"] == target
    # Pacific does not pass `config rm` of a module option to the running module: set the defaults back
    scale.set("fill_target_ratio", 0.8)
    scale.set("fill_warn_ratio", 0.7)
    c.wait_health("SCALE_FILL_HEADROOM", False, 60)


def test_db_share_check_follows_its_threshold(scale, ceph_cluster):
    c = ceph_cluster
    # osd.0's DB is 256 MiB of 4 GiB (6.25 %), the others 1 GiB (25 %): above the study's 4 %
    assert "SCALE_DB_SHARE_LOW" not in c.health_checks()
    scale.set("bluefs_db_share_min_ratio", 0.1)
    try:
        check = c.wait_health("SCALE_DB_SHARE_LOW", True, 60)
        assert [d["message"] for d in check["detail"]] == [
            "osd.0: DB device is 6.2 % of the data device (study: at least 10.0 %)"
        ]
    finally:
        scale.set("bluefs_db_share_min_ratio", 0.04)
    c.wait_health("SCALE_DB_SHARE_LOW", False, 60)


def test_load_check_against_a_lowered_baseline(scale, ceph_cluster):
    from cluster import s3load

    c = ceph_cluster
    scale.set("baseline_put_ops_per_hdd", 0.01)  # 3 HDD OSDs: any PUT rate is far above it
    try:
        scale.wait_value("ceph_scale_config", lambda v: v == 0.01, option="baseline_put_ops_per_hdd")
        r = s3load.run(c.rgw_endpoint, *c.user_keys, f"scale-load-{int(time.time())}", objects=60, size=1024,
                       concurrency=2, gets=False, max_seconds=60)  # fmt: skip
        assert r.puts > 0
        check = c.wait_health("SCALE_LOAD_ABOVE_BASELINE", True, 60)
        assert "x the study's baseline" in check["detail"][0]["message"]
        assert scale.value("ceph_scale_s3_load_ratio", op="mixed", unit="ops") > 1
        load = c.ceph("scale", "status")["signals"]["load"]
        assert load["status"] == "WARN", load
    finally:
        scale.set("baseline_put_ops_per_hdd", 60)
    c.wait_health("SCALE_LOAD_ABOVE_BASELINE", False, 60)


def test_standby_answers_503_naming_the_active(scale, ceph_cluster):
    active = ceph_cluster.refresh_active_mgr()
    standby = next(i for i in ceph_cluster.mgr_ids if i != active)
    status, body = wait_until(
        lambda: (lambda r: r if r[0] == 503 else None)(http_get(f"http://127.0.0.1:{scale.ports[standby]}/metrics")),
        60,
        what="the standby's 503",
    )
    assert f"mgr.{standby}" in body and f"127.0.0.1:{scale.ports[active]}/metrics" in body


def mgr_threads(pid: int) -> int:
    """The manager's threads, the fewest of five looks 0.2 s apart: the manager's own short-lived
    threads come and go (Tentacle's added 32 for a moment once)."""
    counts = []
    for _ in range(5):
        counts.append(proc_figures(pid)[1])
        time.sleep(0.2)
    return min(counts)


def test_hostile_peers_meet_the_sidecars_limits_inside_the_manager(scale, ceph_cluster):
    """The module's server runs on the manager's threads: silent connections get no thread
    (260 once kept every scraper out; 155 idle ones were once held for 50 s, a thread each), a header flood is refused
    before anything else, a burst of 50 scrapers is served (p50 was 1.02 s with a listen
    backlog of 5), idle connections are closed and trickled headers cut off at the deadline."""
    import concurrent.futures
    import socket

    from ceph_scale.io.http_serving import MAX_CONNECTIONS

    active = ceph_cluster.refresh_active_mgr()
    pid, port = ceph_cluster.pids[f"mgr.{active}"], scale.ports[active]
    base = mgr_threads(pid)
    url = f"http://127.0.0.1:{port}/metrics"
    held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(MAX_CONNECTIONS + 40)]
    try:
        time.sleep(2)
        # Silent connections wait in the server's selector: no thread each (a thread per connection
        # is len(held) more; the whole manager's count also moves with its own work), and no
        # scraper kept out.
        grown = mgr_threads(pid) - base
        assert grown < len(held) // 4, grown
        assert http_get(url, timeout=10)[0] == 200
    finally:
        for conn in held:
            conn.close()

    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        try:
            for i in range(40):  # 1.25 MB of headers
                conn.sendall(b"X-Pad-%d: " % i + b"a" * 32000 + b"\r\n")
        except OSError:
            pass
        conn.settimeout(10)
        assert conn.recv(100).startswith(b"HTTP/1.1 431")

    url = f"http://127.0.0.1:{port}/metrics"
    with concurrent.futures.ThreadPoolExecutor(50) as pool:
        statuses = list(pool.map(lambda _: http_get(url, timeout=30)[0], range(50)))
    assert statuses == [200] * 50

    # With the limits in force, not shortened: idle connections are closed after IDLE_TIMEOUT,
    # and headers trickled a byte a second end at HEADER_DEADLINE with a 431 (both held the
    # manager's threads for as long as the client liked).
    from ceph_scale.io.http_serving import HEADER_DEADLINE, IDLE_TIMEOUT
    from tests.mgr.test_hostile_servers import closed_by_server, trickle

    idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(20)]
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            trickled = pool.submit(trickle, port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ", 1.0,
                                   HEADER_DEADLINE + 15)  # fmt: skip
            started = time.monotonic()
            assert all(closed_by_server(c, IDLE_TIMEOUT + 10) for c in idle)
            assert time.monotonic() - started < IDLE_TIMEOUT + 10
            answer, took = trickled.result()
        assert answer.startswith(b"HTTP/1.1 431") and took < HEADER_DEADLINE + 5, (answer[:60], took)
    finally:
        for c in idle:
            c.close()
    assert http_get(url, timeout=30)[0] == 200


def bucket_seen(scale, bucket: str, objects: int):
    return scale.value("ceph_scale_rgw_top_bucket_objects", bucket=bucket) == objects


def test_reshard_counted_once_across_a_failover(scale, ceph_cluster):
    """A bucket the module knows reshards while the managers fail over: the new active
    manager restores the bucket table from the store and counts the reshard once."""
    from cluster import s3load

    c = ceph_cluster
    bucket = f"scale-failover-{int(time.time())}"
    limit = c.reshard_objs_per_shard  # 1 shard per new bucket: 1.5 x limit reshards once, to 3 shards
    before = scale.wait_value("ceph_scale_rgw_reshard_events_total", lambda v: v >= 0)
    r = s3load.run(c.rgw_endpoint, *c.user_keys, bucket, objects=limit // 2, size=512, gets=False, prefix="a")
    assert r.errors == 0
    wait_until(lambda: bucket_seen(scale, bucket, limit // 2), 60, what="the module to see the bucket")
    old_id = c.bucket_stats(bucket)["id"]
    time.sleep(3)  # one more buckets cycle and state save
    c.fail_mgr()
    r = s3load.run(c.rgw_endpoint, *c.user_keys, bucket, objects=limit, size=512, gets=False, prefix="b")
    assert r.errors == 0
    wait_until(lambda: c.bucket_stats(bucket)["num_shards"] > 1, 120, interval=1, what="RGW to reshard the bucket")
    assert (c.bucket_stats(bucket)["id"] == old_id) == c.release.reshard_keeps_id
    shards = c.bucket_stats(bucket)["num_shards"]
    # the module's next bucket listing after the reshard: the new shard count, not only the objects
    wait_until(
        lambda: scale.value("ceph_scale_rgw_top_bucket_shards", bucket=bucket) == shards,
        90,
        what="the new active to see the resharded bucket",
    )
    assert scale.value("ceph_scale_rgw_reshard_events_total") == before + 1
    time.sleep(8)  # more cycles: no double count
    assert scale.value("ceph_scale_rgw_reshard_events_total") == before + 1
    # and back: the first manager restores the same count from the store
    c.fail_mgr()
    wait_until(lambda: scale.value("ceph_scale_rgw_reshard_events_total") is not None, 90, what="the module again")
    assert scale.value("ceph_scale_rgw_reshard_events_total") == before + 1
    # and everything else is collected afresh by the new active manager
    wait_until(lambda: scale.source_ok() == {s: 1.0 for s in SOURCES}, 90, what="every source after the failover")
    assert_fresh(scale, SOURCES)


def test_reshards_before_a_buckets_first_poll_are_counted(scale, ceph_cluster):
    """A bucket created and resharded twice between two bucket polls: from Reef on the index
    generation counts both, Pacific's new instance id one; a failover keeps the count."""
    from cluster import s3load

    c = ceph_cluster
    bucket = f"scale-unseen-{int(time.time())}"
    before = scale.wait_value("ceph_scale_rgw_reshard_events_total", lambda v: v >= 0)
    scale.set("rgw_interval", 600)
    try:
        wait_until(lambda: source_age(scale, "buckets") > 8, 60,
                   what="the bucket polls to pause")  # fmt: skip
        s3load.client(c.rgw_endpoint, *c.user_keys).create_bucket(Bucket=bucket)
        for shards in (5, 7):
            c.radosgw_admin("bucket", "reshard", "--bucket", bucket, "--num-shards", str(shards), fmt_json=False)
    finally:
        scale.set("rgw_interval", 3)
    expected = before + (2 if c.release.reshard_keeps_id else 1)
    scale.wait_value("ceph_scale_rgw_reshard_events_total", lambda v: v == expected, 90)
    assert scale.value("ceph_scale_rgw_index_generation_readable") == 1
    c.fail_mgr()
    wait_until(lambda: scale.value("ceph_scale_rgw_reshard_events_total") is not None, 90, what="the module again")
    time.sleep(6)  # bucket polls on the new active manager: no double count
    assert scale.value("ceph_scale_rgw_reshard_events_total") == expected


def test_the_wait_for_prometheus_follows_a_failover_it_was_not_told_of(ceph_cluster):
    """Enabling a module respawns both managers and either may come back active: CI's Pacific
    start once waited 60 s on the manager active before, which served the standby's empty page.
    The wait reads the active manager at every try, so a failover it was not told of is followed."""
    c = ceph_cluster
    old = c.refresh_active_mgr()
    c.ceph("mgr", "fail", old, fmt_json=False)
    assert c.active_mgr == old  # the cluster object still names the failed manager
    new = c.await_prometheus(90)
    assert new != old and c.active_mgr == new
    assert c.ceph("mgr", "stat")["active_name"] == new
    assert "ceph_osd_up" in c.mgr_metrics(10)


def test_a_manager_that_died_is_started_again_before_a_failover(ceph_cluster):
    """Pacific's manager once aborted as it became active (cephx, `FAILED ceph_assert(ckh)`), and
    every later failover had no standby to go to. As its service unit would, the harness starts a
    dead manager again, and the failover goes on."""
    c = ceph_cluster
    old = c.refresh_active_mgr()
    standby = next(f"mgr.{i}" for i in c.mgr_ids if i != old)
    os.kill(c.pids[standby], signal.SIGKILL)
    wait_until(lambda: not c.running()[standby], 10, what=f"{standby} to die")
    with pytest.warns(UserWarning, match=f"{standby} had died"):
        new = c.fail_mgr()
    assert f"mgr.{new}" == standby and c.running()[f"mgr.{old}"]


def test_the_stock_modules_metrics_are_read_through_its_restart_after_an_option_change(scale, ceph_cluster):
    """Any change of a manager option restarts the prometheus module's server (its config_notify),
    ours included; Tentacle's refuses for up to 10 s while it waits for its port. CI's Tentacle once
    refused right after the wait had seen it serve. The harness's read asks again through it."""
    c = ceph_cluster
    c.await_prometheus(90)
    scale.set("rgw_top_buckets", 51)
    try:
        end = time.monotonic() + 15  # the restart begins a moment after the change
        while time.monotonic() < end:
            assert "ceph_osd_up" in c.mgr_metrics(30)
            time.sleep(0.2)
    finally:
        scale.set("rgw_top_buckets", 50)


def test_reshard_queue_read_from_rados_matches_radosgw_admin(scale, ceph_cluster):
    c = ceph_cluster
    bucket = f"scale-queued-{int(time.time())}"
    entry = c.queue_reshard(bucket)
    try:
        queued = scale.wait_value("ceph_scale_rgw_reshard_queued", lambda v: v >= 1, timeout=60)
        assert queued == len(c.reshard_list())
        status = c.ceph("scale", "status")
        assert status["signals"]["reshard"]["data"]["reshard_queued"] == queued
        assert any(o["bucket"] == entry["bucket_name"] for o in status["signals"]["reshard"]["offenders"])

        # The check may be on already for another bucket: this one joins its detail within a poll.
        def named() -> bool:
            check = c.health_checks().get("SCALE_RESHARD_SOON", {})
            return any(bucket in d["message"] for d in check.get("detail", ()))

        wait_until(named, 120, 2.0, what=f"SCALE_RESHARD_SOON naming {bucket}")
    finally:
        c.release_reshards()
    scale.wait_value("ceph_scale_rgw_reshard_queued", lambda v: v == 0, timeout=60)


def test_a_queued_buckets_own_ops_are_counted_where_the_manager_has_labeled_counters(scale, ceph_cluster):
    """What confirms a reshard as a plunge's cause: the queued bucket's own ops, from the RGW's
    per-bucket counters through the manager's labeled call (Tentacle, with rgw_bucket_counters_cache
    on, which the RGW reads at its start). Counted exactly: 7 more PUTs and 5 GETs by the client
    show as 7 and 5 more. Pacific's and Reef's managers have no such call: the status says so. The
    sidecar's route to them, `ceph scale bucket-ops`, answers the documented read-only user (its
    only mgr cap 'allow r') with the same counts."""
    from cluster import s3load

    c = ceph_cluster
    labeled = c.release.name == "tentacle"
    bucket = f"scale-own-ops-{int(time.time())}"
    if labeled:
        c.ceph("config", "set", "client.rgw", "rgw_bucket_counters_cache", "true", fmt_json=False)
        c.restart_daemon(RGW_NAME)
        wait_until(c.rgw_answers, 60, interval=0.5, what="the RGW after restart")

    def own_ops() -> dict:
        return c.ceph("scale", "status")["signals"]["plunge"]["data"]

    keyring = c.dir / "ceph-scale.keyring"
    caps = c.create_documented_user("docs/security.md", "client.ceph-scale", keyring)  # the sidecar's own user
    assert caps["mgr"] == "allow r", caps

    def as_the_sidecar() -> dict:
        return c.ceph("--name", "client.ceph-scale", "--keyring", str(keyring), "scale", "bucket-ops", bucket)

    try:
        c.queue_reshard(bucket)
        if not labeled:
            wait_until(lambda: "no labeled counter calls" in own_ops()["reshard_own_ops"], 60, 1.0,
                       what="the status saying why reshards are named unconfirmed")  # fmt: skip
            assert own_ops()["reshard_bucket_ops"] == {}
            assert as_the_sidecar() == {"bucket_ops": [], "unread": own_ops()["reshard_own_ops"].split(": ", 1)[1]}
            return
        wait_until(lambda: bucket in own_ops()["reshard_bucket_ops"], 60, 1.0, what=f"{bucket}'s counts")
        assert own_ops()["reshard_own_ops"].startswith("reshards confirmed by their buckets' own ops:")
        # The queue's last PUTs reach the manager within a stats period: counts that held for two
        # of the module's reshard polls are the ones to add to.
        seen: list[dict] = []

        def settled() -> bool:
            seen.append(own_ops()["reshard_bucket_ops"][bucket])
            return len(seen) > 1 and seen[-1] == seen[-2]

        wait_until(settled, 60, 4.0, what=f"{bucket}'s counts to settle")
        before = seen[-1]
        s3 = s3load.client(c.rgw_endpoint, *c.user_keys)
        for i in range(7):
            s3.put_object(Bucket=bucket, Key=f"own-{i}", Body=b"x")
        for i in range(5):
            s3.get_object(Bucket=bucket, Key=f"own-{i}")["Body"].read()
        want = {"put": before["put"] + 7, "get": before["get"] + 5}
        wait_until(lambda: own_ops()["reshard_bucket_ops"][bucket] == want, 60, 1.0, what=f"{want} for {bucket}")
        answer = as_the_sidecar()
        assert answer["unread"] == "" and {r[1] for r in answer["bucket_ops"]} == {"", bucket}  # "": RGW totals
        rows = [r for r in answer["bucket_ops"] if r[1] == bucket]
        assert {"put": sum(r[2] for r in rows), "get": sum(r[3] for r in rows)} == want
        # Each RGW's own totals, read in the same pass: at least its count of the bucket.
        totals = {r[0]: r for r in answer["bucket_ops"] if r[1] == ""}
        assert all(totals[r[0]][2] >= r[2] and totals[r[0]][3] >= r[3] for r in rows), answer
    finally:
        if labeled:
            c.ceph("config", "rm", "client.rgw", "rgw_bucket_counters_cache", fmt_json=False)
        c.release_reshards()  # restarts the RGW: without the counters again


def test_unreachable_rgw_fails_the_buckets_source_only(scale, ceph_cluster):
    closed = free_port()
    buckets_before = scale.value("ceph_scale_rgw_buckets")
    scale.set("rgw_endpoint", f"http://127.0.0.1:{closed}")
    try:
        # Failed on this endpoint, not still on an earlier test's (its error names the address).
        wait_until(
            lambda: (
                scale.source_ok()["buckets"] == 0
                and f"127.0.0.1:{closed}" in (ceph_cluster.ceph("scale", "status")["sources"]["buckets"]["error"] or "")
            ),
            60,
            what="the buckets source to fail on the closed port",
        )
        status, _ = http_get(scale.url())
        assert status == 200
        ok = scale.source_ok()
        assert ok["reshard"] == 1 and ok["osd_map"] == 1  # the queue is read from RADOS, not from RGW
        assert scale.value("ceph_scale_rgw_buckets") == buckets_before  # the last good data, ageing
        assert source_age(scale, "buckets") > 2
        report = ceph_cluster.ceph("scale", "status")
        assert f"127.0.0.1:{closed}" in report["sources"]["buckets"]["error"]
        assert store_documented_rgw_keys(ceph_cluster)[1] not in json.dumps(report)
    finally:
        scale.set("rgw_endpoint", ceph_cluster.rgw_endpoint)
    wait_until(lambda: scale.source_ok()["buckets"] == 1, 60, what="the buckets source to recover")


def test_rgw_keys_from_the_config_key_store(scale, ceph_cluster):
    """The keys live in the module's store (config-key, set as documented), out of `ceph config
    dump`: without them the buckets source says what it misses; with them it works again."""
    c = ceph_cluster
    for key in ("rgw_access_key", "rgw_secret_key"):
        c.ceph("config-key", "rm", f"mgr/scale/{key}", fmt_json=False)
    try:
        wait_until(
            lambda: "rgw_access_key" in (c.ceph("scale", "status")["sources"]["buckets"]["error"] or ""),
            60,
            what="the buckets source to miss its keys",
        )
    finally:
        access, secret = store_documented_rgw_keys(c)
    wait_until(lambda: scale.source_ok()["buckets"] == 1, 60, what="the buckets source with the stored keys")
    assert secret not in json.dumps(c.ceph("config", "dump"))
    for log in sorted((c.dir / "log").glob("mgr.*.log")):
        assert secret not in log.read_text(errors="replace"), f"the RGW secret key is in {log}"


def test_radosgw_admin_as_the_manager(scale, ceph_cluster):
    """Without Admin Ops keys: radosgw-admin run with the manager's own identity and keyring."""
    expected = len(ceph_cluster.radosgw_admin("bucket", "list"))
    scale.set("rgw_source", "radosgw_admin")
    try:
        time.sleep(8)
        wait_until(lambda: scale.source_ok() == {s: 1.0 for s in SOURCES}, 60, what="every source via radosgw-admin")
        assert scale.value("ceph_scale_rgw_buckets") == expected
    finally:
        scale.set("rgw_source", "auto")


def test_bad_module_option_on_the_cluster_keeps_the_module_serving(scale, ceph_cluster):
    c = ceph_cluster
    scale.set("rgw_source", "telepathy")  # --force: past the monitor's enum check
    try:
        check = c.wait_health("SCALE_BAD_CONFIG", True, 60)
        assert "rgw_source: expected one of" in json.dumps(check)
        assert scale.source_ok()["buckets"] == 1  # the previous settings stay in force
    finally:
        scale.set("rgw_source", "auto")
    # 120 s: under the test command's load (2026-12-07) the check was still raised 60 s after
    # the fix on Pacific, where the same test alone sees it clear within seconds.
    c.wait_health("SCALE_BAD_CONFIG", False, 120)


def test_read_only_rgw_user_is_enough_for_the_module(scale, ceph_cluster):
    """The module polls with the documented read-only RGW user (the fixture's, from its store):
    it has the documented read caps and nothing more, and they are enough, poll after poll."""
    c = ceph_cluster
    documented = documented_rgw_user_command(MGR_DOC, MGR_RGW_USER)
    caps = c.radosgw_admin("user", "info", "--uid", MGR_RGW_USER)["caps"]
    assert sorted(f"{x['type']}={x['perm']}" for x in caps) == sorted(
        documented[documented.index("--caps") + 1].split(";")
    )
    assert {x["perm"] for x in caps} == {"read"}
    assert (
        c.ceph("config-key", "get", "mgr/scale/rgw_access_key", fmt_json=False).strip()
        == store_documented_rgw_keys(c)[0]
    )
    wait_until(lambda: scale.source_ok()["buckets"] == 1, 30, what="a bucket poll with the read-only user")
    failures = scale.value("ceph_scale_source_failures_total", source="buckets")
    time.sleep(8)  # several bucket polls with the read-only user
    assert scale.value("ceph_scale_source_failures_total", source="buckets") == failures
    assert_fresh(scale, ("buckets", "reshard"))
    assert scale.value("ceph_scale_rgw_buckets") == len(c.radosgw_admin("bucket", "list"))


def test_module_rgw_down_and_back(scale, ceph_cluster):
    from cluster.testcluster import RGW_NAME

    c = ceph_cluster
    buckets = scale.value("ceph_scale_rgw_buckets")
    c.stop_daemon(RGW_NAME)
    try:
        wait_until(lambda: scale.source_ok()["buckets"] == 0, 60, what="the buckets source to fail")
        assert_failed_and_ageing(scale, "buckets")
        assert http_get(scale.url())[0] == 200
        assert_fresh(scale, ("osd_map", "capacity", "perf", "pgs", "health", "reshard"))
        assert scale.value("ceph_scale_rgw_buckets") == buckets  # the last good data, not zero
    finally:
        c.start_daemon(RGW_NAME)
    wait_until(c.rgw_answers, 60, what="the RGW")
    wait_until(lambda: scale.source_ok() == {s: 1.0 for s in SOURCES}, 90, what="every source to recover")


def test_module_hanging_rgw_hits_its_timeout(scale, ceph_cluster):
    """An RGW that accepts and never answers: the read ends at rgw_timeout, the source is
    failed with the reason, and the module serves on; back to normal when it answers again."""
    from tests.hanging import HangingServer

    hanging = HangingServer()
    # Long enough that a scrape waiting on the hanging read would be told from one served from
    # the cache on a loaded machine (CI's Reef once took 3.6 s for the cached answer).
    timeout = 15
    scale.set("rgw_timeout", timeout)
    scale.set("rgw_endpoint", f"http://127.0.0.1:{hanging.port}")
    try:
        wait_until(lambda: scale.source_ok()["buckets"] == 0, 90, what="the buckets source to time out")
        assert_failed_and_ageing(scale, "buckets")
        error = ceph_cluster.ceph("scale", "status")["sources"]["buckets"]["error"]
        assert "timed out" in error, error
        assert scale.value("ceph_scale_source_duration_seconds", source="buckets") < timeout + 3
        started = time.monotonic()
        assert http_get(scale.url())[0] == 200
        assert time.monotonic() - started < timeout / 2  # served from the cache while the source hangs
        assert_fresh(scale, ("osd_map", "perf", "pgs"))
    finally:
        scale.set("rgw_endpoint", ceph_cluster.rgw_endpoint)
        scale.set("rgw_timeout", 60)
        hanging.close()
    wait_until(lambda: scale.source_ok()["buckets"] == 1, 60, what="the buckets source to recover")


def test_module_osd_down_and_out(scale, ceph_cluster):
    c = ceph_cluster
    c.osd_down(2)
    try:
        scale.wait_value("ceph_scale_osds", lambda v: v == 1, state="down_in")
        assert scale.value("ceph_scale_osds_down_ratio") == pytest.approx(1 / 3)
        # The study's table [004], its last segment extended to a third of the OSDs.
        assert scale.value("ceph_scale_degraded_expected_drop_ratio", op="put") == pytest.approx(0.37333, abs=1e-4)
        assert scale.value("ceph_scale_degraded_expected_drop_ratio", op="get") == pytest.approx(0.43511, abs=1e-4)
        assert scale.value("ceph_scale_hdd_osds") == 2
        wait_until(lambda: scale.source_ok() == {s: 1.0 for s in SOURCES}, 60, what="every source, an OSD down")
        freshness.assert_valid_exposition(scale.text())
        degraded = c.ceph("scale", "status")["signals"]
        assert degraded["fill"]["status"] in ("OK", "WARN")  # the report still builds
        c.osd_out(2)  # out: it holds no data, and no longer counts as down for the drop
        scale.wait_value("ceph_scale_osds", lambda v: v == 1, state="down_out")
        scale.wait_value("ceph_scale_osds_down_ratio", lambda v: v == 0)
    finally:
        c.osd_in(2)
        c.osd_up(2)
    scale.wait_value("ceph_scale_osds_down_ratio", lambda v: v == 0, timeout=90)


def test_module_monitor_down_and_back(scale, ceph_cluster):
    """The manager keeps its maps while the monitor is away: the sources read from the
    manager's memory go on; those that ask the monitor (config get) time out and age."""
    c = ceph_cluster
    scale.set("rgw_timeout", 4)  # the reshard source asks the monitor for rgw_reshard_num_logs
    time.sleep(4)
    scale.pinned = scale.url()
    c.stop_daemon("mon.a")
    try:
        wait_until(lambda: scale.source_ok()["settings"] == 0, 40, what="the settings source to fail")
        assert_failed_and_ageing(scale, "settings")
        assert http_get(scale.url())[0] == 200
        ok = scale.source_ok()
        assert ok["osd_map"] == 1 and ok["perf"] == 1 and ok["pgs"] == 1, ok
        assert scale.value("ceph_scale_source_duration_seconds", source="settings") < 10 + 3
        assert scale.value("ceph_scale_cluster_used_ratio") is not None
    finally:
        c.start_daemon("mon.a")
        scale.pinned = None
    wait_until(lambda: c.ceph("mgr", "stat", timeout=10).get("available"), 120, what="an active manager")
    wait_until(lambda: scale.source_ok() == {s: 1.0 for s in SOURCES}, 120, what="every source after the monitor")
    scale.set("rgw_timeout", 60)


def test_the_running_rgws_shard_limit_and_an_explicit_threshold(scale, ceph_cluster):
    """The module reads the limit the RGW runs with (changed in the daemon only), and an
    explicit mgr/scale/rgw_max_objs_per_shard wins over it."""
    from cluster.testcluster import RGW_NAME

    c = ceph_cluster
    in_db = c.reshard_objs_per_shard
    c.admin_socket(RGW_NAME, "config", "set", "rgw_max_objs_per_shard", str(in_db // 5))
    try:
        scale.wait_value("ceph_scale_config", lambda v: v == in_db // 5, timeout=60, option="rgw_max_objs_per_shard")
        assert scale.value("ceph_scale_config_origin", option="rgw_max_objs_per_shard", origin="rgw") == 1
        assert scale.value("ceph_scale_rgw_running_option_values", option="rgw_max_objs_per_shard") == 1
        assert scale.value("ceph_scale_rgw_running_config_unread") == 0
        scale.set("rgw_max_objs_per_shard", 1000)
        scale.wait_value("ceph_scale_config", lambda v: v == 1000, timeout=60, option="rgw_max_objs_per_shard")
        assert scale.value("ceph_scale_config_origin", option="rgw_max_objs_per_shard", origin="threshold") == 1
    finally:
        # Pacific does not pass `config rm` of a module option to the running module: the
        # cluster's own value, set explicitly, for the tests after this one.
        scale.set("rgw_max_objs_per_shard", in_db)
        c.admin_socket(RGW_NAME, "config", "set", "rgw_max_objs_per_shard", str(in_db))
    scale.wait_value("ceph_scale_config", lambda v: v == in_db, timeout=60, option="rgw_max_objs_per_shard")


def test_scrub_backlog_that_does_not_clear(scale, ceph_cluster):
    """Scrubs blocked with short intervals: Ceph raises PG_NOT_DEEP_SCRUBBED; the module adds
    that nothing completes, so the backlog never clears. Last: it changes the cluster."""
    c = ceph_cluster
    c.block_scrubs(wait=True)
    # A fresh rate window (scrubs completed before the block, e.g. by earlier tests, would
    # otherwise give a rate that clears the backlog): changing it restarts the window.
    scale.set("scrub_rate_window_seconds", 60)
    try:
        check = c.wait_health("SCALE_SCRUB_BACKLOG", True, 90)
        text = json.dumps(check)
        assert "PGs overdue" in text and "so the backlog does not clear" in text
        # The rate window restarted with the option: the value comes with its second sample.
        scale.wait_value(
            "ceph_scale_pg_scrub_backlog_clear_seconds", lambda v: v == float("inf"), timeout=60, kind="deep_scrub"
        )
        report = c.ceph("scale", "status")
        assert report["signals"]["scrub"]["status"] == "WARN"
        assert report["signals"]["scrub"]["offenders"][0]["backlog_clear_seconds"] == "+Inf"
        # A pool with intervals of its own, longer: Ceph stops counting its PGs, and so does the module.
        c.pool_scrub_intervals("default.rgw.log", 86400)
        pool_id = c.pool_id("default.rgw.log")
        wait_until(
            lambda: agree_without_pool(
                c.health_checks(), pool_id, lambda kind: scale.value("ceph_scale_pg_scrub_overdue", kind=kind)
            ),
            60,
            what="the module's counts to leave the pool out as Ceph's do",
        )
    finally:
        c.pool_scrub_intervals("default.rgw.log", 0)
        scale.set("scrub_rate_window_seconds", 3600)
        c.unblock_scrubs(restore_intervals=True)


def test_the_sidecar_reads_counters_from_the_module_when_the_stock_one_has_none(scale, ceph_cluster, scratch):
    """Neither the stock prometheus module (off, broken or excluding them: Reef+'s default)
    nor ceph-exporter: the sidecar gets the per-daemon counters from `ceph scale counters`,
    as the documented read-only user (docs/security.md: its only mgr cap is 'allow r')."""
    from demo.sidecar import Sidecar

    c = ceph_cluster
    keyring = c.dir / "ceph-scale.keyring"
    caps = c.create_documented_user("docs/security.md", "client.ceph-scale", keyring)  # the sidecar's own user
    assert caps["mgr"] == "allow r", caps
    nowhere = f"http://127.0.0.1:{free_port()}/metrics"  # the stock module, off
    exporter = Sidecar(c, scratch, ceph_user="ceph-scale", extra_args=["--ceph-keyring", str(keyring)],
                       config={"mgr_prometheus_url": nowhere}).start()  # fmt: skip
    try:
        wait_until(lambda: exporter.value("ceph_scale_source_success", source="perf") == 1, 60, what="perf")
        spilled = c.bluefs(0)["slow_used_bytes"]
        wait_until(
            lambda: exporter.value("ceph_scale_bluefs_spilled_bytes", ceph_daemon="osd.0") == spilled,
            30,
            what="osd.0's spilled bytes through the module",
        )
        m = exporter.metrics()
        assert {dict(k)["op"] for k in m["ceph_scale_rgw_s3_ops_total"]} == {"put", "get"}
        assert exporter.value("ceph_scale_rgw_s3_counters_missing") == 0
        assert len(m["ceph_scale_bluefs_spilled_bytes"]) == c.osds
    finally:
        exporter.stop()


def test_the_sidecar_reads_counters_from_the_module_when_the_stock_one_excludes_them(scale, ceph_cluster, scratch):
    """Reef's default: the stock module serves, without per-daemon counters
    (`exclude_perf_counters`, read when a manager becomes active). The sidecar finds it through
    `mgr services`, finds no OSD in it, and reads the counters from the scale module."""
    from demo.sidecar import Sidecar

    c = ceph_cluster
    if c.release.name == "pacific":  # its module has no such option: it always serves them
        wait_until(lambda: 'ceph_bluefs_slow_used_bytes{ceph_daemon="osd.0"}' in c.mgr_metrics(10), 60,
                   what="osd.0's BlueFS counters from the stock module")  # fmt: skip
        return
    option = "mgr/prometheus/exclude_perf_counters"
    c.ceph("config", "set", "mgr", option, "true", fmt_json=False)
    exporter = None
    try:
        c.ceph("mgr", "fail", c.refresh_active_mgr(), fmt_json=False)
        c.await_prometheus(90)  # the stock module on the new active mgr
        stock = c.mgr_metrics(10)
        assert 'ceph_daemon="osd.' in stock and "ceph_bluefs_" not in stock  # up/in, no counters
        exporter = Sidecar(c, scratch).start()
        spilled = c.bluefs(0)["slow_used_bytes"]
        wait_until(lambda: exporter.value("ceph_scale_bluefs_spilled_bytes", ceph_daemon="osd.0") == spilled, 60,
                   what="osd.0's spilled bytes through the scale module")  # fmt: skip
        assert exporter.value("ceph_scale_source_success", source="perf") == 1
        assert exporter.value("ceph_scale_rgw_s3_counters_missing") == 0
    finally:
        if exporter is not None:
            exporter.stop()
        c.ceph("config", "set", "mgr", option, "false", fmt_json=False)
        c.fail_mgr()  # a manager that serves them again, for the tests after this one


def test_module_ls_says_why_scale_can_or_cannot_run(scale, ceph_cluster):
    """On Reef with a PyO3 bcrypt (Debian 13) the manager refuses every module unless the
    bcrypt stand-in is on its module path; Ceph names the cause either way."""
    c = ceph_cluster
    stand_in = c.mgr_module_dir / "bcrypt"
    assert stand_in.exists() == (c.release.name == "reef")  # Tentacle: main interpreter; Pacific: cffi bcrypt
    assert "scale" in c.ceph("mgr", "module", "ls")["enabled_modules"]
    if not stand_in.exists():
        return
    try:
        with c.without_bcrypt_stand_in():  # a manager started afresh without it refuses scale, and says why
            active = c.refresh_active_mgr()
            standby = next(i for i in c.mgr_ids if i != active)
            c.restart_daemon(f"mgr.{standby}")
            wait_until(lambda: c.ceph("mgr", "dump", timeout=10)["standbys"], 60, what="the standby back")
            c.ceph("mgr", "fail", active, fmt_json=False)
            wait_until(lambda: c.refresh_active_mgr() == standby, 60, what="the restarted manager active")

            def refused() -> str | None:
                checks = c.ceph("health", "detail")["checks"]
                text = json.dumps(checks.get("MGR_MODULE_DEPENDENCY", {}))
                return text if "scale" in text and "PyO3" in text else None

            assert "subinterpreters" in wait_until(refused, 90, what="the manager to refuse scale")
            c.ceph("mgr", "module", "disable", "scale", fmt_json=False)
            listed = wait_until(
                lambda: next(
                    (m for m in c.ceph("mgr", "module", "ls")["disabled_modules"] if m["name"] == "scale"), None
                ),
                60,
                what="scale among the disabled modules",
            )
            assert listed["can_run"] is False and "PyO3" in listed["error_string"], listed
    finally:
        for ident in c.mgr_ids:  # both managers load the stand-in again
            c.restart_daemon(f"mgr.{ident}")
        wait_until(lambda: c.ceph("mgr", "stat", timeout=10).get("available"), 120, what="an active manager")
        # The monitor refuses the enable until the new active manager has reported its modules
        # (it still holds the refusing manager's list for a few seconds).
        wait_until(
            lambda: c.ceph("mgr", "module", "enable", "scale", fmt_json=False) is not None,
            120,
            what="scale enabled on a manager with the stand-in",
        )
        wait_until(lambda: c.ceph("mgr", "stat", timeout=10).get("available"), 120, what="an active manager")
        c.refresh_active_mgr()
        wait_until(lambda: "ceph_scale_build_info" in scale.text(), 120, interval=2, what="the module again")
