"""Malformed input is never a plausible zero (issue 24, item 4): each case a fuzzing run found.

A missing or mistyped field fails the source in one line naming the field; where Ceph itself
leaves a field out for a real zero, the zero stays, shown with the capture that has it.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from ceph_scale.core import inputs, parse_orch, reshard_queue

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RELEASES = ("pacific", "reef", "tentacle")


def load(release: str, name: str):
    raw = (FIXTURES / release / name).read_text()
    return json.loads(raw) if name.endswith(".json") else raw


def one_bucket(release: str = "pacific") -> dict:
    return copy.deepcopy(load(release, "admin_api_bucket_stats.json")[0])


# --- bucket stats -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "usage, field",
    [
        (5, "usage"),
        ([], "usage"),
        ({"rgw.main": 5}, "usage.rgw.main"),
        ({"rgw.main": None}, "usage.rgw.main"),
        ({"rgw.main": {"size": 1228800}}, "usage.rgw.main.num_objects"),
    ],
)
def test_a_bucket_whose_usage_is_not_read_fails_instead_of_counting_zero_objects(usage, field):
    b = one_bucket()
    b["usage"] = usage
    with pytest.raises(inputs.InputError, match=rf"^bucket_stats\[0\]\.{re.escape(field)}: "):
        inputs.buckets_part([b], 0.0)
    with pytest.raises(inputs.InputError, match=rf"^bucket_stats\.{re.escape(field)}: "):
        inputs.bucket_record(b, 0.0)


def test_a_bucket_without_usage_fails():
    b = one_bucket()
    del b["usage"]
    with pytest.raises(inputs.InputError, match=r"^bucket_stats\[0\]\.usage: missing"):
        inputs.buckets_part([b], 0.0)


@pytest.mark.parametrize("release", RELEASES)
def test_an_empty_bucket_has_no_rgw_main_and_counts_zero_objects(release):
    """Ceph's own zero: `GET /admin/bucket?bucket=s1-000001&stats=true` of an empty bucket
    answers "usage": {} on every release (admin_api_bucket.json)."""
    captured = load(release, "admin_api_bucket.json")
    assert captured["usage"] == {}
    assert inputs.bucket_record(captured, 0.0).num_objects == 0
    assert inputs.buckets_part([captured], 0.0).buckets[0].num_objects == 0


@pytest.mark.parametrize("field, where", [("num_objects", ("usage", "rgw.main")), ("num_shards", ())])
def test_a_negative_bucket_count_fails(field, where):
    b = one_bucket()
    node = b
    for key in where:
        node = node[key]
    node[field] = -5
    with pytest.raises(inputs.InputError, match=rf"{field}: expected a count of at least 0, got -5"):
        inputs.buckets_part([b], 0.0)
    assert inputs._bucket_fast(b, 0.0) is None  # the fast path leaves it to the checked one


# --- perf counters ---------------------------------------------------------------------------


def without_line(text: str, prefix: str) -> str:
    lines = text.splitlines()
    kept = [line for line in lines if not line.startswith(prefix)]
    assert len(kept) == len(lines) - 1, prefix
    return "\n".join(kept) + "\n"


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize(
    "line, counter",
    [
        ('ceph_bluefs_slow_used_bytes{ceph_daemon="osd.0"}', "bluefs.slow_used_bytes"),
        ('ceph_bluefs_db_used_bytes{ceph_daemon="osd.0"}', "bluefs.db_used_bytes"),
        ('ceph_osd_op_r{ceph_daemon="osd.0"}', "osd.op_r"),
        ('ceph_osd_op_w{ceph_daemon="osd.0"}', "osd.op_w"),
    ],
)
def test_an_osd_counter_dropped_from_the_metrics_fails_the_source(release, line, counter):
    """Dropping one line hid osd.0's 295 MB of spillover (slow_used_bytes read as 0)."""
    text = without_line(load(release, "mgr_prometheus_metrics.txt"), line)
    with pytest.raises(inputs.InputError, match=rf"^perf\[osd\.0\]\.{counter}: missing"):
        inputs.perf_part(inputs.counters_from_prometheus_text(text), 0.0)


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("counter", ["get", "get_b", "put_b"])
def test_an_rgw_missing_an_s3_counter_is_reported_missing_not_zero(release, counter):
    """The RGW's S3 set with a piece gone reads as an RGW without S3 counters (the exposition's
    ceph_scale_rgw_s3_counters_missing), never as 0 GETs or 0 bytes."""
    renamed = {"get": "get_obj_ops", "get_b": "get_obj_bytes", "put_b": "put_obj_bytes"}[counter]
    name = f"ceph_rgw_op_{renamed}" if release == "tentacle" else f"ceph_rgw_{counter}"
    text = without_line(load(release, "mgr_prometheus_metrics.txt"), name + "{")
    perf = inputs.perf_part(inputs.counters_from_prometheus_text(text), 0.0)
    assert not perf.rgw_ops and len(perf.rgw_without_s3_ops) == 1


