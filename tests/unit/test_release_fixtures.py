"""The newer releases' captures (tests/fixtures/<release>/CAPTURED.md): every parser takes
them, and the signals derived from them agree with what the same cluster's Ceph said."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from ceph_scale.core import inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import Snapshot
from tests.unit.test_fixtures import values

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RELEASES = {"reef": "18.2", "tentacle": "20.2"}


def loader(release: str):
    def load(name: str):
        text = (FIXTURES / release / name).read_text()
        return json.loads(text) if name.endswith(".json") else text

    return load


def snapshot(release: str, suffix: str = "", t: float | None = None) -> Snapshot:
    load = loader(release)
    pg_dump = load(f"pg_dump_pgs{suffix}.json")
    t = t if t is not None else max(inputs.parse_stamp(s["last_fresh"], "last_fresh") for s in pg_dump["pg_stats"])
    dump = load(f"osd_dump{suffix}.json")
    counters = inputs.counters_from_prometheus_text(load(f"mgr_prometheus_metrics{suffix}.txt"))
    return Snapshot(
        taken_at=t,
        fsid=dump["fsid"],
        osd_map=inputs.osd_map_part(load(f"osd_df{suffix}.json"), dump, load(f"osd_metadata{suffix}.json"), t),
        capacity=inputs.capacity_part(load(f"df_detail{suffix}.json"), dump, t),
        perf=inputs.perf_part(counters, t),
        pgs=inputs.pg_part(pg_dump, t),
        settings=inputs.settings_part(load(f"config_get{suffix}.json"), t),
        buckets=inputs.buckets_part(load(f"admin_api_bucket_stats{suffix}.json"), t),
        reshard=inputs.reshard_part(load(f"reshard_list{suffix}.json"), t),
        health=inputs.health_part(load(f"health_detail{suffix}.json"), t),
    )


@pytest.fixture(params=sorted(RELEASES))
def release(request) -> str:
    return request.param


def test_captured_from_the_release_it_is_named_after(release):
    doc = (FIXTURES / release / "CAPTURED.md").read_text()
    assert f"ceph version {RELEASES[release]}." in doc and f") {release} (" in doc
    for v in loader(release)("osd_metadata.json"):
        assert v["ceph_version_short"].startswith(RELEASES[release]), v["ceph_version_short"]


def test_spillover_as_the_osds_and_ceph_say(release):
    """Spillover from the same recipe on every release (a 256 MiB DB, 256 MiB memtables)."""
    load = loader(release)
    th = Thresholds()
    fams = derive(snapshot(release), DerivationState(th), th)
    spilled = values(fams, "ceph_scale_bluefs_spilled_bytes")
    assert spilled[(("ceph_daemon", "osd.0"),)] > 0
    assert spilled[(("ceph_daemon", "osd.1"),)] == spilled[(("ceph_daemon", "osd.2"),)] == 0
    check = load("health_detail.json")["checks"].get("BLUEFS_SPILLOVER")
    if check is not None:  # Ceph's own warning, where the release raises it
        assert values(fams, "ceph_scale_bluefs_spillover_osds")[()] == check["summary"]["count"]


def test_scrub_overdue_agrees_with_cephs_own_health_check(release):
    """The newer pg dump (scrub scheduling fields) parses, and our overdue PGs are the ones
    Ceph lists, judged at the time its list implies."""
    load = loader(release)
    pg_stats = load("pg_dump_pgs.json")["pg_stats"]
    assert all("scrub_schedule" in s for s in pg_stats)  # Quincy+ publishes the schedule
    check = load("health_detail.json")["checks"]["PG_NOT_SCRUBBED"]
    listed = {m["message"].split()[1]: m["message"].rsplit(" ", 1)[1] for m in check["detail"]}
    assert len(listed) == check["summary"]["count"] == 41
    limit = 60 * 1.5
    t = max(inputs.parse_stamp(s, "since") for s in listed.values()) + limit + 0.5
    th = Thresholds()
    fams = derive(snapshot(release, t=t), DerivationState(th), th)
    assert values(fams, "ceph_scale_pg_scrub_overdue")[(("kind", "scrub"),)] == len(listed)


def test_the_relabelled_s3_counters_are_read(release):
    """Tentacle's rgw_op counters and Reef's rgw ones both give the S3 op counts."""
    load = loader(release)
    perf = snapshot(release).perf
    assert perf is not None and not perf.rgw_without_s3_ops
    puts = sum(r.put_ops for r in perf.rgw_ops)
    names = {f.name for f in text_string_to_metric_families(load("mgr_prometheus_metrics_full.txt"))}
    assert puts >= 300, names & {"ceph_rgw_put", "ceph_rgw_op_put_obj_ops"}


def test_a_queued_reshard_then_the_reshard_counted_once(release):
    th = Thresholds()
    state = DerivationState(th)
    queued = derive(snapshot(release, "_queued"), state, th)
    assert values(queued, "ceph_scale_rgw_reshard_queued")[()] == 1
    entries = loader(release)("reshard_list_queued.json")
    assert [e["bucket_name"] for e in entries] == ["queued-reshard"]
    assert values(queued, "ceph_scale_rgw_reshard_events")[()] == 0
    later = snapshot(release, "_resharded", t=snapshot(release, "_queued").taken_at + 30)
    resharded = derive(later, state, th)
    assert values(resharded, "ceph_scale_rgw_reshard_events")[()] == 1
    assert values(resharded, "ceph_scale_rgw_reshard_queued")[()] == 0
    before = {b["bucket"]: b for b in loader(release)("bucket_stats_queued.json")}["queued-reshard"]
    after = {b["bucket"]: b for b in loader(release)("bucket_stats_resharded.json")}["queued-reshard"]
    assert before["id"] == after["id"]  # from Reef on a reshard keeps the instance id
    # Tentacle queues 11 shards where Reef queues 5 for the same 250 objects; either way the
    # queued count is the one the reshard gave.
    assert after["num_shards"] == entries[0]["tentative_new_num_shards"] > before["num_shards"]


def test_the_running_rgw_is_named_and_its_options_read(release):
    load = loader(release)
    names = inputs.rgw_daemon_names(load("service_dump.json"))
    assert len(names) == 1
    shown = {
        option: json.loads((FIXTURES / release / f"config_show_rgw_{option}.json").read_text())
        for option in inputs.RGW_RUNNING_OPTIONS
    }
    running = inputs.read_rgw_running(names, lambda who, option: shown[option])
    assert {(o.option, o.value) for o in running} == {("rgw_max_objs_per_shard", 100), ("rgw_reshard_num_logs", 16)}


def test_tentacles_bucket_stats_carry_the_index_generation():
    """Tentacle's Admin Ops bucket stats name each bucket's index generation: it counts the
    reshards without reading the index pool (Reef's do not)."""
    raw = (FIXTURES / "tentacle" / "admin_api_bucket_stats_resharded.json").read_bytes()
    part = inputs.buckets_part(json.loads(raw), 0.0)
    gens = {b.name: b.index_gen for b in part.buckets}
    assert gens == {"reshard-me": 1, "queued-reshard": 1}  # each resharded once

    reef = inputs.buckets_part(loader("reef")("admin_api_bucket_stats_resharded.json"), 0.0)
    assert {b.index_gen for b in reef.buckets} == {None}
    # One bucket's stats (what the bucket poll reads) carry it too: nothing to probe
    # (tests/unit/test_bucket_poll.py polls such buckets without a probe).
    one = inputs.bucket_record(loader("tentacle")("admin_api_bucket.json"), 0.0)
    assert one.index_gen == 1 and one.num_shards == 3
    assert inputs.bucket_record(loader("reef")("admin_api_bucket.json"), 0.0).index_gen is None


@pytest.mark.parametrize("release", ["pacific", *RELEASES])
def test_the_bucket_polls_reads_parse_on_every_release(release):
    """What the bucket poll reads through the Admin Ops API: a listing page, one instance's
    shard count, one bucket's stats (captured on a bucket resharded to 3 shards)."""
    load = loader(release)
    keys, marker = inputs.metadata_page(load("admin_api_metadata_bucket_page.json"), "bucket")
    assert len(keys) == 1 and marker  # truncated at max-entries=1: the marker of the next page
    instances, _ = inputs.metadata_page(load("admin_api_metadata_bucket_instance_page.json"), "bucket.instance")
    assert all(inputs.instance_key(k)[1] for k in instances)
    one = inputs.bucket_record(load("admin_api_bucket.json"), 5.0)
    assert one.num_shards == 3 and one.stats_at == 5.0 and one.key == "s1-000001"
    assert inputs.instance_shards(load("admin_api_metadata_bucket_instance.json")) == 3
    # Pacific resharded it to a new instance, Reef on kept the id
    assert (one.marker != one.bucket_id) is (release == "pacific")
    assert inputs.metadata_page(["a", "tnt/b"], "bucket") == (["a", "tnt/b"], "")  # no max-entries: a plain list
    assert inputs.instance_key("tnt/b:zone.1.2") == ("tnt/b", "zone.1.2")
    with pytest.raises(inputs.InputError, match="marker: missing"):
        inputs.metadata_page({"keys": [], "truncated": "true"}, "bucket")


def test_an_rgw_whose_s3_counters_are_renamed_again_is_said_missing(release):
    """A source that succeeds but finds none of the op counters the load signal needs says so
    (CephScaleRgwS3CountersMissing), instead of an RGW that seems to serve nothing."""
    load = loader(release)
    text = load("mgr_prometheus_metrics_full.txt")
    renamed = text.replace("ceph_rgw_op_put_obj", "ceph_rgw_op_put_object").replace("ceph_rgw_put", "ceph_rgw_putx")
    counters = inputs.counters_from_prometheus_text(renamed)
    perf = inputs.perf_part(counters, 0.0)
    assert perf.rgw_without_s3_ops and not perf.rgw_ops
    th = Thresholds()

    snap = dataclasses.replace(snapshot(release), perf=perf)
    fams = derive(snap, DerivationState(th), th)
    assert values(fams, "ceph_scale_rgw_s3_counters_missing")[()] == len(perf.rgw_without_s3_ops)
    assert not any(f.name == "ceph_scale_rgw_s3_ops" for f in fams)


# cluster/capture_layout.py: a bucket resharded up by RGW, then down by hand, on each release.


def test_a_reshard_down_is_one_more_generation_and_counts_once(release):
    """`bucket layout` says what the index generation is; the exporter reads it from the index
    objects' names (Reef) or from the bucket stats (Tentacle), and counts the reshard to fewer
    shards as one reshard."""
    from ceph_scale.core.index_generation import index_generation
    from ceph_scale.core.signals.reshard.derive import ReshardState

    load = loader(release)
    up, down = (load(f"bucket_layout_{s}.json")["layout"]["current_index"] for s in ("up", "down"))
    assert down["gen"] == up["gen"] + 1
    assert down["layout"]["normal"]["num_shards"] < up["layout"]["normal"]["num_shards"]
    state, t, read = ReshardState(), 1_800_000_000.0, []
    for i, s in enumerate(("up", "down")):
        b = inputs.bucket_record(load(f"admin_api_bucket_layout_{s}.json"), t + i)
        names = set(load(f"index_objects_{s}.txt").split())
        gen = index_generation(names.__contains__, b.bucket_id)
        if release == "tentacle":
            assert b.index_gen == gen  # Tentacle's stats carry it: no index pool read needed
        read.append(gen)
        state.observe(t + i, (dataclasses.replace(b, index_gen=gen),))
    assert read == [up["gen"], down["gen"]]
    assert state.events == 1


def test_the_raw_queue_entry_decodes_as_radosgw_admin_listed_it(release):
    from ceph_scale.core.reshard_queue import decode_entry

    entry = decode_entry((FIXTURES / release / "reshard_entry.bin").read_bytes())
    [listed] = loader(release)("reshard_list_entry.json")
    assert (entry.tenant, entry.bucket, entry.bucket_id) == (
        listed["tenant"],
        listed["bucket_name"],
        listed["bucket_id"],
    )
    assert (entry.old_num_shards, entry.new_num_shards) == (
        listed["old_num_shards"],
        listed["tentative_new_num_shards"],
    )
    assert not entry.in_progress


def test_the_labelled_counter_dump_holds_the_bluefs_counters_the_exporter_reads(release):
    """From Reef on `counter dump` is the labelled form; the BlueFS counters the spillover
    signal reads are there under the same names, one unlabelled set per OSD."""
    dump = loader(release)("osd_counter_dump_osd0.json")
    [bluefs] = dump["bluefs"]
    assert bluefs["labels"] == {}
    counters = bluefs["counters"]
    assert {"db_total_bytes", "db_used_bytes", "slow_used_bytes"} <= set(counters)
    assert counters["slow_used_bytes"] > 0  # osd.0's 256 MiB DB spills on every release here
