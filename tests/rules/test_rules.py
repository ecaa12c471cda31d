"""The alerting rules: promtool and amtool checks, unit tests, routing, inhibition, and the validator.

Runs Debian's promtool (package prometheus) and amtool / prometheus-alertmanager
(package prometheus-alertmanager), installed by scripts/bootstrap.sh.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from rules import assemble
from rules.rule_set import CHART_RULES_DIR, SIGNALS_DIR

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "rules"
SIGNAL_FOLDERS = REPO / SIGNALS_DIR
ALERTMANAGER_CONFIG = RULES / "alertmanager" / "alertmanager.yml"


def _load_validator():
    spec = importlib.util.spec_from_file_location("ceph_scale_rules_validate", RULES / "validate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


validate = _load_validator()
RULE_FILES = validate.rule_files(RULES)
TEST_FILES = validate.promtool_test_files(RULES)


def tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        pytest.fail(f"{name} not found: run scripts/bootstrap.sh (Debian prometheus / prometheus-alertmanager)")
    return path


def run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=REPO)


@functools.cache
def alert_rules() -> dict[str, dict]:
    alerts = {}
    for path in RULE_FILES:
        for group in yaml.safe_load(path.read_text())["groups"]:
            for rule in group["rules"]:
                if "alert" in rule:
                    alerts[rule["alert"]] = rule
    return alerts


# promtool ------------------------------------------------------------------


def test_rule_files_exist():
    assert [p.name for p in RULE_FILES] == ["alerts.yml", "recording.yml"]
    assert len(TEST_FILES) >= 7


def test_promtool_check_rules():
    r = run(tool("promtool"), "check", "rules", *map(str, RULE_FILES))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SUCCESS" in r.stdout


@pytest.mark.parametrize("test_file", TEST_FILES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_promtool_unit_tests(test_file):
    r = run(tool("promtool"), "test", "rules", str(test_file))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SUCCESS" in r.stdout


def test_every_signal_folder_with_rules_has_its_promtool_tests():
    """A folder's rules are tested beside them (the tests across signals stay in rules/tests/)."""
    tested = {p.relative_to(SIGNAL_FOLDERS).parts[0] for p in TEST_FILES if p.is_relative_to(SIGNAL_FOLDERS)}
    with_rules = {p.parent.name for p in SIGNAL_FOLDERS.glob("*/rules.yml")}
    assert with_rules == tested


def test_promtool_unit_tests_fail_on_a_wrong_expectation(broken_copy):
    """The unit tests can fail: a copy expecting 79.9 % to be past the 80 % target does."""
    path = broken_copy / "ceph_scale" / "core" / "signals" / "fill" / "rules_test.yml"
    text = path.read_text()
    broken = text.replace("values: '0.799x30'", "values: '0.79x30'", 1)
    assert broken != text
    path.write_text(broken)
    r = run(tool("promtool"), "test", "rules", str(path))
    assert r.returncode != 0
    assert "CephScaleFillAboveWarnLine" in r.stdout + r.stderr


# amtool --------------------------------------------------------------------


def test_amtool_check_config():
    r = run(tool("amtool"), "check-config", str(ALERTMANAGER_CONFIG))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SUCCESS" in r.stdout


def routes(labels: dict[str, str]) -> list[str]:
    argv = [tool("amtool"), "config", "routes", "test", f"--config.file={ALERTMANAGER_CONFIG}"]
    r = run(*argv, *(f"{k}={v}" for k, v in labels.items()))
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.strip().split(",")


@pytest.mark.parametrize(
    ("labels", "receivers"),
    [
        (
            {"alertname": "CephScaleBluefsSpilloverSpreading", "severity": "critical", "signal": "spillover"},
            ["ceph-scale-pager", "ceph-scale-storage"],
        ),
        (
            {"alertname": "CephScaleBluefsSpilloverStarted", "severity": "warning", "signal": "spillover"},
            ["ceph-scale-storage"],
        ),
        ({"alertname": "CephScaleRgwReshardStorm", "severity": "warning", "signal": "reshard"}, ["ceph-scale-rgw"]),
        ({"alertname": "CephScaleHddOsdHotspot", "severity": "warning", "signal": "load"}, ["ceph-scale-rgw"]),
        (
            {"alertname": "CephScaleS3ThroughputPlunge", "severity": "warning", "signal": "plunge"},
            ["ceph-scale-rgw"],
        ),
        ({"alertname": "CephScaleFillAboveWarnLine", "severity": "info", "signal": "fill"}, ["ceph-scale-ticket"]),
        (
            {"alertname": "CephScalePoolPredictedToCrossTarget", "severity": "warning", "signal": "fill"},
            ["ceph-scale-storage"],
        ),
        (
            {"alertname": "CephScaleExporterDataMissing", "severity": "critical", "signal": "exporter"},
            ["ceph-scale-pager", "ceph-scale-monitoring"],
        ),
        (
            {"alertname": "CephScaleSourceFailing", "severity": "warning", "signal": "exporter"},
            ["ceph-scale-monitoring"],
        ),
        (
            {"alertname": "CephScaleClusterLeftFleet", "severity": "info", "signal": "exporter"},
            ["ceph-scale-ticket"],
        ),
        ({"alertname": "SomethingElse", "severity": "critical"}, ["default"]),
    ],
    ids=lambda v: v.get("alertname") if isinstance(v, dict) else None,
)
def test_routes(labels, receivers):
    assert routes({"cluster": "c1", **labels}) == receivers


@functools.cache
def teams() -> dict[str, str]:
    """signal -> its team's receiver, as the ceph-scale route's per-signal routes name them
    (the validator wants every registered signal in one). amtool then checks the tree
    around them: the pager and the ticket before the team, by severity."""
    out = {}
    for route in yaml.safe_load(ALERTMANAGER_CONFIG.read_text())["route"]["routes"]:
        for sub in route.get("routes", []):
            for matcher in sub.get("matchers", []):
                m = re.fullmatch(r'signal\s*=~?\s*"([^"]+)"', matcher)
                if m:
                    out.update(dict.fromkeys(m.group(1).split("|"), sub["receiver"]))
    return out


