"""The monitoring mixin (mixin.libsonnet), built with the jsonnet package: with the defaults its
output is rules/ and dashboards/json/ themselves; its _config really changes the output, and the
changed rules still pass the promtool tests (the signal folders' and rules/tests/, those of long spans
only where they alone judge an alert) rewritten the same way."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import _jsonnet
import promql_parser
import pytest
import yaml

from rules.rule_set import promtool_test_files
from tests.deploy.source_tree import REPO

DEFAULT_BASE = "https://github.com/ceph-scale-signals/ceph-scale-signals/blob/main/"
OVERRIDES: dict[str, Any] = {
    "clusterLabel": "ceph_cluster",
    "exporterSelector": {"job": "ceph-scale|ceph-mgr"},
    "runbookBaseUrl": "https://git.example.internal/storage/ceph-scale-signals/-/blob/main/",
}


def build(config: dict | None = None) -> dict:
    snippet = f'local m = (import "mixin.libsonnet") + {{ _config+:: {json.dumps(config or {})} }};\n'
    snippet += "{rules: m.prometheusRules, alerts: m.prometheusAlerts, dashboards: m.grafanaDashboards}"
    return json.loads(_jsonnet.evaluate_snippet("build", snippet, jpathdir=[str(REPO)]))


@pytest.fixture(scope="module")
def default() -> dict:
    return build()


@pytest.fixture(scope="module")
def overridden() -> dict:
    return build(OVERRIDES)


def checkout_groups() -> dict[str, dict]:
    groups = {}
    for path in sorted((REPO / "rules").glob("*.yml")):
        for group in (yaml.safe_load(path.read_text()) or {}).get("groups", []):
            groups[group["name"]] = group
    return groups


def test_the_mixin_reads_every_rule_file_and_board():
    """jsonnet imports literal paths only: mixin/files.libsonnet lists them, and must list all."""
    text = (REPO / "mixin" / "files.libsonnet").read_text()
    imported = {
        str((REPO / "mixin" / p).resolve().relative_to(REPO)) for p in re.findall(r"import(?:str)? '([^']+)'", text)
    }
    rule_files = {
        f"rules/{p.name}" for p in (REPO / "rules").glob("*.yml") if "groups" in yaml.safe_load(p.read_text())
    }
    boards = {f"dashboards/json/{p.name}" for p in (REPO / "dashboards" / "json").glob("*.json")}
    assert imported == rule_files | boards, f"add to mixin/files.libsonnet: {sorted((rule_files | boards) - imported)}"


def test_with_the_defaults_the_output_is_rules_and_dashboards(default):
    recording, alerting = default["rules"]["groups"], default["alerts"]["groups"]
    assert all("record" in r for g in recording for r in g["rules"])
    assert all("alert" in r for g in alerting for r in g["rules"])
    assert {g["name"]: g for g in recording + alerting} == checkout_groups()
    assert len(recording + alerting) == len(checkout_groups())
    boards = {p.name: json.loads(p.read_text()) for p in (REPO / "dashboards" / "json").glob("*.json")}
    assert default["dashboards"] == boards


def rename(text: str) -> str:
    """The cluster label renamed in a PromQL selector or expression (not in recording-rule names)."""
    return re.sub(r"(?<![\w:$])cluster(?![\w:])", OVERRIDES["clusterLabel"], text)


def rewritten_case(case: dict, rule_file: Path) -> dict:
    """A promtool test of the rule set for the overridden mixin: inputs and expectations with the
    renamed label, the exporter's series from a job the selector matches; annotations as they were
    (the values shown do not change), but for the runbook base."""
    case = json.loads(json.dumps(case))
    case["rule_files"] = [str(rule_file)]
    for test in case["tests"]:
        for series in test.get("input_series", []):
            s = rename(series["series"])
            if re.match(r"(ceph_scale_\w+|up)\b", s) and "job=" not in s:
                s = s.replace("{", '{job="ceph-scale",', 1) if "{" in s else s + '{job="ceph-scale"}'
            series["series"] = s
        for expr_test in test.get("promql_expr_test", []):
            expr_test["expr"] = rename(expr_test["expr"])
            for sample in expr_test.get("exp_samples", []):
                sample["labels"] = rename(sample.get("labels", ""))
        for alert_test in test.get("alert_rule_test", []):
            for alert in alert_test.get("exp_alerts", []):
                labels = alert.get("exp_labels", {})
                alert["exp_labels"] = {rename(k): v for k, v in labels.items()}
                notes = alert.get("exp_annotations", {})
                if "runbook_url" in notes:
                    notes["runbook_url"] = notes["runbook_url"].replace(DEFAULT_BASE, OVERRIDES["runbookBaseUrl"])
    return case


# The promtool tests of long spans (days of `for:` and of long windows) run here only for an alert
# that no other promtool test covers: the others test time, which the overrides do not touch, and
# were 60 % of this test's time. Every selector and expression carries the overridden label and
# selector (test_the_overrides_reach_every_expression_and_board); every alert is judged here by
# at least one test, with the annotations' queries under the renamed label.
LONG_SPANS = ("long_spans.yml", "long_windows.yml")


def alerts_judged_in(case: dict) -> set[str]:
    return {a["alertname"] for test in case["tests"] for a in test.get("alert_rule_test", [])}


def test_the_overridden_rules_pass_the_promtool_tests(overridden, tmp_path):
    rule_file = tmp_path / "mixin-rules.yml"
    groups = overridden["rules"]["groups"] + overridden["alerts"]["groups"]
    rule_file.write_text(yaml.safe_dump({"groups": groups}, sort_keys=False))
    proc = subprocess.run(["promtool", "check", "rules", str(rule_file)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cases = {path: yaml.safe_load(path.read_text()) for path in promtool_test_files(REPO / "rules")}
    short = set().union(*(alerts_judged_in(case) for path, case in cases.items() if path.name not in LONG_SPANS))
    run = {path: case for path, case in cases.items() if path.name not in LONG_SPANS or alerts_judged_in(case) - short}
    alerts = {r["alert"] for g in overridden["alerts"]["groups"] for r in g["rules"]}
    assert alerts <= set().union(*map(alerts_judged_in, run.values())), "an alert no promtool test here judges"
    assert len(run) < len(cases)
    tests = []
    for path, case in run.items():
        out = tmp_path / "_".join(path.relative_to(REPO).parts)  # the folders' files share a name
        out.write_text(yaml.safe_dump(rewritten_case(case, rule_file), sort_keys=False))
        tests.append(str(out))
    proc = subprocess.run(["promtool", "test", "rules", *tests], capture_output=True, text=True)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-5000:]


def selectors(node) -> list:
    """Every vector selector of a parsed expression."""
    found = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, promql_parser.VectorSelector):
            found.append(n)
        elif isinstance(n, promql_parser.MatrixSelector):
            found.append(n.vector_selector)
        for attr in ("expr", "lhs", "rhs", "args", "param"):
            child = getattr(n, attr, None)
            if isinstance(child, list):
                stack.extend(child)
            elif child is not None and not isinstance(child, (str, int, float)):
                stack.append(child)
    return found


def grafana(expr: str) -> str:
    return expr.replace("$__rate_interval", "5m").replace("$__range", "1h").replace("$__interval", "1m")


def test_the_overrides_reach_every_expression_and_board(overridden):
    exprs = [r["expr"] for g in overridden["rules"]["groups"] + overridden["alerts"]["groups"] for r in g["rules"]]
    for board in overridden["dashboards"].values():
        exprs += [grafana(t["expr"]) for p in board["panels"] for t in p.get("targets", []) if t.get("expr")]
    own = 0
    for expr in exprs:
        for sel in selectors(promql_parser.parse(expr)):
            names = {m.name for m in sel.matchers.matchers}
            assert "cluster" not in names, expr
            if (sel.name or "").startswith("ceph_scale_") or sel.name == "up":
                own += 1
                assert "job" in names, (sel.name, expr)
        assert not re.search(r"(?:by|without|on|ignoring|group_left|group_right) \([^)]*\bcluster\b", expr), expr
    assert own > 100
    alerts = [r for g in overridden["alerts"]["groups"] for r in g["rules"]]
    for rule in alerts:
        text = json.dumps(rule["annotations"])
        assert "$labels.cluster " not in text and "{cluster=" not in text, rule["alert"]
        assert rule["annotations"]["runbook_url"].startswith(OVERRIDES["runbookBaseUrl"])
    assert {"ceph_cluster": "none"}.items() <= next(r for r in alerts if r["alert"] == "CephScaleExporterAbsent")[
        "labels"
    ].items()
    for board in overridden["dashboards"].values():
        variables = {v["name"]: v for v in board["templating"]["list"]}
        assert (
            variables["cluster"]["query"]
            == "label_values(ceph_scale_build_info{job=~'ceph-scale|ceph-mgr'}, ceph_cluster)"
        )
        assert variables["runbook_base"]["query"] == OVERRIDES["runbookBaseUrl"] + "rules/runbooks.md"
        legends = [t.get("legendFormat", "") for p in board["panels"] for t in p.get("targets", [])]
        assert not any("{{cluster}}" in legend for legend in legends)


RECORDED = "cluster_option:ceph_scale_config:max"


def test_a_threshold_override_moves_what_the_alerts_compare_with(tmp_path):
    out = build({"thresholds": {"fill_target_ratio": 0.5}})
    rule_file = tmp_path / "rules.yml"
    rule_file.write_text(yaml.safe_dump({"groups": out["rules"]["groups"] + out["alerts"]["groups"]}))
    case = {
        "rule_files": [str(rule_file)],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            "input_series": [
                {"series": 'ceph_scale_config{cluster="c1",option="fill_target_ratio"}', "values": "0.8x5"},
                {"series": 'ceph_scale_config{cluster="c1",option="fill_warn_ratio"}', "values": "0.7x5"},
                {"series": 'ceph_scale_config{cluster="c2",option="fill_warn_ratio"}', "values": "0.6x5"},
            ],
            "promql_expr_test": [{
                "expr": "cluster_option:ceph_scale_config:max", "eval_time": "2m",
                "exp_samples": [
                    {"labels": f'{RECORDED}{{cluster="{c}",option="{o}"}}', "value": v}
                    for c, o, v in (("c1", "fill_target_ratio", 0.5), ("c2", "fill_target_ratio", 0.5),
                                    ("c1", "fill_warn_ratio", 0.7), ("c2", "fill_warn_ratio", 0.6))
                ],
            }],
        }],
    }  # fmt: skip
    (tmp_path / "test.yml").write_text(yaml.safe_dump(case))
    proc = subprocess.run(["promtool", "test", "rules", str(tmp_path / "test.yml")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_unknown_threshold_is_refused_by_name():
    with pytest.raises(RuntimeError, match="no rule reads fill_target_ration"):
        build({"thresholds": {"fill_target_ration": 0.5}})
