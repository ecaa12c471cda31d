"""Values the cluster holds that the config database does not show: the running RGWs' own
options, and pools' own scrub intervals. From captures (tests/fixtures/pacific/CAPTURED.md)."""

from __future__ import annotations

import copy
import json

import pytest

from ceph_scale.core import inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import ClusterSettings, RgwRunningOption, Snapshot
from tests.unit.test_fixtures import FIX, capture_time, load, values


def running_options() -> tuple[RgwRunningOption, ...]:
    names = inputs.rgw_daemon_names(load("service_dump.json"))
    assert names == ["4154"]  # keyed by gid, as `config show rgw.<name>` wants it
    shown = {
        # decoded as both producers decode a command's JSON output
        (f"rgw.{name}", option): json.loads((FIX / f"config_show_rgw_{option}.json").read_bytes())
        for name in names
        for option in inputs.RGW_RUNNING_OPTIONS
    }
    return inputs.read_rgw_running(names, lambda who, option: shown[(who, option)])


def shard_limit(settings: ClusterSettings, th: Thresholds) -> tuple[dict, dict]:
    fams = derive(Snapshot(taken_at=1.0, settings=settings), DerivationState(th), th)
    return values(fams, "ceph_scale_config"), values(fams, "ceph_scale_config_origin")


def test_the_running_rgws_limit_wins_over_the_config_database():
    running = running_options()
    assert {(o.option, o.value) for o in running} == {("rgw_max_objs_per_shard", 20), ("rgw_reshard_num_logs", 16)}
    settings = inputs.settings_part(load("config_get.json"), 1.0, running, 1)
    assert settings.rgw_max_objs_per_shard == 100  # what `config get client.rgw` says
    config, origin = shard_limit(settings, Thresholds())
    assert config[(("option", "rgw_max_objs_per_shard"),)] == 20
    assert origin == {(("option", "rgw_max_objs_per_shard"), ("origin", "rgw")): 1}


def test_an_explicit_threshold_wins_over_what_is_read():
    settings = inputs.settings_part(load("config_get.json"), 1.0, running_options(), 1)
    th = Thresholds.from_mapping({"rgw_max_objs_per_shard": 100_000})  # the default, set on purpose
    config, origin = shard_limit(settings, th)
    assert config[(("option", "rgw_max_objs_per_shard"),)] == 100_000
    assert origin == {(("option", "rgw_max_objs_per_shard"), ("origin", "threshold")): 1}
    # Another threshold set leaves this one to the cluster.
    config, origin = shard_limit(settings, Thresholds.from_mapping({"fill_target_ratio": 0.75}))
    assert config[(("option", "rgw_max_objs_per_shard"),)] == 20


def test_without_running_values_the_config_database_then_the_default():
    settings = inputs.settings_part(load("config_get.json"), 1.0, (), 1)
    config, origin = shard_limit(settings, Thresholds())
    assert config[(("option", "rgw_max_objs_per_shard"),)] == 100
    assert origin == {(("option", "rgw_max_objs_per_shard"), ("origin", "config_db")): 1}
    config, origin = shard_limit(inputs.settings_part({}, 1.0), Thresholds())
    assert config[(("option", "rgw_max_objs_per_shard"),)] == 100_000
    assert origin == {(("option", "rgw_max_objs_per_shard"), ("origin", "default")): 1}


def test_rgws_that_disagree_are_judged_by_the_smallest_limit_and_shown():
    (first, logs) = running_options()
    other = RgwRunningOption("4160", "rgw_max_objs_per_shard", 100)
    other_logs = RgwRunningOption("4160", "rgw_reshard_num_logs", 16)
    settings = inputs.settings_part({}, 1.0, (first, logs, other, other_logs), 3)
    fams = derive(Snapshot(taken_at=1.0, settings=settings), DerivationState(Thresholds()), Thresholds())
    assert values(fams, "ceph_scale_config")[(("option", "rgw_max_objs_per_shard"),)] == 20
    assert values(fams, "ceph_scale_rgw_running_option_values") == {
        (("option", "rgw_max_objs_per_shard"),): 2,
        (("option", "rgw_reshard_num_logs"),): 1,
    }
    assert values(fams, "ceph_scale_rgw_running_option_min")[(("option", "rgw_max_objs_per_shard"),)] == 20
    assert values(fams, "ceph_scale_rgw_running_option_max")[(("option", "rgw_max_objs_per_shard"),)] == 100
    assert values(fams, "ceph_scale_rgw_running_config_unread")[()] == 1  # the third RGW