def test_every_alerting_signal_has_a_team():
    assert set(teams()) == set(validate.SIGNALS)


@pytest.mark.parametrize("alertname", sorted(alert_rules()))
def test_every_alert_reaches_its_receivers(alertname):
    """critical pages and reaches the team; warning reaches the team; info makes a ticket."""
    labels = alert_rules()[alertname]["labels"]
    team = teams()[labels["signal"]]
    expected = {
        "critical": ["ceph-scale-pager", team],
        "warning": [team],
        "info": ["ceph-scale-ticket"],
    }[labels["severity"]]
    assert routes({"alertname": alertname, "cluster": "c1", **labels}) == expected


def _seconds(duration: str) -> float:
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}
    parts = re.findall(r"(\d+)(ms|[smhdwy])", duration)
    assert "".join(n + u for n, u in parts) == duration, duration
    return sum(int(n) * units[u] for n, u in parts)


def _route_matches(route: dict, labels: dict[str, str]) -> bool:
    for matcher in route.get("matchers", []):
        # Every matcher in rules/alertmanager.yml has this form; one that had not fails the test.
        name, op, value = re.fullmatch(r'(\w+)\s*(=~|!~|!=|=)\s*"?(.*?)"?', matcher).groups()  # type: ignore[union-attr]
        have = labels.get(name, "")
        ok = {
            "=": have == value,
            "!=": have != value,
            "=~": re.fullmatch(value, have) is not None,
            "!~": re.fullmatch(value, have) is None,
        }[op]
        if not ok:
            return False
    return True


def repeat_intervals(labels: dict[str, str]) -> list[float]:
    """The repeat_interval, in seconds, of each route of rules/alertmanager/alertmanager.yml an alert ends in
    (Alertmanager's tree: children in order, the first match unless it continues; a route no
    child matches is the match; settings inherit). amtool's route test shows no intervals."""
    out: list[float] = []

    def walk(route: dict, inherited: str) -> None:
        interval = route.get("repeat_interval", inherited)
        matched = False
        for child in route.get("routes", []):
            if _route_matches(child, labels):
                matched = True
                walk(child, interval)
                if not child.get("continue"):
                    break
        if not matched:
            out.append(_seconds(interval))

    root = yaml.safe_load(ALERTMANAGER_CONFIG.read_text())["route"]
    walk(root, root["repeat_interval"])
    return out


@pytest.mark.parametrize("alertname", sorted(alert_rules()))
def test_reminders_repeat_as_often_as_the_severity_needs(alertname):
    """A page repeats within the hour; an info alert is a sizing fact that lasts for weeks
    (CephScaleBluefsDbShareBelowMin), so its ticket is reminded weekly, not reopened daily. The
    runway's ticket is the exception: one per cluster, its text names the limits short now, and
    Alertmanager sends nothing when only the text changes, so it is sent again each day."""
    labels = {"alertname": alertname, "cluster": "c1", **alert_rules()[alertname]["labels"]}
    intervals = repeat_intervals(labels)
    assert len(intervals) == len(routes(labels)), intervals  # one per receiver, as amtool routes it
    severity = labels["severity"]
    if alertname == "CephScaleRunwayShort":
        assert min(intervals) == 86400, intervals
    elif severity == "info":
        assert min(intervals) >= 7 * 86400, intervals
    elif severity == "critical":
        assert min(intervals) <= 3600, intervals
    else:
        assert 3600 <= min(intervals) <= 86400, intervals


# Inhibition, on a real Alertmanager -----------------------------------------


@pytest.fixture(scope="module")
def alertmanager(tmp_path_factory):
    tool("prometheus-alertmanager")
    sys.path.insert(0, str(REPO))
    from demo.monitoring import Alertmanager

    am = Alertmanager(tmp_path_factory.mktemp("am"), ALERTMANAGER_CONFIG)
    try:
        yield am.start()
    finally:
        am.stop()


