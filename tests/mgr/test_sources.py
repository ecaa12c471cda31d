"""The module's sources turn the manager's data into the same snapshot parts (and so the
same families) as the sidecar makes of the `ceph` CLI output, on the Pacific captures."""

from __future__ import annotations

import dataclasses
import json
import logging

import pytest
from scale import collector, sources
from scale.options import ModuleSettings

from ceph_scale.core import inputs  # the core the module imports (install.sh copies it into the module)
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import Snapshot
from tests.mgr.fake_mgr import FakeMgrBase, load, load_fixture_data

SUFFIXES = ["", "_queued", "_resharded"]


def fake(suffix: str = "") -> FakeMgrBase:
    mgr = FakeMgrBase()
    load_fixture_data(mgr, suffix)
    return mgr


def at(part, t: float = 0.0):
    return dataclasses.replace(part, collected_at=t)


def sidecar_parts(suffix: str, t: float) -> dict:
    """What the sidecar builds from the CLI captures (tests/unit/test_fixtures.py does the same)."""
    dump = load(f"osd_dump{suffix}.json")
    return {
        "osd_map": inputs.osd_map_part(load(f"osd_df{suffix}.json"), dump, load(f"osd_metadata{suffix}.json"), t),
        "capacity": inputs.capacity_part(load(f"df_detail{suffix}.json"), dump, t),
        "perf": inputs.perf_part(inputs.counters_from_prometheus_text(load(f"mgr_prometheus_metrics{suffix}.txt")), t),
        "pgs": inputs.pg_part(load(f"pg_dump_pgs{suffix}.json"), t),
        "settings": inputs.settings_part(
            load(f"config_get{suffix}.json"), t, rgw_daemons=len(inputs.rgw_daemon_names(load("service_dump.json")))
        ),
        "health": inputs.health_part(load(f"health_detail{suffix}.json"), t),
        "buckets": inputs.buckets_part(load(f"bucket_stats{suffix}.json"), t),
        "reshard": inputs.reshard_part(load(f"reshard_list{suffix}.json"), t),
    }


def module_parts(mgr: FakeMgrBase, suffix: str, t: float) -> dict:
    settings = ModuleSettings()
    parts = {
        "osd_map": sources.collect_osd_map(mgr),
        "capacity": sources.collect_capacity(mgr),
        "perf": sources.collect_perf(mgr),
        "pgs": sources.collect_pgs(mgr),
        "settings": sources.collect_settings(mgr, settings),
        "health": sources.collect_health(mgr),
        # RGW: the same JSON the module gets from radosgw-admin / the Admin Ops API
        "buckets": inputs.buckets_part(load(f"bucket_stats{suffix}.json"), t),
        "reshard": inputs.reshard_part(load(f"reshard_list{suffix}.json"), t),
    }
    return {k: at(v, t) for k, v in parts.items()}


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_each_part_equals_the_sidecars(suffix):
    t = 1.0
    ours = module_parts(fake(suffix), suffix, t)
    theirs = sidecar_parts(suffix, t)
    for name in sources.registry.SOURCE_NAMES:
        assert ours[name] == theirs[name], name


def fixture_families(suffix: str = "", producer: str = "mgr") -> list:
    return fixture_derivation(suffix, producer)[0]


def fixture_derivation(suffix: str = "", producer: str = "mgr") -> tuple[list, DerivationState]:
    """The families of the captures, and the state holding the signals' judgements of them."""
    pg_dump = load(f"pg_dump_pgs{suffix}.json")
    t = max(inputs.parse_stamp(s["last_fresh"], "last_fresh") for s in pg_dump["pg_stats"])
    parts = module_parts(fake(suffix), suffix, t)
    snap = Snapshot(taken_at=t, fsid=load(f"osd_dump{suffix}.json")["fsid"], **parts)
    state = DerivationState(Thresholds())
    return derive(snap, state, Thresholds(), producer=producer), state


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_same_families_as_the_sidecar_but_the_producer(suffix):
    ours = {f.name: f for f in fixture_families(suffix, "mgr")}
    theirs = {f.name: f for f in fixture_families(suffix, "sidecar")}
    assert set(ours) == set(theirs)
    for name, fam in ours.items():
        assert fam.label_names == theirs[name].label_names, name
        if name != "ceph_scale_build_info":
            assert fam.samples == theirs[name].samples, name
    assert ours["ceph_scale_build_info"].samples[0][1][-1] == "mgr"


