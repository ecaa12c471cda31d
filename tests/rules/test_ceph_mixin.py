"""Beside ceph-mixin: both rule sets loaded in one promtool run on the study's states, and the
alerts that fire sent to a real Alertmanager with rules/alertmanager/alertmanager.yml. Per condition, one or
two notifications reach people, whatever each set says on its own.

ceph-mixin is Debian's ceph-prometheus-alerts (installed by scripts/bootstrap.sh). Its alerts
carry the `cluster` label the Ceph scrape job is given (`labels: {cluster: ...}`).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import yaml

from tests.rules.test_rules import (
    ALERTMANAGER_CONFIG,
    REPO,
    RULE_FILES,
    post_alerts,
    run,
    tool,
    validate,
)

CEPH_MIXIN = Path("/etc/prometheus/ceph/ceph_default_alerts.yml")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
TARGET = 'job="ceph-scale",instance="sidecar:9928"'
CEPH = 'job="ceph",instance="mgr:9283"'
# The study's 10B cluster at 90 % full: its health checks as the mgr prometheus module exports
# them, and the exporter's view of the same state.
FULL_90 = {
    f'ceph_health_status{{cluster="c1",{CEPH}}}': "1x30",
    f'up{{cluster="c1",{CEPH}}}': "1x30",
    **{
        f'ceph_health_detail{{cluster="c1",name="{name}",severity="HEALTH_WARN",{CEPH}}}': "1x30"
        for name in ("OSD_NEARFULL", "OSD_BACKFILLFULL", "POOL_NEAR_FULL", "POOL_BACKFILLFULL")
    },
    f'ceph_scale_build_info{{cluster="c1",version="0.1.0",producer="sidecar",{TARGET}}}': "1x30",
    **{
        f'ceph_scale_config{{cluster="c1",option="{option}",{TARGET}}}': f"{value}x30"
        for option, value in (("fill_warn_ratio", 0.7), ("fill_target_ratio", 0.8), ("fill_critical_ratio", 0.9))
    },
    f'ceph_scale_cluster_used_ratio{{cluster="c1",{TARGET}}}': "0.9x30",
    **{
        f'ceph_scale_pool_used_ratio{{cluster="c1",pool_id="{i}",name="pool{i}",{TARGET}}}': "0.9x30"
        for i in range(1, 8)
    },
    f'ceph_scale_osd_fullest_used_ratio{{cluster="c1",ceph_daemon="osd.7",{TARGET}}}': "0.92x30",
    **{
        f'ceph_scale_osd_full_ratio{{cluster="c1",kind="{kind}",{TARGET}}}': f"{value}x30"
        for kind, value in (("nearfull", 0.85), ("backfillfull", 0.9), ("full", 0.95))
    },
}
# The same cluster at 85 %: past the fill target, below the critical line; every pool and the
# fullest OSD past the target too (the OSD past nearfull, below backfillfull).
FULL_85 = {
    **{k: v for k, v in FULL_90.items() if "ceph_health_detail" not in k},
    **{
        f'ceph_health_detail{{cluster="c1",name="{name}",severity="HEALTH_WARN",{CEPH}}}': "1x30"
        for name in ("OSD_NEARFULL", "POOL_NEAR_FULL")
    },
    f'ceph_scale_cluster_used_ratio{{cluster="c1",{TARGET}}}': "0.85x30",
    **{
        f'ceph_scale_pool_used_ratio{{cluster="c1",pool_id="{i}",name="pool{i}",{TARGET}}}': "0.85x30"
        for i in range(1, 8)
    },
    f'ceph_scale_osd_fullest_used_ratio{{cluster="c1",ceph_daemon="osd.7",{TARGET}}}': "0.87x30",
}
# One of the study's 318 HDD OSDs down (and in): ceph-mixin's OSD_DOWN, the exporter's share.
OSD_DOWN = {
    f'ceph_health_status{{cluster="c1",{CEPH}}}': "1x30",
    f'up{{cluster="c1",{CEPH}}}': "1x30",
    f'ceph_health_detail{{cluster="c1",name="OSD_DOWN",severity="HEALTH_WARN",{CEPH}}}': "1x30",
    **{f'ceph_osd_up{{cluster="c1",ceph_daemon="osd.{i}",{CEPH}}}': ("0x30" if i == 0 else "1x30") for i in range(318)},
    f'ceph_scale_build_info{{cluster="c1",version="0.1.0",producer="sidecar",{TARGET}}}': "1x30",
    # every exporter serves the thresholds in force (CephScaleConfigMissing otherwise)
    f'ceph_scale_config{{cluster="c1",option="fill_target_ratio",{TARGET}}}': "0.8x30",
    f'ceph_scale_osds_down_ratio{{cluster="c1",{TARGET}}}': f"{1 / 318}x30",
    **{
        f'ceph_scale_degraded_expected_drop_ratio{{cluster="c1",op="{op}",{TARGET}}}': f"{value}x30"
        for op, value in (("put", 0.0094), ("get", 0.0126))
    },
}


# The 10B study cluster's end state [004]: 296 of 318 OSDs spilling, 19,494 of 21,760 PGs not
# deep-scrubbed in time and still growing, nothing completing; Ceph's health checks say so too.
STUDY_10B = {
    f'ceph_health_status{{cluster="c3",{CEPH}}}': "1x140",
    f'up{{cluster="c3",{CEPH}}}': "1x140",
    **{
        f'ceph_health_detail{{cluster="c3",name="{name}",severity="HEALTH_WARN",{CEPH}}}': "1x140"
        for name in ("BLUEFS_SPILLOVER", "PG_NOT_SCRUBBED", "PG_NOT_DEEP_SCRUBBED")
    },
    f'ceph_scale_build_info{{cluster="c3",version="0.1.0",producer="sidecar",{TARGET}}}': "1x140",
    # every exporter serves the thresholds in force (CephScaleConfigMissing otherwise)
    f'ceph_scale_config{{cluster="c3",option="fill_target_ratio",{TARGET}}}': "0.8x140",
    f'ceph_scale_bluefs_spillover_osds{{cluster="c3",{TARGET}}}': "296x140",
    f'ceph_scale_bluefs_db_osds{{cluster="c3",{TARGET}}}': "318x140",
    **{
        f'ceph_scale_bluefs_spilled_bytes{{cluster="c3",ceph_daemon="osd.{i}",{TARGET}}}': f"{(i + 1) * 2**30}x140"
        for i in range(4)
    },
    **{
        f'ceph_scale_pg_scrub_overdue{{cluster="c3",kind="{kind}",{TARGET}}}': f"{start}+10x140"
        for kind, start in (("deep_scrub", 19494), ("scrub", 21070))
    },
    **{
        f'ceph_scale_pg_scrub_overdue_after_seconds{{cluster="c3",kind="{kind}",{TARGET}}}': f"{after}x140"
        for kind, after in (("deep_scrub", 1058400), ("scrub", 907200))
    },
    **{
        f'ceph_scale_pg_scrubs_completed_total{{cluster="c3",kind="{k}",{TARGET}}}': "0x140"
        for k in ("scrub", "deep_scrub")
    },
}


@pytest.fixture(scope="module")
def mixin_groups() -> list[dict]:
    if not CEPH_MIXIN.is_file():
        pytest.fail(f"{CEPH_MIXIN} not found: run scripts/bootstrap.sh (Debian ceph-prometheus-alerts)")
    return yaml.safe_load(CEPH_MIXIN.read_text())["groups"]


def firing(tmp_path: Path, groups: list[dict], series: dict[str, str], at: str = "20m") -> list[dict]:
    """The alerts firing after `at` of `series`, with both rule sets loaded: promtool
    is asked for the exact set (it fails if the set differs), so read it from its answer."""
    order = [g["name"] for p in RULE_FILES for g in yaml.safe_load(p.read_text())["groups"]]
    order += [g["name"] for g in groups]
    test = {
        "rule_files": [str(p) for p in RULE_FILES] + [str(CEPH_MIXIN)],
        "evaluation_interval": "1m",
        "group_eval_order": order,
        "tests": [
            {
                "interval": "1m",
                "input_series": [{"series": s, "values": v} for s, v in series.items()],
                "promql_expr_test": [{"expr": 'ALERTS{alertstate="firing"}', "eval_time": at, "exp_samples": []}],
            }
        ],
    }
    path = tmp_path / "both.yml"
    path.write_text(yaml.safe_dump(test))
    out = run(tool("promtool"), "test", "rules", str(path))
    got = out.stdout + out.stderr
    if "got: nil" in got:
        return []
    line = next(x for x in got.splitlines() if x.strip().startswith("got:"))
    alerts = []
    for body in re.findall(r"\{([^{}]*)\}", line.split("got:", 1)[1]):
        labels = dict(LABEL.findall(body))
        alerts.append({k: v for k, v in labels.items() if k not in ("__name__", "alertstate")})
    return alerts


@pytest.fixture(scope="module")
def alertmanager(tmp_path_factory):
    tool("prometheus-alertmanager")
    from demo.monitoring import Alertmanager

    am = Alertmanager(tmp_path_factory.mktemp("am-mixin"), ALERTMANAGER_CONFIG)
    try:
        yield am.start()
    finally:
        am.stop()


def notified(am, alerts: list[dict], timeout: float = 15.0) -> set[str]:
    """The alert names Alertmanager would notify about (not inhibited), once it has them all."""
    import json
    import urllib.request

    post_alerts(am, alerts)
    names = {a["alertname"] for a in alerts}
    clusters = {a.get("cluster") for a in alerts}
    end = time.monotonic() + timeout
    previous = None
    while True:
        with urllib.request.urlopen(f"{am.url}/api/v2/alerts", timeout=10) as r:
            current = [
                a
                for a in json.loads(r.read())
                if a["labels"]["alertname"] in names and a["labels"].get("cluster") in clusters
            ]
        settled = len(current) >= len(alerts) and all(a["status"]["state"] != "unprocessed" for a in current)
        reached = {a["labels"]["alertname"] for a in current if not a["status"]["inhibitedBy"]}
        # Alertmanager marks inhibitions as it processes the batch: an alert may read active
        # before the alert that inhibits it is in. The same answer twice, a second apart, is settled.
        if (settled and reached == previous) or time.monotonic() > end:
            return reached
        previous = reached if settled else None
        time.sleep(1.0)


def test_the_ceph_mixin_names_we_inhibit_exist_in_debians_ceph_mixin(mixin_groups):
    theirs = {r["alert"] for g in mixin_groups for r in g["rules"] if "alert" in r}
    assert validate.CEPH_MIXIN_ALERTS <= theirs, validate.CEPH_MIXIN_ALERTS - theirs


def test_a_cluster_at_90_percent_is_one_or_two_notifications_not_a_dozen(tmp_path, mixin_groups, alertmanager):
    alerts = firing(tmp_path, mixin_groups, FULL_90)
    names = [a["alertname"] for a in alerts]
    # Both sets speak: ours (cluster, 7 pools, the fullest OSD) and ceph-mixin's health checks.
    page = "CephScaleOsdFullestPastBackfillfull"
    assert {page, "CephScalePoolPastFillTarget", "CephOSDNearFull", "CephPoolNearFull"} <= set(names), names
    assert len(alerts) >= 10
    # The fullest OSD (92 %) past backfillfull is the fill's page, and the cluster's critical
    # waits for it: one page for the fill, not one held back and paging again around the other.
    assert "CephScaleFillPastCritical" not in names
    reach = notified(alertmanager, alerts)
    assert page in reach
    assert len(reach) <= 2, reach  # the fill's page, and ceph-mixin's generic health warning


def test_a_cluster_past_the_fill_target_is_two_notifications_not_four(tmp_path, mixin_groups, alertmanager):
    """At 85 % the cluster, its pools and its fullest OSD are all past the target: the cluster's
    alert says it; the per-pool and fullest-OSD ones, and ceph-mixin's nearfull, add nothing."""
    alerts = firing(tmp_path, mixin_groups, FULL_85)
    names = [a["alertname"] for a in alerts]
    assert {
        "CephScaleFillPastTarget", "CephScalePoolPastFillTarget", "CephScaleOsdFullestPastTarget",
        "CephOSDNearFull", "CephPoolNearFull", "CephHealthWarning",
    } <= set(names), names  # fmt: skip
    assert names.count("CephScalePoolPastFillTarget") == 7
    assert not {"CephScaleFillPastCritical", "CephScaleOsdFullestPastBackfillfull", "CephOSDBackfillFull"} & set(names)
    reach = notified(alertmanager, [{**a, "cluster": "c4"} for a in alerts])  # a cluster of its own here
    assert reach == {"CephScaleFillPastTarget", "CephHealthWarning"}, reach