def test_an_rgw_latency_half_alone_fails():
    text = without_line(load("reef", "mgr_prometheus_metrics.txt"), "ceph_rgw_put_initial_lat_count{")
    with pytest.raises(inputs.InputError, match=r"^perf\[rgw\.\d+\]\.rgw\.put_initial_lat\.count: missing"):
        inputs.perf_part(inputs.counters_from_prometheus_text(text), 0.0)


def test_a_negative_osd_counter_fails():
    counters = inputs.counters_from_prometheus_text(load("pacific", "mgr_prometheus_metrics.txt"))
    counters["osd.1"]["bluefs.slow_used_bytes"] = -1.0
    with pytest.raises(inputs.InputError, match=r"perf\[osd\.1\]\.bluefs\.slow_used_bytes: expected a count"):
        inputs.perf_part(counters, 0.0)


def test_an_osd_without_any_bluefs_counter_is_left_out_not_zero():
    """An OSD without BlueFS (FileStore) has no bluefs set at all: no spillover figure for it."""
    counters = inputs.counters_from_prometheus_text(load("pacific", "mgr_prometheus_metrics.txt"))
    for name in ("bluefs.db_total_bytes", "bluefs.db_used_bytes", "bluefs.slow_used_bytes", "bluefs.wal_used_bytes"):
        del counters["osd.2"][name]
    perf = inputs.perf_part(counters, 0.0)
    assert [c.osd_id for c in perf.bluefs] == [0, 1] and 2 in [c.osd_id for c in perf.osd_ops]


# --- the reshard queue ---------------------------------------------------------------------------


@pytest.mark.parametrize("release", RELEASES)
def test_a_reshard_entry_without_old_num_shards_fails(release):
    entries = copy.deepcopy(load(release, "reshard_list_queued.json"))
    del entries[0]["old_num_shards"]
    with pytest.raises(inputs.InputError, match=r"^reshard_list\[0\]\.old_num_shards: missing"):
        inputs.reshard_part(entries, 0.0)


@pytest.mark.parametrize("field", ["old_num_shards", "tentative_new_num_shards"])
def test_a_negative_reshard_shard_count_fails(field):
    entries = copy.deepcopy(load("pacific", "reshard_list_queued.json"))
    entries[0][field] = -5
    with pytest.raises(inputs.InputError, match=rf"^reshard_list\[0\]\.{field}: expected a count"):
        inputs.reshard_part(entries, 0.0)


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_reshard_log_count_that_reads_no_queue_fails(value):
    with pytest.raises(inputs.InputError, match="^rgw_reshard_num_logs: "):
        reshard_queue.queue_log_count(None, lambda: value)