def test_osd_df_from_the_managers_osd_stats():
    mgr = fake()
    df = sources.osd_df_from_stats(mgr.get("osd_stats"), mgr.get("osd_map_crush"), mgr.get("osd_map"))
    cli = {n["id"]: n for n in load("osd_df.json")["nodes"]}
    for node in df["nodes"]:
        assert {k: node[k] for k in ("kb", "kb_used", "kb_avail", "device_class")} == {
            k: cli[node["id"]][k] for k in ("kb", "kb_used", "kb_avail", "device_class")
        }


def test_osd_without_stats_has_no_size_and_is_skipped_by_the_fill_signal():
    mgr = fake()
    mgr.data["osd_stats"]["osd_stats"] = [s for s in mgr.data["osd_stats"]["osd_stats"] if s["osd"] != 2]
    part = sources.collect_osd_map(mgr)
    assert next(o for o in part.osds if o.osd_id == 2).size_bytes == 0


def test_health_json_wrapper_and_plain():
    mgr = fake()
    wrapped = sources.collect_health(mgr)
    mgr.data["health"] = json.loads(mgr.data["health"]["json"])
    assert at(sources.collect_health(mgr)) == at(wrapped)


def test_perf_counters_only_the_ones_the_core_uses():
    mgr = fake()
    counters = sources.fetch_counters(mgr)
    assert set(counters) == {"osd.0", "osd.1", "osd.2", "rgw.4257"}
    assert all(set(c) <= set(inputs.PERF_COUNTERS) for c in counters.values())


def test_perf_fallback_through_the_stock_walker():
    class Reef(FakeMgrBase):
        def get_unlabeled_perf_counters(self, prio_limit=5, services=()):
            return {d: {p: {"value": v} for p, v in c.items()} for d, c in self.counters.items()}

    mgr = Reef()
    load_fixture_data(mgr)
    assert sources.fetch_counters_fallback(mgr) == sources.fetch_counters(mgr)


def test_missing_data_is_a_clear_error():
    mgr = fake()
    mgr.data.pop("pg_stats")
    with pytest.raises(sources.SourceError, match="no 'pg_stats' yet"):
        sources.collect_pgs(mgr)


def test_settings_rgw_option_failure_names_the_option():
    mgr = fake()
    mgr.config_db.clear()
    with pytest.raises(sources.SourceError, match="config get client.rgw rgw_max_objs_per_shard"):
        sources.collect_settings(mgr, ModuleSettings())


def test_rgw_mode_auto():
    assert sources.rgw_mode(ModuleSettings(rgw_endpoint="http://rgw:8080")) == "admin_api"
    assert sources.rgw_mode(ModuleSettings(rgw_source="radosgw_admin")) == "radosgw_admin"


def test_buckets_without_endpoint_or_tool_fail_clearly(monkeypatch):
    monkeypatch.setattr(sources.rgw, "radosgw_admin_available", lambda: False)
    with pytest.raises(sources.rgw.RgwError, match="set mgr/scale/rgw_endpoint"):
        sources.BucketPolling(lambda name: None, Thresholds).collect(fake(), ModuleSettings())


def test_buckets_unreachable_endpoint_fails_without_the_secret():
    settings = ModuleSettings(rgw_endpoint="http://127.0.0.1:9", rgw_access_key="AK", rgw_secret_key="s3cr3t")
    with pytest.raises(sources.rgw.AdminOpsError) as e:  # the core's client, shared with the sidecar
        sources.BucketPolling(lambda name: None, Thresholds).collect(
            fake(), dataclasses.replace(settings, rgw_timeout=2)
        )
    assert "127.0.0.1:9" in str(e.value) and "s3cr3t" not in str(e.value)


def test_every_source_has_a_schedule_and_nothing_else_does():
    """A source the schedule table misses would have no interval: the module's lookup fails loudly."""
    assert set(sources.source_functions(FakeMgrBase(), ModuleSettings)) == set(collector.SCHEDULES)
    for interval_option, timeout_option in collector.SCHEDULES.values():
        assert isinstance(getattr(ModuleSettings(), interval_option), int)
        assert timeout_option is None or isinstance(getattr(ModuleSettings(), timeout_option), int)


