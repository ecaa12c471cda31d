"""Every signal on JSON captured from the real test cluster (tests/fixtures/pacific/CAPTURED.md).

Expected values are computed from the raw captures independently of the
code under test (e.g. the spilled bytes from the mgr's own counter, the
overdue count from Ceph's own health check).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from ceph_scale.core import inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import Snapshot

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "pacific"


def load(name: str):
    path = FIX / name
    return json.loads(path.read_text()) if name.endswith(".json") else path.read_text()


def capture_time(pg_dump) -> float:
    """The cluster's own clock at capture: the freshest PG stat."""
    return max(inputs.parse_stamp(s["last_fresh"], "last_fresh") for s in pg_dump["pg_stats"])


def snapshot(suffix: str = "", t: float | None = None) -> Snapshot:
    pg_dump = load(f"pg_dump_pgs{suffix}.json")
    t = t if t is not None else capture_time(pg_dump)
    dump = load(f"osd_dump{suffix}.json")
    return Snapshot(
        taken_at=t,
        fsid=dump["fsid"],
        osd_map=inputs.osd_map_part(load(f"osd_df{suffix}.json"), dump, load(f"osd_metadata{suffix}.json"), t),
        capacity=inputs.capacity_part(load(f"df_detail{suffix}.json"), dump, t),
        perf=inputs.perf_part(inputs.counters_from_prometheus_text(load(f"mgr_prometheus_metrics{suffix}.txt")), t),
        pgs=inputs.pg_part(pg_dump, t),
        settings=inputs.settings_part(load(f"config_get{suffix}.json"), t),
        buckets=inputs.buckets_part(load(f"admin_api_bucket_stats{suffix}.json"), t),
        reshard=inputs.reshard_part(load(f"reshard_list{suffix}.json"), t),
        health=inputs.health_part(load(f"health_detail{suffix}.json"), t),
    )


def values(families, name):
    for f in families:
        if f.name == name:
            return {
                tuple((n, v) for n, v in zip(f.label_names, lv) if n != "cluster"): val
                for s, lv, val in f.samples
                if s in ("", "_total")
            }
    return {}


def mgr_counter(name: str, daemon: str) -> float:
    for fam in text_string_to_metric_families(load("mgr_prometheus_metrics.txt")):
        for s in fam.samples:
            if s.name == name and s.labels.get("ceph_daemon") == daemon:
                return s.value
    raise KeyError(name)


@pytest.fixture(scope="module")
def families():
    th = Thresholds()
    return derive(snapshot(), DerivationState(th), th)


def test_spillover_equals_the_osds_own_slow_used_bytes(families):
    spilled = values(families, "ceph_scale_bluefs_spilled_bytes")
    assert spilled[(("ceph_daemon", "osd.0"),)] == mgr_counter("ceph_bluefs_slow_used_bytes", "osd.0") > 0
    assert spilled[(("ceph_daemon", "osd.1"),)] == 0
    assert spilled[(("ceph_daemon", "osd.2"),)] == 0
    health = load("health_detail.json")["checks"]["BLUEFS_SPILLOVER"]["summary"]["count"]
    assert values(families, "ceph_scale_bluefs_spillover_osds")[()] == health == 1
    share = values(families, "ceph_scale_bluefs_db_share_ratio")[(("ceph_daemon", "osd.0"),)]
    meta = {m["id"]: m for m in load("osd_metadata.json")}[0]
    assert share == pytest.approx(mgr_counter("ceph_bluefs_db_total_bytes", "osd.0") / int(meta["bluestore_bdev_size"]))


def test_fill_ratios_match_df_and_osd_df(families):
    stats = load("df_detail.json")["stats"]
    ratio = stats["total_used_raw_bytes"] / stats["total_bytes"]
    assert values(families, "ceph_scale_cluster_used_ratio")[()] == pytest.approx(ratio)
    # The headroom to a line is no family of its own: the line in force minus this ratio.
    assert values(families, "ceph_scale_config")[(("option", "fill_target_ratio"),)] == 0.8
    per_osd = values(families, "ceph_scale_osd_used_ratio")
    for node in load("osd_df.json")["nodes"]:
        key = (("ceph_daemon", f"osd.{node['id']}"), ("device_class", "hdd"))
        assert per_osd[key] == pytest.approx(node["kb_used"] / node["kb"])
    fullest = values(families, "ceph_scale_osd_fullest_used_ratio")
    assert list(fullest.values())[0] == max(per_osd.values())
    pools = values(families, "ceph_scale_pool_used_ratio")
    for p in load("df_detail.json")["pools"]:
        assert pools[(("pool_id", str(p["id"])), ("name", p["name"]))] == pytest.approx(p["stats"]["percent_used"])


def test_scrub_overdue_agrees_with_cephs_own_health_check():
    """The manager lists every PG it finds not scrubbed in time; we must find the same PGs.

    The capture has no clock of its own, so the reference time is the one the
    manager's list implies: just past the newest listed stamp + the limit.
    """
    check = load("health_detail.json")["checks"]["PG_NOT_SCRUBBED"]
    listed = {m["message"].split()[1]: m["message"].rsplit(" ", 1)[1] for m in check["detail"]}
    assert len(listed) == check["summary"]["count"] == 41
    limit = 60 * 1.5  # osd_scrub_max_interval x (1 + mon_warn_pg_not_scrubbed_ratio), from config_get.json
    t = max(inputs.parse_stamp(s, "since") for s in listed.values()) + limit + 0.5
    th = Thresholds()
    fams = derive(snapshot(t=t), DerivationState(th), th)
    assert values(fams, "ceph_scale_pg_scrub_overdue")[(("kind", "scrub"),)] == len(listed)
    assert values(fams, "ceph_scale_pg_scrub_overdue_after_seconds")[(("kind", "scrub"),)] == limit
    assert values(fams, "ceph_scale_pgs")[()] == len(load("pg_dump_pgs.json")["pg_stats"]) == 49
    assert values(fams, "ceph_scale_pg_scrub_oldest_age_seconds")[(("kind", "scrub"),)] > limit