def test_one_osd_down_is_one_or_two_notifications(tmp_path, mixin_groups, alertmanager):
    alerts = firing(tmp_path, mixin_groups, OSD_DOWN)
    names = {a["alertname"] for a in alerts}
    assert {"CephScaleOsdsDownExpectedDrop", "CephOSDDown"} <= names, names
    reach = notified(alertmanager, [{**a, "cluster": "c2"} for a in alerts])  # a cluster of its own here
    assert "CephScaleOsdsDownExpectedDrop" in reach and "CephOSDDown" not in reach
    assert len(reach) <= 2, reach


def test_rules_load_together_without_clashing_names(mixin_groups):
    ours = {
        r.get("alert") or r.get("record")
        for p in RULE_FILES
        for g in yaml.safe_load(p.read_text())["groups"]
        for r in g["rules"]
    }
    theirs = {r.get("alert") or r.get("record") for g in mixin_groups for r in g["rules"]}
    assert not ours & theirs
    assert REPO.joinpath("rules", "alertmanager", "alertmanager.yml").is_file()


def test_the_study_cluster_spilling_and_behind_on_scrubs_is_one_notification_per_condition(
    tmp_path, mixin_groups, alertmanager
):
    alerts = firing(tmp_path, mixin_groups, STUDY_10B, at="130m")
    names = {a["alertname"] for a in alerts}
    assert {"CephPGNotDeepScrubbed", "CephPGNotScrubbed", "CephScaleScrubBacklogNotClearing"} <= names, names
    assert "CephScaleBluefsSpilloverStarted" in names and "CephScaleBluefsSpilloverSpreading" not in names
    reach = notified(alertmanager, alerts)
    # Spillover: ours; each scrub kind: ours, which says it does not clear; plus Ceph's health warning.
    assert reach == {"CephScaleBluefsSpilloverStarted", "CephScaleScrubBacklogNotClearing", "CephHealthWarning"}, reach