def post_alerts(am, alerts: list[dict]) -> None:
    now = datetime.now(timezone.utc)
    body = [
        {
            "labels": a,
            "startsAt": now.isoformat(),
            "endsAt": (now + timedelta(hours=1)).isoformat(),
        }
        for a in alerts
    ]
    req = urllib.request.Request(
        f"{am.url}/api/v2/alerts", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200


def with_rule_labels(alertname: str, **labels: str) -> dict:
    rule_labels = alert_rules()[alertname]["labels"]
    return {"alertname": alertname, **rule_labels, **labels}


def inhibited(am, expected: dict[tuple, bool], timeout: float = 15.0) -> dict[tuple, bool | None]:
    """Alertmanager's view {(alertname, cluster, ceph_daemon or pool_id): inhibited}, once it matches `expected`."""
    end = time.monotonic() + timeout
    while True:
        with urllib.request.urlopen(f"{am.url}/api/v2/alerts", timeout=10) as r:
            got = {
                (
                    a["labels"]["alertname"],
                    a["labels"].get("cluster"),
                    a["labels"].get("ceph_daemon") or a["labels"].get("pool_id"),
                ): bool(a["status"]["inhibitedBy"])
                for a in json.loads(r.read())
            }
        view = {k: got.get(k) for k in expected}
        if view == expected or time.monotonic() > end:
            return view
        time.sleep(0.3)


def test_inhibition_by_twins_and_by_a_silent_exporter(alertmanager):
    post_alerts(
        alertmanager,
        [
            # critical twin inhibits the warning of the same cluster only
            with_rule_labels("CephScaleFillPastCritical", cluster="c1"),
            with_rule_labels("CephScaleFillPastTarget", cluster="c1"),
            with_rule_labels("CephScaleFillPastTarget", cluster="c2"),
            # the fullest OSD, per cluster: only the same cluster
            with_rule_labels("CephScaleOsdFullestPastBackfillfull", cluster="c7"),
            with_rule_labels("CephScaleOsdFullestPastTarget", cluster="c7"),
            with_rule_labels("CephScaleOsdFullestPastTarget", cluster="c4"),
            # past the fill target, the cluster's per-pool and fullest-OSD past-target alerts add
            # nothing; a fullest OSD past backfillfull pages, and is the fill's page: the cluster's
            # fill alerts of its cluster add nothing either
            with_rule_labels("CephScaleOsdFullestPastTarget", cluster="c2"),
            with_rule_labels("CephScalePoolPastFillTarget", cluster="c2", pool_id="4", name="meta"),
            with_rule_labels("CephScaleFillPastTarget", cluster="c9"),
            with_rule_labels("CephScaleOsdFullestPastBackfillfull", cluster="c9"),
            with_rule_labels("CephScalePoolPastFillTarget", cluster="c9", pool_id="4", name="meta"),
            # past the critical line, the cluster's per-pool alerts add nothing; the fullest OSD past
            # backfillfull is not held back by it (the critical waits for it, in the rules): held
            # back, it paged before the critical and again after it
            with_rule_labels("CephScalePoolPastFillTarget", cluster="c1", pool_id="4", name="meta"),
            with_rule_labels("CephScaleOsdFullestPastBackfillfull", cluster="c1"),
            # a pool past the target silences its own prediction only
            with_rule_labels("CephScalePoolPastFillTarget", cluster="c8", pool_id="9", name="data"),
            with_rule_labels("CephScalePoolPredictedToCrossTarget", cluster="c8", pool_id="9", name="data"),
            with_rule_labels("CephScalePoolPredictedToCrossTarget", cluster="c8", pool_id="7", name="index"),
            # spreading spillover inhibits the per-OSD warnings of its cluster
            with_rule_labels("CephScaleBluefsSpilloverSpreading", cluster="c2"),
            with_rule_labels("CephScaleBluefsSpilloverStarted", cluster="c2", ceph_daemon="osd.1"),
            # a silent exporter inhibits every signal alert of its cluster, not of others
            with_rule_labels("CephScaleExporterDataMissing", cluster="c3"),
            with_rule_labels("CephScaleRgwReshardStorm", cluster="c3"),
            with_rule_labels("CephScaleBluefsSpilloverStarted", cluster="c3", ceph_daemon="osd.0"),
            with_rule_labels("CephScaleSourceFailing", cluster="c3", source="pgs", instance="s:9928"),
            with_rule_labels("CephScaleRgwReshardStorm", cluster="c4"),
            # a frozen derivation: its cluster's signal alerts and its own stale sources
            with_rule_labels("CephScaleDerivationFrozen", cluster="c5", instance="s5:9928"),
            with_rule_labels("CephScaleFillPastTarget", cluster="c5"),
            with_rule_labels("CephScaleSourceStale", cluster="c5", source="perf", instance="s5:9928"),
            with_rule_labels("CephScaleSourceStale", cluster="c6", source="perf", instance="s6:9928"),
            # a cluster that left discovery: its blind signal and source alerts, not a target that
            # is still discovered and down, nor another cluster's
            with_rule_labels("CephScaleClusterLeftFleet", cluster="c10"),
            with_rule_labels("CephScaleBluefsSpilloverStarted", cluster="c10", ceph_daemon="osd.2"),
            with_rule_labels("CephScaleSourceStale", cluster="c10", source="pgs", instance="s10:9928"),
            with_rule_labels("CephScaleExporterTargetDown", cluster="c10", instance="s10b:9928"),
            with_rule_labels("CephScaleBluefsSpilloverStarted", cluster="c11", ceph_daemon="osd.2"),
        ],
    )
    expected = {
        ("CephScaleFillPastCritical", "c1", None): False,
        ("CephScaleFillPastTarget", "c1", None): True,
        ("CephScaleFillPastTarget", "c2", None): False,
        ("CephScaleOsdFullestPastBackfillfull", "c7", None): False,
        ("CephScaleOsdFullestPastTarget", "c7", None): True,
        ("CephScaleOsdFullestPastTarget", "c4", None): False,
        ("CephScaleOsdFullestPastTarget", "c2", None): True,
        ("CephScalePoolPastFillTarget", "c2", "4"): True,
        ("CephScaleFillPastTarget", "c9", None): True,
        ("CephScaleOsdFullestPastBackfillfull", "c9", None): False,
        ("CephScalePoolPastFillTarget", "c9", "4"): True,
        ("CephScalePoolPastFillTarget", "c1", "4"): True,
        ("CephScaleOsdFullestPastBackfillfull", "c1", None): False,
        ("CephScalePoolPastFillTarget", "c8", "9"): False,
        ("CephScalePoolPredictedToCrossTarget", "c8", "9"): True,
        ("CephScalePoolPredictedToCrossTarget", "c8", "7"): False,
        ("CephScaleBluefsSpilloverSpreading", "c2", None): False,
        ("CephScaleBluefsSpilloverStarted", "c2", "osd.1"): True,
        ("CephScaleExporterDataMissing", "c3", None): False,
        ("CephScaleRgwReshardStorm", "c3", None): True,
        ("CephScaleBluefsSpilloverStarted", "c3", "osd.0"): True,
        ("CephScaleSourceFailing", "c3", None): True,
        ("CephScaleRgwReshardStorm", "c4", None): False,
        ("CephScaleDerivationFrozen", "c5", None): False,
        ("CephScaleFillPastTarget", "c5", None): True,
        ("CephScaleSourceStale", "c5", None): True,
        ("CephScaleSourceStale", "c6", None): False,
        ("CephScaleClusterLeftFleet", "c10", None): False,
        ("CephScaleBluefsSpilloverStarted", "c10", "osd.2"): True,
        ("CephScaleSourceStale", "c10", None): True,
        ("CephScaleExporterTargetDown", "c10", None): False,
        ("CephScaleBluefsSpilloverStarted", "c11", "osd.2"): False,
    }
    assert inhibited(alertmanager, expected) == expected


def test_a_plunge_inhibits_only_the_latency_symptom_so_the_causes_team_hears(alertmanager):
    """A plunge is routed to the RGW team; its cause's own alert goes to the team that owns the cause
    and must not be inhibited by it (an inhibited alert still inhibits: the OSDs-down warning holds
    back ceph-mixin's CephOSDDown, so with both suppressed the storage team heard nothing). The
    plunges are posted with a `cause` label too: whatever a plunge carries, it hides no cause."""
    plunge = "CephScaleS3ThroughputPlunge"
    post_alerts(
        alertmanager,
        [
            with_rule_labels(plunge, cluster="p1", cause="deep_scrub"),
            with_rule_labels("CephScaleS3SlowerWhileOpsFall", cluster="p1", op="put"),
            with_rule_labels("CephScaleDeepScrubStorm", cluster="p1"),
            with_rule_labels(plunge, cluster="p2", cause="osds_down"),
            with_rule_labels("CephScaleOsdsDownExpectedDrop", cluster="p2"),
            {"alertname": "CephOSDDown", "severity": "warning", "type": "ceph_default", "cluster": "p2"},
            with_rule_labels(plunge, cluster="p3", cause="reshard"),
            with_rule_labels("CephScaleRgwReshardStorm", cluster="p3"),
            with_rule_labels("CephScaleS3SlowerWhileOpsFall", cluster="p5", op="put"),
        ],
    )
    expected = {
        (plunge, "p1", None): False,
        ("CephScaleS3SlowerWhileOpsFall", "p1", None): True,
        ("CephScaleDeepScrubStorm", "p1", None): False,
        (plunge, "p2", None): False,
        ("CephScaleOsdsDownExpectedDrop", "p2", None): False,
        ("CephOSDDown", "p2", None): True,
        ("CephScaleRgwReshardStorm", "p3", None): False,
        ("CephScaleS3SlowerWhileOpsFall", "p5", None): False,
    }
    assert inhibited(alertmanager, expected) == expected
    # The storage team hears of the OSDs that caused p2's plunge, and the RGW team of the plunge.
    heard = {
        receiver
        for (name, cluster, _), held in expected.items()
        if cluster == "p2" and not held
        for receiver in routes({**alert_rules()[name]["labels"], "alertname": name, "cluster": cluster})
    }
    assert {"ceph-scale-storage", "ceph-scale-rgw"} <= heard, heard


# The rules on the exporter's own output --------------------------------------

# Over an hour: rates and fitted forecasts need an hour of samples.
STUDY_MINUTES = 64


SIDECAR_TARGET = {"job": "ceph-scale", "instance": "sidecar:9928"}
MGR_TARGET = {"job": "ceph-mgr-scale", "instance": "mgr-x:9284"}


@functools.cache
def study_exposition() -> tuple[tuple[str, tuple, tuple], ...]:
    """The exporter's exposition for the study-scale snapshot, one a minute:
    (sample name, sorted labels, value per minute or None)."""
    sys.path.insert(0, str(REPO))
    from ceph_scale.core.config import Thresholds
    from ceph_scale.core.derive import DerivationState, derive
    from ceph_scale.core.exposition import to_client_metrics
    from tests.unit.study_snapshot import study_snapshot

    th = Thresholds()
    state = DerivationState(th)
    values: dict[tuple, dict[int, float]] = {}
    for step in range(STUDY_MINUTES):
        families = derive(study_snapshot(1000.0 + 60 * step, grow=step), state, th, cluster="study")
        for metric in to_client_metrics(families):
            for sample in metric.samples:
                key = (sample.name, tuple(sorted(sample.labels.items())))
                values.setdefault(key, {})[step] = sample.value
    return tuple(
        (name, labels, tuple(by_step.get(i) for i in range(STUDY_MINUTES)))
        for (name, labels), by_step in sorted(values.items())
    )


def study_input_series(cluster: str = "study", targets: tuple[dict, ...] = (SIDECAR_TARGET,)) -> list[dict]:
    """promtool input series of that exposition, as scraped from each target (producer)."""

    def fmt(v: float | None) -> str:
        if v is None:
            return "_"
        return "NaN" if v != v else {float("inf"): "Inf", float("-inf"): "-Inf"}.get(v, repr(float(v)))

    series = []
    for target in targets:
        where = ",".join(f'{k}="{v}"' for k, v in target.items())
        series.append({"series": f"up{{{where}}}", "values": f"1x{STUDY_MINUTES - 1}"})
        producer = "mgr" if target is MGR_TARGET else "sidecar"
        for name, labels, by_step in study_exposition():
            own = dict(labels, cluster=cluster)
            if "producer" in own:
                own["producer"] = producer
            selector = ",".join([f'{k}="{v}"' for k, v in sorted(own.items())] + [where])
            series.append({"series": f"{name}{{{selector}}}", "values": " ".join(fmt(v) for v in by_step)})
    return series


def promtool_study_test(tmp_path: Path, input_series: list[dict], checks: list[dict]) -> None:
    header = yaml.safe_load((SIGNAL_FOLDERS / "fill" / "rules_test.yml").read_text())
    test = {
        "rule_files": [str(p) for p in RULE_FILES],
        "evaluation_interval": "1m",
        "group_eval_order": header["group_eval_order"],
        "tests": [{"name": "study", "interval": "1m", "input_series": input_series, "promql_expr_test": checks}],
    }
    path = tmp_path / "study.yml"
    path.write_text(yaml.dump(test, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper)))
    r = run(tool("promtool"), "test", "rules", str(path))
    assert r.returncode == 0, (r.stdout + r.stderr)[-5000:]