# --- the service map ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "services, field",
    [
        ({"rgw": 5}, "services.rgw"),
        ({"rgw": {"daemons": 5}}, "services.rgw.daemons"),
        ({"rgw": {"daemons": {"4154": 5}}}, "services.rgw.daemons.4154"),
    ],
)
def test_a_malformed_rgw_service_is_the_projects_input_error(services, field):
    with pytest.raises(inputs.InputError, match=rf"^service map: {field}[.:]"):
        inputs.rgw_daemon_names({"services": services})


def test_a_cluster_without_rgw_has_no_rgw_service():
    assert inputs.rgw_daemon_names({"services": {"osd": {"daemons": {}}}}) == []


def test_an_rgw_without_start_epoch_fails_instead_of_starting_at_zero():
    service_map = copy.deepcopy(load("pacific", "service_dump.json"))
    (name,) = [k for k in service_map["services"]["rgw"]["daemons"] if k != "summary"]
    del service_map["services"]["rgw"]["daemons"][name]["start_epoch"]
    with pytest.raises(inputs.InputError, match=rf"daemons\.{name}\.start_epoch: missing"):
        inputs.rgw_daemon_names(service_map)


# --- cluster-wide -----------------------------------------------------------------------------


def test_health_without_checks_fails_instead_of_reading_healthy():
    health = copy.deepcopy(load("pacific", "health_detail.json"))
    del health["checks"]
    with pytest.raises(inputs.InputError, match=r"^health\.checks: missing"):
        inputs.health_part(health, 0.0)


def test_an_osd_map_without_flags_fails_instead_of_hiding_noscrub():
    dump = copy.deepcopy(load("pacific", "osd_dump.json"))
    del dump["flags"]
    with pytest.raises(inputs.InputError, match=r"^osd_dump\.flags: missing"):
        inputs.osd_map_part(load("pacific", "osd_df.json"), dump, load("pacific", "osd_metadata.json"), 0.0)


def test_a_metadata_page_without_truncated_fails_instead_of_ending_the_listing():
    page = copy.deepcopy(load("pacific", "admin_api_metadata_bucket_page.json"))
    del page["truncated"]
    with pytest.raises(inputs.InputError, match=r"^metadata bucket\.truncated: missing"):
        inputs.metadata_page(page, "bucket")


# --- the orchestrator's ceph-exporters ------------------------------------------------------


def orch(release: str, name: str):
    return copy.deepcopy(load(release, f"{name}.from_cephadm_code.json"))


@pytest.mark.parametrize("addr", [0, False, [], {}])
def test_a_mistyped_host_address_fails_instead_of_reading_the_host_name(addr):
    hosts = orch("reef", "orch_host_ls")
    hosts[1]["addr"] = addr
    with pytest.raises(inputs.InputError, match=r"^orch_host_ls\[1\]\.addr: expected a string"):
        parse_orch.host_addresses(hosts)


def test_a_host_added_without_an_address_is_reached_at_its_name():
    """HostSpec: `addr or hostname`."""
    hosts = orch("tentacle", "orch_host_ls")
    del hosts[0]["addr"]
    hosts[1]["addr"] = ""
    assert parse_orch.host_addresses(hosts) == {"ceph-a": "ceph-a", "ceph-b": "ceph-b", "ceph-c": "10.0.0.13"}


@pytest.mark.parametrize("ports", [0, "", {}, False])
def test_mistyped_ports_fail_instead_of_reading_the_default_port(ports):
    daemons = orch("tentacle", "orch_ps_ceph_exporter")
    daemons[0]["ports"] = ports
    hosts = parse_orch.host_addresses(orch("tentacle", "orch_host_ls"))
    with pytest.raises(inputs.InputError, match=r"^orch_ps\[0\]\.ports: expected a list"):
        parse_orch.exporter_urls(parse_orch.exporters(daemons), hosts)


def test_a_daemon_without_its_type_fails_instead_of_being_left_out():
    daemons = orch("reef", "orch_ps_ceph_exporter")
    del daemons[2]["daemon_type"]
    with pytest.raises(inputs.InputError, match=r"^orch_ps\[2\]\.daemon_type: missing$"):
        parse_orch.exporters(daemons)
