"""The sidecar against the real test cluster, each study condition made to happen for real.

Ordered: the scenarios share one cluster (the session fixture) and run in
file order; each leaves the cluster in a state the next can live with.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from cluster import s3load
from cluster.commands import (
    DOCUMENTED_CEPH_USER,
    DOCUMENTED_RGW_USER,
    SECURITY_DOC,
    documented_caps,
    documented_rgw_user_command,
)
from cluster.testcluster import RGW_NAME
from demo.monitoring import free_port, wait_until
from demo.sidecar import Sidecar
from tests.conftest import ON_EVERY_RELEASE
from tests.hanging import HangingServer
from tests.scrub_checks import agree_without_pool

pytestmark = [pytest.mark.cluster, ON_EVERY_RELEASE]

SOURCES = ("osd_map", "capacity", "perf", "pgs", "settings", "health", "buckets", "reshard")


def rgw_puts(cluster) -> float:
    """The RGW's own PUT counter, from its admin socket: `rgw.put`, or Tentacle's `rgw_op.put_obj_ops`."""
    dump = cluster.admin_socket(RGW_NAME, "perf", "dump")
    if "put_obj_ops" in dump.get("rgw_op", {}):
        return dump["rgw_op"]["put_obj_ops"]
    return dump["rgw"]["put"]


def test_every_source_succeeds(sidecar):
    def all_ok():
        m = sidecar.metrics()["ceph_scale_source_success"]
        return {dict(k)["source"]: v for k, v in m.items()} == {s: 1.0 for s in SOURCES}

    wait_until(all_ok, 60, what="every source to succeed")
    assert sidecar.value("ceph_scale_build_info", producer="sidecar") == 1


def test_the_session_sidecar_runs_as_the_documented_read_only_users(ceph_cluster, sidecar):
    """The sidecar every other test reads runs as docs/security.md tells operators to run it: its
    cephx user and RGW user made by the commands written there, their keyring and credentials
    file readable by their owner only, and no admin identity anywhere in what it runs with."""
    c = ceph_cluster
    assert f"--ceph-user={DOCUMENTED_CEPH_USER}" in sidecar.argv
    keyring = Path(sidecar.argv[sidecar.argv.index("--ceph-keyring") + 1])
    assert keyring.stat().st_mode & 0o777 == 0o600
    assert c.ceph("auth", "get", f"client.{DOCUMENTED_CEPH_USER}")[0]["caps"] == documented_caps(
        SECURITY_DOC, f"client.{DOCUMENTED_CEPH_USER}"
    )
    assert "client.admin" not in keyring.read_text()
    creds_file = Path(yaml.safe_load(sidecar.config_path.read_text())["rgw"]["credentials_file"])
    assert creds_file.stat().st_mode & 0o777 == 0o600
    creds = json.loads(creds_file.read_text())
    assert creds["access_key"] != c.admin_keys[0]
    user = c.radosgw_admin("user", "info", "--access-key", creds["access_key"])
    documented = documented_rgw_user_command(SECURITY_DOC, DOCUMENTED_RGW_USER)
    assert user["user_id"] == DOCUMENTED_RGW_USER
    assert ";".join(sorted(f"{x['type']}={x['perm']}" for x in user["caps"])) == ";".join(
        sorted(documented[documented.index("--caps") + 1].split(";"))
    )
    assert "readable by group or others" not in sidecar.log()


def test_exposition_passes_promtool(sidecar):
    proc = subprocess.run(["promtool", "check", "metrics"], input=sidecar.text().encode(), capture_output=True)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()


def test_spillover_on_the_osd_with_the_small_db_only(ceph_cluster, sidecar):
    # The OSD's own counter (`ceph tell`); the exporter's copy comes through the manager,
    # which the OSD updates every mgr_stats_period.
    def agrees():
        ours = sidecar.value("ceph_scale_bluefs_spilled_bytes", ceph_daemon="osd.0")
        return ours is not None and ours == ceph_cluster.bluefs(0)["slow_used_bytes"]

    wait_until(agrees, 30, what="spilled bytes equal to the OSD's bluefs.slow_used_bytes")
    assert sidecar.value("ceph_scale_bluefs_spilled_bytes", ceph_daemon="osd.0") > 0
    assert sidecar.value("ceph_scale_bluefs_spilled_bytes", ceph_daemon="osd.1") == 0
    assert sidecar.value("ceph_scale_bluefs_spilled_bytes", ceph_daemon="osd.2") == 0
    assert sidecar.value("ceph_scale_bluefs_spillover_osds") == 1
    assert sidecar.value("ceph_scale_health_check", code="BLUEFS_SPILLOVER") == 1


def test_fill_matches_ceph_df(ceph_cluster, sidecar):
    """Ceph's own ratios and ours, compared once both have seen the same state: right after
    the spillover scenario the OSDs' RocksDB still flushes and compacts, and raw use moves by
    several percent between two reads a few seconds apart."""

    def both() -> tuple[dict, float] | None:
        stats = ceph_cluster.ceph("df")["stats"]
        ratio = sidecar.value("ceph_scale_cluster_used_ratio")
        return (stats, ratio) if abs(ratio - stats["total_used_raw_ratio"]) <= 0.01 else None

    _, ratio = wait_until(both, 60, what="the sidecar's used ratio to agree with `ceph df`")
    # The headroom to the target (the boards' fill_target_ratio - used ratio) is 0.8 - ratio.
    assert sidecar.value("ceph_scale_config", option="fill_target_ratio") == 0.8

    def fullest() -> tuple[float, float] | None:
        nodes = ceph_cluster.ceph("osd", "df")["nodes"]
        theirs = max(n["utilization"] for n in nodes) / 100
        ((_, ours),) = sidecar.metrics()["ceph_scale_osd_fullest_used_ratio"].items()
        return (theirs, ours) if abs(theirs - ours) <= 0.01 else None

    wait_until(fullest, 60, what="the fullest OSD's ratio to agree with `ceph osd df`")


def test_nearfull_osd_shows_and_clears(ceph_cluster, sidecar):
    ceph_cluster.make_nearfull(2)
    try:
        wait_until(lambda: sidecar.value("ceph_scale_health_check", code="OSD_NEARFULL") == 1, 60, what="OSD_NEARFULL")
    finally:
        ceph_cluster.clear_nearfull(2)
    wait_until(
        lambda: sidecar.value("ceph_scale_health_check", code="OSD_NEARFULL") is None, 60, what="OSD_NEARFULL to clear"
    )


def test_load_against_the_hdd_baseline(ceph_cluster, sidecar):
    access, secret = ceph_cluster.user_keys
    # 90 objects stay under the test cluster's 100 objects per shard: no reshard here.
    result = s3load.run(ceph_cluster.rgw_endpoint, access, secret, "load-64k", objects=90, size=65536, concurrency=8)
    assert result.puts == 90 and result.errors == 0

    def loaded():
        rate = sidecar.value("ceph_scale_s3_ops_per_second", op="put")
        return rate is not None and rate > 0

    wait_until(loaded, 60, what="a PUT rate")
    m = sidecar.metrics()

    def one(name, **labels):
        (v,) = [v for k, v in m[name].items() if set(labels.items()) <= set(k)]
        return v

    hdds = one("ceph_scale_hdd_osds")
    assert hdds == 3
    put = one("ceph_scale_s3_ops_per_second", op="put")
    assert one("ceph_scale_s3_load_ratio", op="put", unit="ops") == pytest.approx(put / hdds / 60)
    # The counters are the RGW's own: the manager gets them every few seconds, so wait for
    # the report that has all 90 PUTs, then ours must equal the RGW's admin socket.
    instance = [dict(k)["instance_id"] for k in m["ceph_scale_rgw_s3_ops_total"]][0]
    wait_until(
        lambda: (
            rgw_puts(ceph_cluster) >= 90
            and sidecar.value("ceph_scale_rgw_s3_ops_total", op="put", instance_id=instance) == rgw_puts(ceph_cluster)
        ),
        60,
        what="PUT counter equal to the RGW's own, all 90 PUTs in",
    )
    assert sidecar.value("ceph_scale_rgw_s3_counters_missing") == 0
    assert sidecar.value("ceph_scale_rgw_s3_ops_total", op="put", instance_id=instance) >= 90

    # Per-OSD client op rates, from each OSD's own counters: every OSD has its series,
    # and the PUTs show as writes on the OSDs.
    def osd_writes():
        samples = sidecar.metrics().get("ceph_scale_osd_ops_per_second", {})
        return {dict(k)["ceph_daemon"]: v for k, v in samples.items() if dict(k)["op"] == "write"}

    wait_until(lambda: sum(osd_writes().values()) > 0, 60, what="OSD write rates")
    assert set(osd_writes()) == {"osd.0", "osd.1", "osd.2"}


def test_reshard_is_counted_exactly_once_and_survives_a_restart(ceph_cluster, sidecar, scratch):
    # Earlier scenarios (the demo's load) may still have reshards in flight.
    wait_until(lambda: ceph_cluster.radosgw_admin("reshard", "list") == [], 120, what="an empty reshard queue")
    time.sleep(8)  # let the exporter see the last of them
    before = sidecar.value("ceph_scale_rgw_reshard_events_total")
    log_from = ceph_cluster.rgw_log_size()
    access, secret = ceph_cluster.user_keys
    # 1 shard per new bucket and rgw_max_objs_per_shard=100 in the test cluster. The
    # instance before any PUT: RGW may reshard while the PUTs still arrive.
    s3load.client(ceph_cluster.rgw_endpoint, access, secret).create_bucket(Bucket="reshard-me")
    old = ceph_cluster.radosgw_admin("bucket", "stats", "--bucket", "reshard-me")
    wait_until(
        lambda: "reshard-me" in json.loads(sidecar.state_file.read_text())["reshard"]["buckets"],
        60,
        what="the exporter to know the new bucket",
    )
    result = s3load.run(ceph_cluster.rgw_endpoint, access, secret, "reshard-me", objects=300, size=4096, gets=False)
    # Pacific's RGW may fail a PUT that races the bucket's reshard (one `NoSuchKey` in a CI-like
    # run, the client's retry included): what is counted here is the reshard, not every PUT.
    assert result.puts >= 290 and all("NoSuchKey" in e for e in result.error_samples), result
    wait_until(
        lambda: ceph_cluster.radosgw_admin("bucket", "stats", "--bucket", "reshard-me")["num_shards"] > 1,
        120,
        what="RGW to reshard the bucket",
    )
    # RGW reshards again when the first reshard's shards were fewer than the PUTs, still arriving,
    # needed (Reef once went 1 -> 2 generations): what it did is settled once its queue is empty.
    wait_until(lambda: ceph_cluster.radosgw_admin("reshard", "list") == [], 120, what="RGW's reshards to settle")
    new = ceph_cluster.radosgw_admin("bucket", "stats", "--bucket", "reshard-me")
    assert new["marker"] == old["marker"]
    wait_until(
        lambda: sidecar.value("ceph_scale_rgw_top_bucket_shards", bucket="reshard-me") == new["num_shards"],
        60,
        what="the exporter to see the bucket as RGW left it",
    )
    if ceph_cluster.release.reshard_keeps_id:  # Reef+: the same instance, an index generation a reshard
        reshards = ceph_cluster.index_generation("reshard-me")
        assert new["id"] == old["id"] and reshards >= 1
        wait_until(
            lambda: sidecar.value("ceph_scale_rgw_reshard_events_total") == before + reshards,
            60,
            what="the reshard events",
        )
    else:
        # Pacific: a new instance a reshard, counted once per instance change a bucket poll sees. RGW
        # may reshard twice while the PUTs arrive (1 -> 3 -> 7 shards), and two reshards between two
        # polls read as one: at least one event, at most the reshards RGW logged (its log written
        # asynchronously, so read again until the count is within them).
        assert new["id"] != old["id"]

        def counted() -> int | None:
            events = sidecar.value("ceph_scale_rgw_reshard_events_total") - before
            return events if 1 <= events <= ceph_cluster.reshards_completed("reshard-me", log_from) else None

        reshards = wait_until(counted, 60, what="the reshard events")
    time.sleep(8)  # several more bucket polls: no double count
    assert sidecar.value("ceph_scale_rgw_reshard_events_total") == before + reshards

    # The exporter restarts with its state file: the count is neither lost nor redone.
    sidecar.stop()
    sidecar.start()
    wait_until(lambda: sidecar.value("ceph_scale_rgw_buckets") is not None, 60, what="bucket poll after restart")
    time.sleep(5)
    assert sidecar.value("ceph_scale_rgw_reshard_events_total") == before + reshards


def test_scrub_backlog_appears_and_drains(ceph_cluster, sidecar):
    ceph_cluster.block_scrubs(max_interval=60, deep_interval=90)
    try:
        wait_until(lambda: "PG_NOT_SCRUBBED" in ceph_cluster.health_checks(), 180, what="PG_NOT_SCRUBBED")

        def agrees():
            ceph_count = ceph_cluster.health_checks()["PG_NOT_SCRUBBED"]["summary"]["count"]
            return sidecar.value("ceph_scale_pg_scrub_overdue", kind="scrub") == ceph_count

        wait_until(agrees, 60, what="our overdue count to equal Ceph's PG_NOT_SCRUBBED")
        assert sidecar.value("ceph_scale_pg_scrub_overdue_after_seconds", kind="scrub") == 90
        # A pool with intervals of its own, longer: Ceph stops counting its PGs, and so do we.
        ceph_cluster.pool_scrub_intervals("default.rgw.log", 86400)
        try:
            pool_id = ceph_cluster.pool_id("default.rgw.log")

            def both_agree_without_the_pool():
                return agree_without_pool(
                    ceph_cluster.health_checks(),
                    pool_id,
                    lambda kind: sidecar.value("ceph_scale_pg_scrub_overdue", kind=kind),
                )

            wait_until(both_agree_without_the_pool, 60, what="our counts to leave the pool out as Ceph's do")
        finally:
            ceph_cluster.pool_scrub_intervals("default.rgw.log", 0)
        assert sidecar.value("ceph_scale_pg_scrub_oldest_age_seconds", kind="scrub") > 90
        # Overdue PGs / completions per second over the last hour: +Inf if nothing completed.
        overdue = sidecar.value("ceph_scale_pg_scrub_overdue", kind="scrub")
        assert overdue > 0 and sidecar.value("ceph_scale_pg_scrub_backlog_clear_seconds", kind="scrub") > 0
        completed = sidecar.value("ceph_scale_pg_scrubs_completed_total", kind="scrub")
    finally:
        ceph_cluster.unblock_scrubs()
    # Clear part of the backlog as an operator would. (On this small cluster the
    # OSDs' periodic scheduler may have no job registered for PGs created before
    # the intervals were shortened; requested scrubs always run.)
    pgs = ceph_cluster.ceph("pg", "dump", "pgs")["pg_stats"]
    for pg in sorted(pgs, key=lambda p: p["last_scrub_stamp"])[:6]:
        ceph_cluster.ceph("pg", "scrub", pg["pgid"], fmt_json=False)
    wait_until(
        lambda: sidecar.value("ceph_scale_pg_scrubs_completed_total", kind="scrub") > completed,
        180,
        what="scrubs to complete after the flags are cleared",
    )
    clear = sidecar.value("ceph_scale_pg_scrub_backlog_clear_seconds", kind="scrub")
    assert clear is not None and clear < float("inf")
    # Back to calm intervals so that later tests do not scrub all the time.
    for key in ("osd_scrub_min_interval", "osd_scrub_max_interval", "osd_deep_scrub_interval"):
        ceph_cluster.ceph("config", "rm", "global", key, fmt_json=False)


def test_the_scrub_interval_the_manager_runs_with_is_the_one_judged(ceph_cluster, sidecar):
    """A scrub interval changed in the active manager only, as a ceph.conf section or a runtime
    change does: the manager's PG_NOT_SCRUBBED judges by it, and so does the sidecar, not by the
    config database's (here 120 s: PGs overdue after 180 s)."""
    c = ceph_cluster
    mgr = f"mgr.{c.refresh_active_mgr()}"
    in_db = float(c.ceph("config", "get", "mgr", "osd_scrub_max_interval"))
    running = 86400
    assert in_db != running
    c.admin_socket(mgr, "config", "set", "osd_scrub_max_interval", str(running))
    try:
        wait_until(
            lambda: sidecar.value("ceph_scale_pg_scrub_overdue_after_seconds", kind="scrub") == running * 1.5,
            60,
            what="the manager's running interval in our overdue line",
        )
        ceph_count = c.health_checks().get("PG_NOT_SCRUBBED", {}).get("summary", {}).get("count", 0)
        assert sidecar.value("ceph_scale_pg_scrub_overdue", kind="scrub") == ceph_count
    finally:
        c.admin_socket(mgr, "config", "unset", "osd_scrub_max_interval")
    wait_until(
        lambda: sidecar.value("ceph_scale_pg_scrub_overdue_after_seconds", kind="scrub") == in_db * 1.5,
        60,
        what="the database's interval once the manager runs with it again",
    )