def test_every_registered_source_has_a_collector_and_a_schedule_of_module_options():
    assert tuple(sources.source_functions(fake(), ModuleSettings)) == sources.registry.SOURCE_NAMES
    options = {f.name for f in dataclasses.fields(ModuleSettings)}
    assert tuple(collector.SCHEDULES) == sources.registry.SOURCE_NAMES
    for interval_option, timeout_option in collector.SCHEDULES.values():
        assert interval_option in options and (timeout_option is None or timeout_option in options)


def test_the_bucket_poll_state_is_kept_in_the_store_and_a_new_manager_goes_on_from_it(monkeypatch):
    """Saved every SAVE_EVERY seconds in chunks of the manager's store, restored by the next
    active manager: the buckets it knows are not read again at once, the new one is."""
    from tests.unit.bucket_reader import Clock, MemoryBuckets

    clock = Clock()
    cluster = MemoryBuckets(clock)
    for i in range(300):
        cluster.create(f"b{i:03d}", 11, i)
    mgr = fake()
    monkeypatch.setattr(sources.BucketPolling, "_reader", lambda self, mgr, settings: cluster)
    monkeypatch.setattr(sources.BucketPolling, "_exists", lambda self, mgr: cluster.exists)
    first = sources.BucketPolling(lambda name: None, Thresholds)
    part = first.collect(mgr, ModuleSettings())
    assert len(part.buckets) == 300 and not any(k.startswith("bucket_poll") for k in mgr.store)
    first.saved_at -= sources.SAVE_EVERY  # ten minutes later
    first.collect(mgr, ModuleSettings())
    chunks = [k for k in mgr.store if k.startswith("bucket_poll/")]
    assert chunks and "bucket_poll" in mgr.store
    cluster.create("new-while-failing-over", 11, 5)
    cluster.stats_read.clear()
    after = sources.BucketPolling(lambda name: None, Thresholds).collect(mgr, ModuleSettings())
    assert cluster.stats_read[0] == "new-while-failing-over"
    assert {b.key: b.num_objects for b in after.buckets} == {**{f"b{i:03d}": i for i in range(300)},
                                                             "new-while-failing-over": 5}  # fmt: skip


def test_a_bucket_poll_state_with_a_row_past_any_float_reads_that_bucket_again_and_keeps_the_rest(monkeypatch, caplog):
    """A stored row holding 1e400 (valid JSON) made every collection of the buckets fail before,
    OverflowError out of the restore, and the restore was tried again at each: the buckets source
    failed for good. Now that bucket alone is read again, with one warning."""
    from scale import statestore

    from tests.unit.bucket_reader import Clock, MemoryBuckets

    clock = Clock()
    cluster = MemoryBuckets(clock)
    for i in range(300):
        cluster.create(f"b{i:03d}", 11, i)
    monkeypatch.setattr(sources.BucketPolling, "_reader", lambda self, mgr, settings: cluster)
    monkeypatch.setattr(sources.BucketPolling, "_exists", lambda self, mgr: cluster.exists)
    first = sources.BucketPolling(lambda name: None, Thresholds)
    first.collect(fake(), ModuleSettings())
    saved = json.loads(json.dumps(first.poll.to_dict()))
    saved["buckets"]["b007"][3] = 10**400  # its object count
    mgr = fake()
    mgr.store.update(statestore.encode_poll(saved))
    cluster.stats_read.clear()
    with caplog.at_level(logging.INFO, logger="scale-test"):
        after = sources.BucketPolling(lambda name: None, Thresholds).collect(mgr, ModuleSettings())
    assert cluster.stats_read[0] == "b007"  # read again first, as never read
    assert {b.key: b.num_objects for b in after.buckets} == {f"b{i:03d}": i for i in range(300)}
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 1 and "1 of 300 saved rows unreadable" in warned[0], warned


def test_the_managers_librados_handle_is_made_by_one_thread_at_a_time():
    """MgrModule.rados connects its handle on first use without a lock; two collection threads
    at once crashed a Tentacle manager. Through manager_rados the property runs alone."""
    import threading
    import time

    from scale.sources import manager_rados

    class Manager:
        inside = most = made = 0

        @property
        def rados(self):
            Manager.inside += 1
            Manager.most = max(Manager.most, Manager.inside)
            time.sleep(0.05)
            Manager.made += 1
            Manager.inside -= 1
            return object()

    mgr = Manager()
    threads = [threading.Thread(target=manager_rados, args=(mgr,)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert Manager.made == 8 and Manager.most == 1