def test_reshard_queue_and_a_real_reshard_counted_once():
    th = Thresholds()
    state = DerivationState(th)
    queued = derive(snapshot("_queued"), state, th)
    assert values(queued, "ceph_scale_rgw_reshard_queued")[()] == 1
    assert values(queued, "ceph_scale_rgw_reshard_events")[()] == 0
    top = values(queued, "ceph_scale_rgw_top_bucket_shard_fill_ratio")
    # 250 objects in 1 shard against the cluster's own limit of 100 per shard.
    assert top[(("bucket", "queued-reshard"), ("tenant", ""))] == pytest.approx(2.5)
    assert values(queued, "ceph_scale_config")[(("option", "rgw_max_objs_per_shard"),)] == 100
    later = snapshot("_resharded", t=snapshot("_queued").taken_at + 30)
    done = derive(later, state, th)
    assert values(done, "ceph_scale_rgw_reshard_events")[()] == 1
    assert values(done, "ceph_scale_rgw_reshard_queued")[()] == 0
    assert values(done, "ceph_scale_rgw_top_bucket_shards")[(("bucket", "queued-reshard"), ("tenant", ""))] == 5


def test_admin_api_and_radosgw_admin_give_the_same_buckets():
    a = inputs.buckets_part(load("admin_api_bucket_stats_queued.json"), 0)
    b = inputs.buckets_part(load("bucket_stats_queued.json"), 0)
    assert a == b
    assert {x.name for x in a.buckets} == {"reshard-me", "queued-reshard"}


def test_rgw_counters_are_keyed_by_instance_id_as_the_mgr_module_labels_them():
    perf = inputs.perf_part(inputs.counters_from_prometheus_text(load("mgr_prometheus_metrics.txt")), 0)
    assert len(perf.rgw_ops) == 1
    rgw = perf.rgw_ops[0]
    text = load("mgr_prometheus_metrics.txt")
    assert f'ceph_rgw_put{{instance_id="{rgw.instance_id}"}}' in text
    assert rgw.put_ops >= 300 and rgw.get_ops >= 300  # the captured load


def test_nearfull_shows_as_cephs_health_check(families):
    health = values(families, "ceph_scale_health_check")
    assert health[(("code", "OSD_NEARFULL"), ("severity", "HEALTH_WARN"))] == 1


# --- version differences ------------------------------------------------------


def test_older_reshard_list_names_new_num_shards():
    """Octopus and Pacific <= 16.2.7 say new_num_shards; 16.2.8+ and Quincy tentative_new_num_shards."""
    entries = load("reshard_list_queued.json")
    older = [{**{k: v for k, v in e.items() if k != "tentative_new_num_shards"}, "new_num_shards": 5} for e in entries]
    assert inputs.reshard_part(older, 0) == inputs.reshard_part(entries, 0)


def test_manager_shapes_parse_like_the_cli_shapes():
    """Inside ceph-mgr, osd metadata is a dict keyed by id and pg_dump nests pg_stats in pg_map."""
    metadata = load("osd_metadata.json")
    as_mgr = {str(m["id"]): m for m in metadata}
    df, dump = load("osd_df.json"), load("osd_dump.json")
    assert inputs.osd_map_part(df, dump, as_mgr, 0) == inputs.osd_map_part(df, dump, metadata, 0)
    pg_dump = load("pg_dump_pgs.json")
    assert inputs.pg_part({"pg_map": pg_dump}, 0) == inputs.pg_part(pg_dump, 0)


def test_octopus_stamps_without_zone_are_utc():
    a = inputs.parse_stamp("2020-02-04 10:20:30.123456", "x")
    b = inputs.parse_stamp("2020-02-04T10:20:30.123456+0000", "x")
    assert a == b


# --- bad input ----------------------------------------------------------------


@pytest.mark.parametrize(
    "mutate, where",
    [
        (lambda d: d["nodes"][1].pop("kb"), "osd_df.nodes[1].kb: missing"),
        (lambda d: d["nodes"][0].__setitem__("kb_used", "lots"), "osd_df.nodes[0].kb_used: expected an integer"),
        (lambda d: d.__setitem__("nodes", {}), "osd_df.nodes: expected a list"),
    ],
)
def test_malformed_osd_df_names_the_field(mutate, where):
    df = load("osd_df.json")
    mutate(df)
    with pytest.raises(inputs.InputError, match=where.replace("[", r"\[").replace("]", r"\]")):
        inputs.osd_map_part(df, load("osd_dump.json"), load("osd_metadata.json"), 0)


def test_malformed_pg_stamp_names_the_pg():
    pg_dump = load("pg_dump_pgs.json")
    pg_dump["pg_stats"][3]["last_deep_scrub_stamp"] = "yesterday"
    with pytest.raises(inputs.InputError, match=r"pg_stats\[3\]\.last_deep_scrub_stamp"):
        inputs.pg_part(pg_dump, 0)


def test_truncated_mgr_metrics_are_refused_not_half_read():
    text = load("mgr_prometheus_metrics.txt")
    cut = text[: text.index('ceph_bluefs_slow_used_bytes{ceph_daemon="osd.0"}') + 30]
    with pytest.raises(inputs.InputError):
        inputs.counters_from_prometheus_text(cut)