def recording_rules() -> list[str]:
    return [
        rule["record"]
        for path in RULE_FILES
        for group in yaml.safe_load(path.read_text())["groups"]
        for rule in group["rules"]
        if "record" in rule
    ]


def test_rules_on_the_exporters_own_output(tmp_path):
    """Every recording rule yields data with `cluster` from real exposition (the study-scale snapshot),
    no alert lacks `cluster`, and half the OSDs spilling steadily is "started", not "spreading"."""
    at = f"{STUDY_MINUTES - 1}m"
    checks = [
        {
            "expr": f"group by (cluster) ({r})",
            "eval_time": at,
            "exp_samples": [{"labels": '{cluster="study"}', "value": 1}],
        }
        for r in recording_rules()
    ]
    checks.append({"expr": 'count(ALERTS{cluster=""})', "eval_time": at, "exp_samples": []})
    # Half the OSDs spilling, steadily: the warning, not the page.
    checks.append(
        {
            "expr": 'group by (cluster, alertstate) (ALERTS{alertname=~"CephScaleBluefsSpillover.*"})',
            "eval_time": at,
            "exp_samples": [{"labels": '{alertstate="firing",cluster="study"}', "value": 1}],
        }
    )
    checks.append(
        {
            "expr": 'count(ALERTS{alertname="CephScaleBluefsSpilloverSpreading"})',
            "eval_time": at,
            "exp_samples": [],
        }
    )
    promtool_study_test(tmp_path, study_input_series(), checks)


