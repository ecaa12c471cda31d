"""The rule benchmark's fleet (bench/rules_fleet.py) and its per-rule profile (bench/rules_profile.py)."""

from __future__ import annotations

import pytest

from bench import rules_fleet, rules_profile

STUDY_SAMPLES = [
    ("ceph_scale_bluefs_spillover_osds", "ceph_scale_bluefs_spillover_osds", {"cluster": "x"}, 296.0),
    ("ceph_scale_cluster_used_ratio", "ceph_scale_cluster_used_ratio", {"cluster": "x"}, 0.78),
    ("ceph_scale_osds", "ceph_scale_osds", {"cluster": "x"}, 318.0),
    (
        "ceph_scale_source_last_success_timestamp_seconds",
        "ceph_scale_source_last_success_timestamp_seconds",
        {"cluster": "x", "source": "perf"},
        1.7e9,
    ),
    ("ceph_scale_rgw_s3_ops", "ceph_scale_rgw_s3_ops_total", {"cluster": "x", "op": "put"}, 3.8e9),
]
TYPES = {
    "ceph_scale_bluefs_spillover_osds": "gauge",
    "ceph_scale_cluster_used_ratio": "gauge",
    "ceph_scale_osds": "gauge",
    "ceph_scale_source_last_success_timestamp_seconds": "gauge",
    "ceph_scale_rgw_s3_ops": "counter",
}


def written(tmp_path, clusters: int, alerting: int) -> dict[tuple[str, str], list[tuple[int, float]]]:
    path = tmp_path / "series.om"
    count = rules_fleet.write_openmetrics(path, STUDY_SAMPLES, TYPES, clusters, alerting, 0, 60)
    out: dict[tuple[str, str], list[tuple[int, float]]] = {}
    lines = path.read_text().splitlines()
    assert lines[-1] == "# EOF"
    for line in lines:
        if line.startswith("#"):
            continue
        series, value, t = line.rsplit(" ", 2)
        name, labels = series.split("{", 1)
        cluster = labels.split('cluster="', 1)[1].split('"', 1)[0]
        out.setdefault((name, cluster), []).append((int(t), float(value)))
    assert count == sum(len(v) for v in out.values()) == len(STUDY_SAMPLES) * clusters * 3
    return out


def test_the_alerting_clusters_keep_the_study_values_and_the_others_are_quiet(tmp_path):
    series = written(tmp_path, clusters=3, alerting=1)
    assert series[("ceph_scale_bluefs_spillover_osds", "c000")][0][1] > 280
    for quiet in ("c001", "c002"):
        assert series[("ceph_scale_bluefs_spillover_osds", quiet)][0][1] == 0
        assert series[("ceph_scale_cluster_used_ratio", quiet)][0][1] < 0.6
        # The quiet S3 load: the counter grows at the quiet rate, not the study's.
        (t0, v0), _, (t2, v2) = series[("ceph_scale_rgw_s3_ops_total", quiet)]
        assert (v2 - v0) / (t2 - t0) == pytest.approx(rules_fleet.QUIET_OPS_PER_RGW, rel=1e-3)
    # A family no alert turns on is the study's in every cluster (within its per-cluster wobble).
    assert all(abs(series[("ceph_scale_osds", c)][0][1] - 318) < 318 * 0.06 for c in ("c000", "c001", "c002"))


def test_the_exporters_timestamps_advance_in_every_cluster(tmp_path):
    series = written(tmp_path, clusters=2, alerting=2)
    for cluster in ("c000", "c001"):
        assert series[("ceph_scale_source_last_success_timestamp_seconds", cluster)] == [(0, 0), (30, 30), (60, 60)]


def test_the_share_of_clusters_alerting():
    assert rules_fleet.alerting_clusters(100, None) == 100
    assert rules_fleet.alerting_clusters(100, 0.05) == 5
    assert rules_fleet.alerting_clusters(100, 0.0) == 0
    with pytest.raises(SystemExit, match="--alerting-share"):
        rules_fleet.alerting_clusters(100, 1.5)


def test_quiet_values_follow_the_table():
    assert rules_fleet.quiet_value("ceph_scale_osd_used_ratio", 0.88) == 0.62
    assert rules_fleet.quiet_value("ceph_scale_osd_used_ratio", 0.4) == 0.4
    assert rules_fleet.quiet_value("ceph_scale_runway_seconds", 0.0) == 400 * rules_fleet.DAY
    assert rules_fleet.quiet_value("ceph_scale_osds", 318.0) == 318.0


def groups(stamp: str, seconds: float, alerts: int) -> list:
    rule = {"name": "A", "query": "up == 0", "type": "alerting", "lastEvaluation": stamp, "evaluationTime": seconds}
    rule["alerts"] = [{}] * alerts
    return [{"name": "g", "rules": [rule]}]


def test_each_rule_evaluation_is_counted_once():
    times = rules_profile.RuleTimes()
    times.add(groups("0001-01-01T00:00:00Z", 0.0, 0))  # not evaluated yet
    times.add(groups("2026-11-26T21:00:00Z", 0.5, 2))
    times.add(groups("2026-11-26T21:00:00Z", 0.5, 2))  # the same evaluation, polled again
    times.add(groups("2026-11-26T21:00:30Z", 0.7, 2))
    assert times.times == {("g", "A"): [0.5, 0.7]}
    assert times.alerts == {("g", "A"): 2}
    assert times.queries == {("g", "A"): "up == 0"}


def test_a_group_of_a_longer_interval_needs_its_share_of_the_rounds_at_least_one():
    """The 5-minute records run once in ten 30 s rounds: waiting for four of theirs made every
    benchmark run time out ("the rule groups did not evaluate in time")."""
    from bench.rules import evaluated_enough

    intervals = {"round": 30.0, "records-5m": 300.0}
    assert not evaluated_enough({"round": 4}, intervals, 4, 30.0)
    assert not evaluated_enough({"round": 3, "records-5m": 1}, intervals, 4, 30.0)
    assert evaluated_enough({"round": 4, "records-5m": 1}, intervals, 4, 30.0)
    assert not evaluated_enough({"round": 40, "records-5m": 1}, {**intervals, "records-1m": 60.0}, 4, 30.0)
    assert evaluated_enough({"round": 4, "records-5m": 1, "records-1m": 2}, {**intervals, "records-1m": 60.0}, 4, 30.0)


def test_the_groups_evaluations_are_read_from_prometheus_own_metrics():
    """The rounds measured read /metrics only: the rules API's answers carry every active
    alert's annotations, and encoding them was counted as the rules' CPU."""
    from bench import rules

    own = {
        "prometheus_rule_group_last_evaluation_timestamp_seconds": [
            ({"rule_group": "/x/alerts.yml;ceph-scale-fill.alerts"}, 1700000000.5),
            ({"rule_group": "/x/recording.yml;ceph-scale-fill.rules"}, 0.0),
        ],
        "prometheus_rule_group_last_duration_seconds": [
            ({"rule_group": "/x/alerts.yml;ceph-scale-fill.alerts"}, 0.012),
        ],
    }
    assert rules.group_evaluations(own) == {
        "ceph-scale-fill.alerts": (1700000000.5, 0.012),
        "ceph-scale-fill.rules": (0.0, 0.0),
    }