def test_the_running_rgws_shard_limit_and_an_explicit_threshold(ceph_cluster, sidecar, scratch):
    """The RGW judges by the value it runs with, here changed in the daemon only (as a
    ceph.conf section or a runtime change does), not by the config database's; an operator's
    explicit threshold wins over both."""
    in_db = ceph_cluster.reshard_objs_per_shard
    ceph_cluster.admin_socket(RGW_NAME, "config", "set", "rgw_max_objs_per_shard", str(in_db // 5))
    try:
        assert int(ceph_cluster.ceph("config", "get", "client.rgw", "rgw_max_objs_per_shard")) == in_db
        wait_until(
            lambda: sidecar.value("ceph_scale_config", option="rgw_max_objs_per_shard") == in_db // 5,
            60,
            what="the limit the running RGW holds",
        )
        assert sidecar.value("ceph_scale_config_origin", option="rgw_max_objs_per_shard", origin="rgw") == 1
        assert sidecar.value("ceph_scale_rgw_running_option_min", option="rgw_max_objs_per_shard") == in_db // 5
        assert sidecar.value("ceph_scale_rgw_running_option_values", option="rgw_max_objs_per_shard") == 1
        assert sidecar.value("ceph_scale_rgw_running_config_unread") == 0
        explicit = Sidecar(ceph_cluster, scratch, thresholds={"rgw_max_objs_per_shard": 1000}).start()
        try:
            wait_until(
                lambda: explicit.value("ceph_scale_config_origin", option="rgw_max_objs_per_shard", origin="threshold"),
                60,
                what="the explicit threshold in force",
            )
            assert explicit.value("ceph_scale_config", option="rgw_max_objs_per_shard") == 1000
            # The threshold is in force from the first scrape; the running RGWs' values come
            # with their own source's first read, which may be a poll later.
            wait_until(
                lambda: (
                    explicit.value("ceph_scale_rgw_running_option_min", option="rgw_max_objs_per_shard") is not None
                ),
                60,
                what="the running RGWs' values read by the new sidecar",
            )
            assert explicit.value("ceph_scale_rgw_running_option_min", option="rgw_max_objs_per_shard") == in_db // 5
            assert explicit.value("ceph_scale_config", option="rgw_max_objs_per_shard") == 1000
        finally:
            explicit.stop()
    finally:
        ceph_cluster.admin_socket(RGW_NAME, "config", "set", "rgw_max_objs_per_shard", str(in_db))
    wait_until(
        lambda: sidecar.value("ceph_scale_config", option="rgw_max_objs_per_shard") == in_db,
        60,
        what="the RGW's limit back",
    )


def test_the_queue_is_read_over_as_many_logs_as_the_running_rgw_writes(ceph_cluster, sidecar):
    """An RGW running with more reshard logs than the config database says (a ceph.conf section,
    a runtime change) queues buckets into objects a reader of the database's count never reads:
    the queue is read over the running RGWs' count."""
    c = ceph_cluster
    logs = 64
    log_pool = "default.rgw.log"
    assert int(c.ceph("config", "get", "client.rgw", "rgw_reshard_num_logs")) == 16
    c.hold_reshards()
    c.admin_socket(RGW_NAME, "config", "set", "rgw_reshard_num_logs", str(logs))
    s3 = s3load.client(c.rgw_endpoint, *c.user_keys)
    queued: list[str] = []

    def past_the_database_count() -> list[str]:
        names = c.rados("-p", log_pool, "-N", "reshard", "ls")
        return [n for n in names.split() if n.startswith("reshard.") and int(n.split(".")[1]) >= 16]

    try:
        wait_until(
            lambda: sidecar.value("ceph_scale_rgw_running_option_min", option="rgw_reshard_num_logs") == logs,
            60,
            what="the running RGW's log count",
        )
        # A bucket's log is a hash of its name: queue buckets until one lands past object 15.
        for i in range(24):
            bucket = f"many-logs-{int(time.time())}-{i}"
            s3.create_bucket(Bucket=bucket)
            c.radosgw_admin("reshard", "add", "--bucket", bucket, "--num-shards", "13",
                            f"--rgw_reshard_num_logs={logs}", fmt_json=False)  # fmt: skip
            queued.append(bucket)
            if past_the_database_count():
                break
        assert past_the_database_count(), "no bucket hashed past the config database's 16 logs"
        listed = c.radosgw_admin("reshard", "list", f"--rgw_reshard_num_logs={logs}")
        assert {e["bucket_name"] for e in listed} >= set(queued)
        wait_until(
            lambda: sidecar.value("ceph_scale_rgw_reshard_queued") == len(listed),
            60,
            what=f"all {len(listed)} queued reshards, those past log 15 included",
        )
    finally:
        for bucket in queued:
            c.radosgw_admin("reshard", "cancel", "--bucket", bucket, f"--rgw_reshard_num_logs={logs}", fmt_json=False)
        c.release_reshards()  # restarts the RGW: its log count is the database's again


def test_failed_and_hanging_sources_are_reported_not_zeroed(ceph_cluster, scratch):
    hanging = HangingServer()
    dead_port = free_port()  # nothing listens there
    exporter = Sidecar(ceph_cluster, scratch, sources={"perf": {"interval": 2, "timeout": 1}})
    config = exporter.config_path.read_text().replace(ceph_cluster.rgw_endpoint, f"http://127.0.0.1:{dead_port}")
    config += f"mgr_prometheus_url: http://127.0.0.1:{hanging.port}/metrics\n"
    exporter.config_path.write_text(config)
    try:
        exporter.start()
        wait_until(
            lambda: exporter.value("ceph_scale_source_failures_total", source="perf") >= 3,
            60,
            what="several failed perf collections",
        )
        m = exporter.metrics()
        status = {dict(k)["source"]: v for k, v in m["ceph_scale_source_success"].items()}
        assert status["perf"] == 0 and status["buckets"] == 0
        assert status["osd_map"] == 1 and status["pgs"] == 1 and status["capacity"] == 1
        # Reported as failed, never as zero: their signals are simply absent.
        assert "ceph_scale_bluefs_spilled_bytes" not in m
        assert "ceph_scale_rgw_buckets" not in m
        assert "ceph_scale_cluster_used_ratio" in m
        # The timeout held: no perf collection took much longer than its 1 s.
        assert exporter.value("ceph_scale_source_duration_seconds", source="perf") < 3
        log = exporter.log()
        perf_lines = [line for line in log.splitlines() if "source perf failed" in line]
        assert len(perf_lines) == 1 and "timed out" in perf_lines[0], log
        assert len([line for line in log.splitlines() if "source buckets failed" in line]) == 1, log
        assert exporter.process.proc.poll() is None
    finally:
        exporter.stop()
        hanging.close()


def test_state_file_is_json_with_the_reshard_table(sidecar):
    data = json.loads(sidecar.state_file.read_text())
    assert data["version"] == 1
    assert "reshard-me" in data["reshard"]["buckets"]


def test_the_hosts_pacific_client_reads_every_release_it_can(ceph_cluster, scratch):
    """One image, many clusters: the sidecar with the host's Pacific python3-rados and ceph
    CLI against this release's cluster gets every source, with the same values. Tentacle
    makes cephx keys of a new type (AES256KRB5) that clients before it cannot parse: there the
    sources fail with such a key, saying so, and nothing reads as zero; with a key of the older
    type (what a cluster upgraded from an older release keeps, or an AES key made once the
    monitors allow that cipher) the older client reads everything."""
    c = ceph_cluster
    if c.release.name == "tentacle":
        refused = Sidecar(c, scratch, client="host").start()
        try:
            wait_until(lambda: refused.value("ceph_scale_source_success", source="osd_map") == 0, 60,
                       what="the host's client to be refused")  # fmt: skip
            assert "error connecting to the cluster" in refused.log()
            assert "ceph_scale_bluefs_spilled_bytes" not in refused.metrics()
        finally:
            refused.stop()
        c.ceph("mon", "set", "auth_allowed_ciphers", "aes,aes256k", fmt_json=False)
        keyring = c.dir / "ceph-scale-aes.keyring"

        def aes_key() -> bool:  # refused ("insecure key type") until the new monitor map is in force
            c.create_documented_user(SECURITY_DOC, f"client.{DOCUMENTED_CEPH_USER}", keyring,
                                     as_name="client.ceph-scale-aes", key_type="aes")  # fmt: skip
            return True

        wait_until(aes_key, 30, what="a key of the aes type")
        rgw_keys = c.create_documented_rgw_user(SECURITY_DOC, DOCUMENTED_RGW_USER)
        exporter = Sidecar(c, scratch, client="host", ceph_user="ceph-scale-aes", rgw_credentials=rgw_keys,
                           extra_args=["--ceph-keyring", str(keyring)]).start()  # fmt: skip
    else:
        exporter = Sidecar(c, scratch, client="host").start()
    try:

        def all_ok():
            m = exporter.metrics()["ceph_scale_source_success"]
            return {dict(k)["source"]: v for k, v in m.items()} == {s: 1.0 for s in SOURCES}

        wait_until(all_ok, 60, what="every source to succeed with the host's client")
        spilled = c.bluefs(0)["slow_used_bytes"]
        wait_until(
            lambda: exporter.value("ceph_scale_bluefs_spilled_bytes", ceph_daemon="osd.0") == spilled,
            30,
            what="the OSD's spilled bytes",
        )
        assert exporter.value("ceph_scale_pgs") == sum(p["pg_num"] for p in c.ceph("osd", "dump")["pools"])
    finally:
        exporter.stop()
        if c.release.name == "tentacle":
            with contextlib.suppress(Exception):
                c.ceph("auth", "rm", "client.ceph-scale-aes", fmt_json=False)
            c.ceph("mon", "set", "auth_allowed_ciphers", "aes256k", fmt_json=False)