def test_one_or_both_producers_give_the_same_rules_and_alerts(tmp_path):
    """Cluster "one" is scraped from the sidecar only, cluster "two" from the sidecar and the
    module (same exposition, other job and instance): every recording rule has the same series
    and values for both, and the same alerts fire, once each. The records per target (level
    `..._job_instance`: the exporter's presence, the counters' 5-minute records) have one series
    per target: twice as many for "two"."""
    at = f"{STUDY_MINUTES - 1}m"
    checks = []
    for r in recording_rules():
        if r.split(":")[0].endswith("_job_instance"):
            checks.append(
                {
                    "expr": f'count({r}{{cluster="two"}}) - 2 * count({r}{{cluster="one"}})',
                    "eval_time": at,
                    "exp_samples": [{"labels": "{}", "value": 0}],
                }
            )
            continue
        checks.append(
            {
                "expr": f'count({r}{{cluster="one"}}) - count({r}{{cluster="two"}})',
                "eval_time": at,
                "exp_samples": [{"labels": "{}", "value": 0}],
            }
        )
        checks.append(
            {
                "expr": f'abs({r}{{cluster="one"}} - ignoring(cluster) {r}{{cluster="two"}}) > 1e-9',
                "eval_time": at,
                "exp_samples": [],
            }
        )
    for state in ("pending", "firing"):
        # The signals' alerts once per cluster; the exporter's own health once per producer.
        by_alert = f'count by (alertname) (ALERTS{{cluster="%s",alertstate="{state}",signal!="exporter"}})'
        own = f'count by (alertname) (ALERTS{{cluster="%s",alertstate="{state}",signal="exporter"}})'
        for expr in (
            f"{by_alert % 'one'} != {by_alert % 'two'}",
            f"{by_alert % 'two'} unless {by_alert % 'one'}",
            f"{by_alert % 'one'} unless {by_alert % 'two'}",
            f"2 * {own % 'one'} != {own % 'two'}",
            f"{own % 'two'} unless {own % 'one'}",
        ):
            checks.append({"expr": expr, "eval_time": at, "exp_samples": []})
    # Something to compare: alerts fire on the study state.
    checks.append(
        {
            "expr": 'count(ALERTS{cluster="two",alertstate="firing"}) > bool 0',
            "eval_time": at,
            "exp_samples": [{"labels": "{}", "value": 1}],
        }
    )
    series = study_input_series("one") + study_input_series("two", (SIDECAR_TARGET, MGR_TARGET))
    promtool_study_test(tmp_path, series, checks)


# The validator ----------------------------------------------------------------


def test_validator_passes_on_the_repository():
    assert validate.validate(RULES) == []


def test_validator_runs_standalone():
    r = run(sys.executable, str(RULES / "validate.py"))
    assert r.returncode == 0, r.stdout + r.stderr
    alerts = sum(1 for g in yaml.safe_load((RULES / "alerts.yml").read_text())["groups"] for r in g["rules"])
    assert alerts >= 28 and r.stdout.startswith(f"ok: {alerts} alerts"), r.stdout


@pytest.fixture
def broken_copy(tmp_path):
    """A copy of rules/, ceph_scale/ (the registry the validator reads, and the signal folders
    with their rules and promtool tests) and docs/metrics.md to break."""
    shutil.copytree(RULES, tmp_path / "rules", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "ceph_scale", tmp_path / "ceph_scale", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "docs").mkdir()
    for doc in ("metrics.md", "mgr-module.md", "configuration.md"):  # they hold assembled tables
        shutil.copy(REPO / "docs" / doc, tmp_path / "docs" / doc)
    (tmp_path / "mgr_module").mkdir()
    shutil.copy(REPO / "mgr_module" / "checks.md", tmp_path / "mgr_module" / "checks.md")
    return tmp_path


def edit_yaml(path: Path, change) -> None:
    data = yaml.load(path.read_text(), Loader=validate.YAML_LOADER)
    change(data)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    path.write_text(yaml.dump(data, Dumper=dumper, sort_keys=False))


def edit_group(root: Path, name: str, change) -> None:
    def apply(data):
        for group in data["groups"]:
            if group["name"] == name:
                change(group)

    edit_yaml(root / "rules" / "alerts.yml", apply)


def edit_alert(root: Path, name: str, change) -> None:
    def apply(data):
        for group in data["groups"]:
            for rule in group["rules"]:
                if rule.get("alert") == name:
                    change(rule)

    edit_yaml(root / "rules" / "alerts.yml", apply)


def drop_test_cases(root: Path, name: str, firing: bool) -> None:
    for path in validate.promtool_test_files(root / "rules"):

        def apply(data):
            for test in data["tests"]:
                test["alert_rule_test"] = [
                    c
                    for c in test.get("alert_rule_test") or []
                    if not (c["alertname"] == name and bool(c.get("exp_alerts")) == firing)
                ]

        edit_yaml(path, apply)