def test_an_rgw_without_config_state_is_unread_not_a_failure():
    def refuse(who: str, option: str):
        raise RuntimeError(f"config show {who} {option}: no config state for daemon {who}")

    assert inputs.read_rgw_running(["4154"], refuse) == ()


@pytest.mark.parametrize("bad", [{"services": []}, {"epoch": 3}, [], {"services": {"rgw": {"daemons": [1]}}}])
def test_a_bad_service_map_is_refused_with_its_path(bad):
    with pytest.raises(inputs.InputError, match="service map"):
        inputs.rgw_daemon_names(bad)


def test_pool_scrub_intervals_count_as_cephs_own_checks_do():
    """Pool 5 has scrub_max_interval and deep_scrub_interval of a day, the cluster 120 s:
    Ceph finds every PG but pool 5's overdue; so must we."""
    pg_dump = load("pg_dump_pgs_pool_scrub.json")
    t = capture_time(pg_dump)
    dump = load("osd_dump_pool_scrub.json")
    snap = Snapshot(
        taken_at=t,
        capacity=inputs.capacity_part(load("df_detail_pool_scrub.json"), dump, t),
        pgs=inputs.pg_part(pg_dump, t),
        settings=inputs.settings_part(load("config_get_pool_scrub.json"), t),
    )
    pool = next(p for p in snap.capacity.pools if p.pool_id == 5)
    assert (pool.scrub_max_interval_seconds, pool.deep_scrub_interval_seconds) == (86400, 86400)
    checks = load("health_detail_pool_scrub.json")["checks"]
    th = Thresholds()
    overdue = values(derive(snap, DerivationState(th), th), "ceph_scale_pg_scrub_overdue")
    assert overdue[(("kind", "scrub"),)] == checks["PG_NOT_SCRUBBED"]["summary"]["count"] == 41
    assert overdue[(("kind", "deep_scrub"),)] == checks["PG_NOT_DEEP_SCRUBBED"]["summary"]["count"] == 41
    # The cluster's intervals alone would count pool 5's PGs too.
    alone = Snapshot(taken_at=t, pgs=snap.pgs, settings=snap.settings)
    assert values(derive(alone, DerivationState(th), th), "ceph_scale_pg_scrub_overdue")[(("kind", "scrub"),)] == 49


def test_the_settings_follow_ceph_within_one_pg_poll():
    """A changed scrub interval moves Ceph's PG_NOT_SCRUBBED within a minute; the sidecar's
    overdue counts must not lag it by more than one pgs poll (the module: tests/mgr/test_options.py)."""
    from exporter.sidecar.sources.pgs import PgsSource
    from exporter.sidecar.sources.settings import SettingsSource

    assert SettingsSource.default_interval <= PgsSource.default_interval


def test_a_restarted_rgws_old_entry_is_not_read():
    """A restarted RGW registers under a new gid while its old entry lingers in the service
    map: only the latest start of one daemon (host and name) is a running RGW."""
    service_map = copy.deepcopy(load("service_dump.json"))
    daemons = service_map["services"]["rgw"]["daemons"]
    old = daemons["4154"]
    daemons["4390"] = {**copy.deepcopy(old), "gid": 4390, "start_epoch": old["start_epoch"] + 5}
    other = copy.deepcopy(old)
    other["metadata"]["id"] = "b"
    daemons["4400"] = {**other, "gid": 4400}
    assert inputs.rgw_daemon_names(service_map) == ["4390", "4400"]