def edit_text(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


BREAKAGES = {
    "severity label missing": (
        lambda r: edit_alert(r, "CephScaleFillPastTarget", lambda a: a["labels"].pop("severity")),
        "CephScaleFillPastTarget: label severity missing",
    ),
    "severity not a known level": (
        lambda r: edit_alert(r, "CephScaleFillPastTarget", lambda a: a["labels"].update(severity="page")),
        "CephScaleFillPastTarget: label severity missing or not one of",
    ),
    "signal label missing": (
        lambda r: edit_alert(r, "CephScaleRgwReshardStorm", lambda a: a["labels"].pop("signal")),
        "CephScaleRgwReshardStorm: label signal missing",
    ),
    "summary missing": (
        lambda r: edit_alert(r, "CephScaleDeepScrubStorm", lambda a: a["annotations"].pop("summary")),
        "CephScaleDeepScrubStorm: annotation summary missing",
    ),
    "description missing": (
        lambda r: edit_alert(r, "CephScaleDeepScrubStorm", lambda a: a["annotations"].pop("description")),
        "CephScaleDeepScrubStorm: annotation description missing",
    ),
    "runbook_url missing": (
        lambda r: edit_alert(r, "CephScaleSourceStale", lambda a: a["annotations"].pop("runbook_url")),
        "CephScaleSourceStale: annotation runbook_url missing",
    ),
    "runbook_url anchor is not the alert": (
        lambda r: edit_alert(
            r,
            "CephScaleSourceStale",
            lambda a: a["annotations"].update(runbook_url=validate.runbook_base(RULES) + "rules/runbooks.md#stale"),
        ),
        "CephScaleSourceStale: runbook_url anchor #stale is not #cephscalesourcestale",
    ),
    "runbook section missing": (
        lambda r: edit_text(r / "rules" / "runbooks.md", "### CephScaleHddOsdHotspot\n", "### Hot OSDs\n"),
        "CephScaleHddOsdHotspot: rules/runbooks.md has no section #cephscalehddosdhotspot",
    ),
    "runbook section only a comment in a code block": (
        lambda r: edit_text(
            r / "rules" / "runbooks.md", "### CephScaleHddOsdHotspot\n", "```sh\n# CephScaleHddOsdHotspot\n```\n"
        ),
        "CephScaleHddOsdHotspot: rules/runbooks.md has no section #cephscalehddosdhotspot",
    ),
    "runbook_url with another base": (
        lambda r: edit_alert(
            r,
            "CephScaleSourceStale",
            lambda a: a["annotations"].update(
                runbook_url="https://example.org/fork/blob/main/rules/runbooks.md#cephscalesourcestale"
            ),
        ),
        "CephScaleSourceStale: runbook_url base https://example.org/fork/blob/main/ is not",
    ),
    "runbook_url outside runbooks.md": (
        lambda r: edit_alert(
            r,
            "CephScaleSourceStale",
            lambda a: a["annotations"].update(runbook_url=validate.runbook_base(RULES) + "README.md#alerts"),
        ),
        "CephScaleSourceStale: runbook_url does not point at rules/runbooks.md#<anchor>",
    ),
    "description without a live value": (
        lambda r: edit_alert(
            r,
            "CephScaleExporterTargetDown",
            lambda a: a["annotations"].update(
                description="Prometheus cannot scrape the ceph-scale sidecar {{ $labels.instance }} (job "
                "{{ $labels.job }}), which served metrics for cluster {{ $labels.cluster }} within the last 7 days."
            ),
        ),
        "CephScaleExporterTargetDown: description shows no live value ($value or a query template)",
    ),
    "a threshold queried alone": (
        lambda r: edit_alert(
            r,
            "CephScaleFillPastTarget",
            lambda a: a["annotations"].update(
                description=a["annotations"]["description"]
                + ' Target: {{ with printf "cluster_option:ceph_scale_config:max'
                "{cluster='%s',option='fill_target_ratio'}\" $labels.cluster | query }}"
                "{{ . | first | value }}{{ end }}."
            ),
        ),
        "CephScaleFillPastTarget: annotation description queries a threshold alone (fill_target_ratio)",
    ),
    "a query per item of a range": (
        lambda r: edit_alert(
            r,
            "CephScaleBluefsSpilloverStarted",
            lambda a: a["annotations"].update(
                description=a["annotations"]["description"].replace(
                    "{{ $s.Labels.ceph_daemon }}",
                    "{{ $s.Labels.ceph_daemon }}{{ with printf \"max(ceph_scale_bluefs_db_size_bytes{cluster='%s'})\""
                    " $labels.cluster | query }} of {{ . | first | value }}{{ end }}",
                )
            ),
        ),
        "CephScaleBluefsSpilloverStarted: annotation description runs a query inside a range, once per item",
    ),
    "a summary past its query budget": (
        lambda r: edit_alert(
            r,
            "CephScaleFillPastTarget",
            lambda a: a["annotations"].update(
                summary=a["annotations"]["summary"]
                + "{{ with printf \"cluster:ceph_scale_cluster_used_ratio:max{cluster='%s'}\" $labels.cluster"
                " | query }} ({{ . | first | value }}){{ end }}"
                "{{ with printf \"max(ceph_scale_hdd_osds{cluster='%s'})\" $labels.cluster | query }}"
                " on {{ . | first | value }} HDDs{{ end }}"
            ),
        ),
        "CephScaleFillPastTarget: annotation summary runs 2 queries, more than its 1",
    ),
    "no test expects it to fire": (
        lambda r: drop_test_cases(r, "CephScaleRgwReshardQueueStuck", firing=True),
        "CephScaleRgwReshardQueueStuck: no promtool test case expects it to fire",
    ),
    "no test expects it not to fire": (
        lambda r: drop_test_cases(r, "CephScaleRgwReshardQueueStuck", firing=False),
        "CephScaleRgwReshardQueueStuck: no promtool test case expects it not to fire",
    ),
    "keep_firing_for missing": (
        lambda r: edit_alert(r, "CephScaleOsdsDownLargeDrop", lambda a: a.pop("keep_firing_for")),
        "CephScaleOsdsDownLargeDrop: no `keep_firing_for`",
    ),
    "keep_firing_for too short": (
        lambda r: edit_alert(r, "CephScaleOsdsDownLargeDrop", lambda a: a.update(keep_firing_for="30s")),
        "CephScaleOsdsDownLargeDrop: keep_firing_for 30s is not a duration of 120s or more",
    ),
    "keep_firing_for unlike the others": (
        lambda r: edit_alert(r, "CephScaleOsdsDownLargeDrop", lambda a: a.update(keep_firing_for="10m")),
        "CephScaleOsdsDownLargeDrop: keep_firing_for 10m is not 5m",
    ),
    "for missing": (
        lambda r: edit_alert(r, "CephScaleOsdsDownLargeDrop", lambda a: a.pop("for")),
        "CephScaleOsdsDownLargeDrop: no `for` duration",
    ),
    "metric not in docs/metrics.md": (
        lambda r: edit_alert(
            r, "CephScaleOsdsDownLargeDrop", lambda a: a.update(expr="max by (cluster) (ceph_scale_osds_failed) > 0")
        ),
        "CephScaleOsdsDownLargeDrop: reads ceph_scale_osds_failed, which is neither in docs/metrics.md",
    ),
    "metric dropped from docs/metrics.md": (
        lambda r: edit_text(r / "docs" / "metrics.md", "| `ceph_scale_osds_down_ratio` |", "| osds_down_ratio |"),
        "CephScaleOsdsDownExpectedDrop: reads ceph_scale_osds_down_ratio",
    ),
    "annotation queries an unknown metric": (
        lambda r: edit_alert(
            r,
            "CephScaleOsdsDownLargeDrop",
            lambda a: a["annotations"].update(
                description=a["annotations"]["description"].replace(
                    "ceph_scale_osds_down_ratio", "ceph_scale_osds_gone_ratio"
                )
            ),
        ),
        "CephScaleOsdsDownLargeDrop: annotation description queries unknown metric ceph_scale_osds_gone_ratio",
    ),
    "aggregation drops cluster": (
        lambda r: edit_alert(
            r,
            "CephScaleRgwBucketsOverShardLimit",
            lambda a: a.update(expr="max by (instance) (ceph_scale_rgw_buckets_over_shard_limit) > 0"),
        ),
        "CephScaleRgwBucketsOverShardLimit: aggregation `max by (instance)` drops the cluster label",
    ),
    "aggregation without grouping": (
        lambda r: edit_alert(
            r,
            "CephScaleRgwBucketsOverShardLimit",
            lambda a: a.update(expr="max(ceph_scale_rgw_buckets_over_shard_limit) > 0"),
        ),
        "CephScaleRgwBucketsOverShardLimit: aggregation `max` drops the cluster label",
    ),
    "recording rule drops cluster": (
        lambda r: edit_text(
            r / "rules" / "recording.yml",
            "expr: max by (cluster) (last_over_time(ceph_scale_hdd_osds[5m]))",
            "expr: sum without (cluster, instance) (last_over_time(ceph_scale_hdd_osds[5m]))",
        ),
        "cluster:ceph_scale_hdd_osds:max: aggregation `sum without (cluster, instance)` drops the cluster label",
    ),
    "firing test without the cluster label": (
        lambda r: edit_text(
            r / "ceph_scale" / "core" / "signals" / "degraded" / "rules_test.yml",
            "- exp_labels: {severity: critical, signal: degraded, cluster: c2}",
            "- exp_labels: {severity: critical, signal: degraded}",
        ),
        "CephScaleOsdsDownLargeDrop is expected to fire without a cluster label",
    ),
    "recording rule without a test": (
        lambda r: edit_text(
            r / "rules" / "recording.yml",
            "      - record: cluster:ceph_scale_hdd_osds:max\n",
            "      - record: cluster:ceph_scale_rgw_instances:max\n"
            "        expr: max by (cluster) (ceph_scale_rgw_instances)\n"
            "      - record: cluster:ceph_scale_hdd_osds:max\n",
        ),
        "cluster:ceph_scale_rgw_instances:max: no promql_expr_test checks this recording rule",
    ),
    "recording rule badly named": (
        lambda r: edit_text(
            r / "rules" / "recording.yml",
            "      - record: cluster:ceph_scale_hdd_osds:max\n",
            "      - record: hdd_osds\n        expr: max by (cluster) (ceph_scale_hdd_osds)\n"
            "      - record: cluster:ceph_scale_hdd_osds:max\n",
        ),
        "hdd_osds: recording rule name is not cluster...:metric:operations",
    ),
    "alert condition cut by one failed scrape": (
        lambda r: edit_alert(
            r,
            "CephScaleBluefsOversized",
            lambda a: a.update(expr="max by (cluster) (ceph_scale_bluefs_oversized_osds) > 0"),
        ),
        "CephScaleBluefsOversized: `ceph_scale_bluefs_oversized_osds` is an instant selector: one failed scrape",
    ),
    "alert condition through a window of one scrape": (
        lambda r: edit_alert(
            r,
            "CephScaleBluefsOversized",
            lambda a: a.update(expr="max by (cluster) (last_over_time(ceph_scale_bluefs_oversized_osds[1m])) > 0"),
        ),
        "CephScaleBluefsOversized: `ceph_scale_bluefs_oversized_osds[1m]` is a window shorter than 5m",
    ),
    "recording rule cut by one failed scrape": (
        lambda r: edit_text(
            r / "rules" / "recording.yml",
            "expr: max by (cluster) (last_over_time(ceph_scale_hdd_osds[5m]))",
            "expr: max by (cluster) (ceph_scale_hdd_osds)",
        ),
        "cluster:ceph_scale_hdd_osds:max: `ceph_scale_hdd_osds` is an instant selector: one failed scrape empties it",
    ),
    "one sample an hour ago": (
        lambda r: edit_text(
            r / "rules" / "recording.yml",
            "(last_over_time(ceph_scale_cluster_used_ratio[5m] offset 1h))",
            "(ceph_scale_cluster_used_ratio offset 1h)",
        ),
        "cluster:ceph_scale_cluster_used_ratio:deriv6h: `ceph_scale_cluster_used_ratio offset 1h` is an instant",
    ),
    "group order puts alerts first": (
        lambda r: edit_yaml(
            r / "ceph_scale" / "core" / "signals" / "load" / "rules_test.yml",
            lambda d: d.update(group_eval_order=list(reversed(d["group_eval_order"]))),
        ),
        "ceph_scale/core/signals/load/rules_test.yml: group_eval_order puts a recording group after an alert group",
    ),
    "a ticket evaluated every round": (
        lambda r: edit_group(r, "ceph-scale-runway.alerts", lambda g: g.pop("interval")),
        "CephScaleRunwayShort: a ticket in a group evaluated every round, not 1m",
    ),
    "a warning evaluated every minute": (
        lambda r: edit_group(r, "ceph-scale-fill.alerts", lambda g: g.update(interval="1m")),
        "CephScaleFillPredictedToCrossTarget: in a group evaluated every 1m, not every round (it is not a ticket)",
    ),
    "a ticket that outlives what silences it": (
        lambda r: edit_alert(r, "CephScaleFillAboveWarnLine", lambda a: a.update(keep_firing_for="5m")),
        "CephScaleFillAboveWarnLine: a ticket keeps firing for 5m, not 240s (5m less 1m)",
    ),
    "a ticket that inhibits, evaluated every minute": (
        lambda r: edit_text(
            r / "rules" / "alertmanager" / "alertmanager.yml",
            'source_matchers: [alertname="CephScaleFillPastTarget"]',
            'source_matchers: [alertname=~"CephScaleFillPastTarget|CephScaleFillAboveWarnLine"]',
        ),
        "CephScaleFillAboveWarnLine: in a group evaluated every 1m, not every round (it inhibits other alerts)",
    ),
    "alertmanager refers to an unknown alert": (
        lambda r: edit_text(
            r / "rules" / "alertmanager" / "alertmanager.yml",
            'target_matchers: [alertname="CephScaleOsdsDownExpectedDrop"]',
            'target_matchers: [alertname="CephScaleOsdsDownDrop"]',
        ),
        "alertmanager.yml: refers to unknown alert CephScaleOsdsDownDrop",
    ),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_validator_catches(broken_copy, breakage):
    assert validate.validate(broken_copy / "rules") == []  # the intact copy is clean
    change, message = BREAKAGES[breakage]
    change(broken_copy)
    problems = validate.validate(broken_copy / "rules")
    assert any(message in p for p in problems), problems


def test_only_the_absent_alert_shows_no_live_value():
    """Every other description carries $value or a query; absent() has no value and no cluster to query."""
    assert validate.NO_LIVE_VALUE == {"CephScaleExporterAbsent"}
    assert "CephScaleExporterAbsent" in alert_rules()


def test_set_runbook_base_rewrites_rules_and_tests(broken_copy):
    """A fork changes one value with one command; the rules, the validator and the promtool tests
    agree, and the shipped files still equal what the rewritten signal folders assemble."""
    rules = broken_copy / "rules"
    shutil.copytree(REPO / CHART_RULES_DIR, broken_copy / CHART_RULES_DIR)
    old, new = validate.runbook_base(RULES), "https://git.example.internal/storage/ceph-scale-signals/-/blob/main/"
    r = run(sys.executable, str(rules / "validate.py"), "--set-runbook-base", new)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"runbooks at {new}" in r.stdout
    assert validate.runbook_base(rules) == new
    folder_rules = sorted((broken_copy / SIGNALS_DIR).glob("*/rules.yml"))
    chart_rules = sorted((broken_copy / CHART_RULES_DIR).glob("*.yml"))
    assert len(folder_rules) >= 10 and len(chart_rules) == 2
    for path in validate.rule_files(rules) + validate.promtool_test_files(rules) + folder_rules + chart_rules:
        assert old not in path.read_text(), path
    assert assemble.differing(broken_copy) == []
    assert all(a["annotations"]["runbook_url"].startswith(new) for a in validate.rule_alerts(rules).values())
    r = run(tool("promtool"), "test", "rules", str(broken_copy / "ceph_scale/core/signals/exporter/rules_test.yml"))
    assert r.returncode == 0, r.stdout + r.stderr
    # and it refuses a base it could not append rules/runbooks.md to
    r = run(sys.executable, str(rules / "validate.py"), "--set-runbook-base", "git.example.internal/no-scheme")
    assert r.returncode == 2 and "ending in /" in r.stderr


def test_validator_cli_fails_on_a_broken_copy(broken_copy):
    edit_alert(broken_copy, "CephScaleFillPastTarget", lambda a: a["labels"].pop("signal"))
    r = run(sys.executable, str(broken_copy / "rules" / "validate.py"))
    assert r.returncode == 1
    assert "CephScaleFillPastTarget: label signal missing" in r.stdout


def test_runbooks_suggest_nothing_that_hurts_a_cluster_at_study_scale():
    """No command that reads every bucket index at 100,000 buckets (bucket stats of more than one
    bucket; the bucket limit check, which reads every bucket of an owner, and one owner may hold
    them all), and no `ceph osd reweight` offered where the upmap balancer runs (the two undo each
    other)."""
    text = (RULES / "runbooks.md").read_text()
    fenced = re.findall(r"```sh\n(.*?)```", text, re.S)
    commands = [line.split("#", 1)[0] for block in fenced for line in block.splitlines()]
    commands += [m.group(1) for m in re.finditer(r"(?<!unfiltered )`([^`]+)`", text)]
    assert any("radosgw-admin bucket stats --bucket=" in c for c in commands)
    for command in commands:
        assert not re.search(r"radosgw-admin bucket limit\b", command), command
        if re.search(r"radosgw-admin bucket stats\b", command):
            assert "--bucket=" in command and "--uid" not in command, command
    for m in re.finditer(r"ceph osd reweight(?!-by)", text):
        context = text[max(0, m.start() - 200) : m.end() + 200]
        assert "balancer" in context and ("off" in context or "Do not" in context), context


def test_every_recording_rule_is_used_by_an_alert_another_rule_or_a_board():
    rule_text = "".join(p.read_text() for p in RULE_FILES)
    boards = "".join(p.read_text() for p in (REPO / "dashboards" / "json").glob("*.json"))
    for path in RULE_FILES:
        for group in yaml.safe_load(path.read_text())["groups"]:
            for rule in group["rules"]:
                name = rule.get("record")
                if name:
                    uses = len(re.findall(re.escape(name) + r"(?![\w:])", rule_text)) - 1 + boards.count(name)
                    assert uses > 0, f"{name} is recorded for nothing"
