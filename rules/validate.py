#!/usr/bin/env python3
"""Checks the rules in rules/ against the project's alerting discipline.

    python3 rules/validate.py [--rules-dir rules] [--metrics-doc docs/metrics.md]
    python3 rules/validate.py --set-runbook-base https://git.example.org/ceph-scale-signals/-/blob/main/

Exits 1 and lists every problem if any of these fails:

- every alert has `for` and the one `keep_firing_for` all alerts share, of
  2 minutes or more: one failed scrape (all its series go stale at once)
  must not resolve a firing alert and page it again;
- no rule reads its condition through an instant selector of a scraped series
  or a window under 5 minutes (rules/scrape_gaps.py): one failed scrape would
  empty it for a round and restart every pending `for:` built on it;
- every alert has labels `severity` (info | warning | critical) and
  `signal` (a signal of ceph_scale/core/registry.py with alerts, or exporter),
  and annotations `summary`, `description` and `runbook_url`;
- every description shows a live value (`$value` or a `query` template),
  except CephScaleExporterAbsent's, which has none to show;
- the annotations keep to their query budget (rules/template_cost.py): at most
  one query in a summary and two in a description, none inside a `range` body,
  none that prints a threshold alone;
- every runbook_url is one base shared by all alerts + rules/runbooks.md + an
  anchor equal to the alert name in lower case, and runbooks.md has that
  section (headings inside fenced code blocks do not count);
- every alert has a promtool test case (a signal folder's rules_test.yml, rules/tests/*.yml) that expects it to
  fire and one that expects it not to;
- every metric a rule or an annotation reads is in docs/metrics.md, is a
  recording rule defined here, or is Prometheus' `up`;
- every rule keeps `cluster`: no aggregation drops it (statically), every
  firing test case expects it on the alert, and every recording rule is
  checked by a promql_expr_test whose samples carry it;
- recording rules are named level:metric:operations with a level that starts
  with `cluster`;
- every test file loads all rule files and fixes the group evaluation order
  (recording groups before alert groups);
- every alert name that rules/alertmanager/alertmanager.yml refers to exists (here or, for the few it
  inhibits, in ceph-mixin), its `signal` matchers
  name registered signals only, and every signal is routed to a team.

`--set-runbook-base` replaces the runbook base in the rule files and in the
expected annotations of the promtool tests (Prometheus rule files have no
variables, so the base is written into every runbook_url), then validates.

It needs PyYAML and promql-parser (requirements-dev.txt); promtool and amtool are run by
tests/rules/test_rules.py.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

import yaml

# The repository's root: the registry the producers read (ceph_scale/core/registry.py), whose
# signals the alerts name, and the validator's own modules (rules/).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ceph_scale.core import registry  # noqa: E402
from rules.promql_text import (  # noqa: E402
    cluster_dropping_aggregations,
    duration_seconds,
    metric_names,
    template_metric_names,
)
from rules.rule_set import YAML_LOADER, load_yaml, promtool_test_files, rule_files  # noqa: E402

# tests/rules/ read the alerts through the validator, as they read the rest of the rule set.
from rules.rule_set import rule_alerts as rule_alerts  # noqa: E402
from rules.runbook_links import (  # noqa: E402
    RUNBOOK_BASE_FORM,
    RUNBOOK_DOC,
    common_runbook_base,
    github_anchors,
    runbook_base,
    set_runbook_base,
)
from rules.scrape_gaps import GAP_WINDOW, gap_fragile  # noqa: E402
from rules.template_cost import template_cost_problems  # noqa: E402
from rules.ticket_cadence import CadenceError, cadence_problems, inhibiting_alerts, tickets  # noqa: E402

SEVERITIES = {"info", "warning", "critical"}
SIGNALS = set(registry.ALERT_SIGNALS)
REQUIRED_ANNOTATIONS = ("summary", "description", "runbook_url")
PROMETHEUS_METRICS = {"up"}
# ceph-mixin's alerts that rules/alertmanager/alertmanager.yml inhibits where they say what ours say
# (tests/rules/test_ceph_mixin.py checks them against Debian's ceph-prometheus-alerts).
CEPH_MIXIN_ALERTS = {
    "CephOSDNearFull",
    "CephOSDBackfillFull",
    "CephPoolNearFull",
    "CephPoolBackfillFull",
    "CephPGBackfillAtRisk",
    "CephOSDDown",
    "CephOSDDownHigh",
    "CephOSDHostDown",
    "CephPGNotScrubbed",
    "CephPGNotDeepScrubbed",
}
# A failed scrape or two, at the 1 min scrape interval the rules' windows assume.
KEEP_FIRING_MIN_SECONDS = 120
LIVE_VALUE = re.compile(r"\$value\b|\|\s*query\b")
# absent() yields 1 or nothing and knows no cluster to query for.
NO_LIVE_VALUE = {"CephScaleExporterAbsent"}

RECORD_NAME = re.compile(r"^cluster[a-z0-9_]*:[a-z][a-z0-9_]*:[a-z0-9_]+$")


def documented_metrics(metrics_doc: Path) -> set[str]:
    """Metric names in the first column of the tables of docs/metrics.md."""
    names: set[str] = set()
    for line in metrics_doc.read_text().splitlines():
        m = re.match(r"\|\s*`(ceph_scale_[a-z0-9_]+)`\s*\|\s*(\w+)", line)
        if m:
            name, kind = m.groups()
            names.add(name)
            if kind == "histogram":
                names.update(f"{name}{suffix}" for suffix in ("_bucket", "_sum", "_count"))
    return names


def shared_keep_firing(alerts: dict[str, dict], tickets: set[str]) -> str | None:
    """The keep_firing_for most alerts evaluated every round share (tickets keep firing less)."""
    values = Counter(
        str(r["keep_firing_for"]) for n, r in alerts.items() if "keep_firing_for" in r and n not in tickets
    )
    return values.most_common(1)[0][0] if values else None


def keep_firing_problems(alerts: dict[str, dict], shared: str | None, tickets: set[str]) -> list[str]:
    """Every alert keeps firing through a failed scrape; those of every round all for `shared`
    (rules/ticket_cadence.py checks the tickets' own value)."""
    problems = []
    for name, rule in alerts.items():
        value = rule.get("keep_firing_for")
        if value is None:
            problems.append(f"{name}: no `keep_firing_for`: one failed scrape resolves it and pages it again")
            continue
        seconds = duration_seconds(str(value))
        if seconds is None or seconds < KEEP_FIRING_MIN_SECONDS:
            problems.append(f"{name}: keep_firing_for {value} is not a duration of {KEEP_FIRING_MIN_SECONDS}s or more")
        elif str(value) != shared and name not in tickets:
            problems.append(f"{name}: keep_firing_for {value} is not {shared}, the other alerts' value")
    return problems


def scrape_gap_problems(name: str, expr: str, records: set[str]) -> list[str]:
    """What of the rule's condition one failed scrape would empty for a round."""
    try:
        fragile = gap_fragile(expr, records)
    except ValueError as e:
        return [f"{name}: cannot parse its expression: {e}"]
    window = f"{int(GAP_WINDOW.total_seconds()) // 60}m"
    advice = f"one failed scrape empties it and restarts a pending `for:` (read it as last_over_time(...[{window}]))"
    return [f"{name}: {what}: {advice}" for what in fragile]


def validate(rules_dir: Path, metrics_doc: Path | None = None, repo_root: Path | None = None) -> list[str]:
    """Every problem found, as one line each; empty when all is well."""
    rules_dir = Path(rules_dir)
    repo_root = Path(repo_root) if repo_root else rules_dir.parent
    metrics_doc = Path(metrics_doc) if metrics_doc else repo_root / "docs" / "metrics.md"
    problems: list[str] = []

    alerts: dict[str, dict] = {}
    records: dict[str, dict] = {}
    groups: dict[str, str] = {}  # group name -> "record" | "alert"
    files = rule_files(rules_dir)
    if not files:
        problems.append(f"{rules_dir}: no rule files")
    for path in files:
        data = load_yaml(path, problems) or {}
        for group in data.get("groups") or []:
            kinds = set()
            for rule in group.get("rules") or []:
                if "alert" in rule:
                    kinds.add("alert")
                    name = rule["alert"]
                    if name in alerts:
                        problems.append(f"{name}: alert defined twice")
                    alerts[name] = {**rule, "_file": path.name, "_interval": group.get("interval")}
                elif "record" in rule:
                    kinds.add("record")
                    records[rule["record"]] = {**rule, "_file": path.name}
            if len(kinds) > 1:
                problems.append(f"group {group.get('name')}: mixes recording and alerting rules")
            groups[group.get("name")] = kinds.pop() if kinds else "record"

    try:
        known = documented_metrics(metrics_doc) | set(records) | PROMETHEUS_METRICS
    except OSError as e:
        problems.append(f"{metrics_doc}: cannot read: {e}")
        known = set(records) | PROMETHEUS_METRICS

    # Recording rules.
    for name, rule in records.items():
        if not RECORD_NAME.match(name):
            problems.append(f"{name}: recording rule name is not cluster...:metric:operations")
        for metric in sorted(metric_names(str(rule.get("expr", ""))) - known):
            problems.append(f"{name}: reads {metric}, which is neither in docs/metrics.md nor a recording rule")
        for agg in cluster_dropping_aggregations(str(rule.get("expr", ""))):
            problems.append(f"{name}: aggregation `{agg}` drops the cluster label")
        problems += scrape_gap_problems(name, str(rule.get("expr", "")), set(records))

    # Alerts.
    runbook_doc = repo_root / RUNBOOK_DOC
    runbook_anchors = github_anchors(runbook_doc.read_text()) if runbook_doc.is_file() else None
    if runbook_anchors is None:
        problems.append(f"{RUNBOOK_DOC} does not exist")
    base = common_runbook_base((r.get("annotations") or {}).get("runbook_url") for r in alerts.values())
    if base is not None and not RUNBOOK_BASE_FORM.match(base):
        problems.append(f"runbook base {base!r} is not an absolute http(s) URL ending in /")
    try:
        inhibitors: set[str] | None = inhibiting_alerts(rules_dir / "alertmanager" / "alertmanager.yml", set(alerts))
    except CadenceError as e:  # the tickets cannot be told: the cadence is not judged
        problems.append(str(e))
        inhibitors = None
    ticket_names = tickets(alerts, inhibitors) if inhibitors is not None else set()
    shared = shared_keep_firing(alerts, ticket_names)
    problems += keep_firing_problems(alerts, shared, ticket_names)
    if inhibitors is not None:
        problems += cadence_problems(alerts, inhibitors, ticket_names, shared)
    for name, rule in alerts.items():
        labels = rule.get("labels") or {}
        annotations = rule.get("annotations") or {}
        if "for" not in rule:
            problems.append(f"{name}: no `for` duration")
        if labels.get("severity") not in SEVERITIES:
            problems.append(f"{name}: label severity missing or not one of {sorted(SEVERITIES)}")
        if labels.get("signal") not in SIGNALS:
            problems.append(f"{name}: label signal missing or not one of {sorted(SIGNALS)}")
        for key in REQUIRED_ANNOTATIONS:
            if not str(annotations.get(key) or "").strip():
                problems.append(f"{name}: annotation {key} missing")
        description = str(annotations.get("description") or "")
        if description.strip() and name not in NO_LIVE_VALUE and not LIVE_VALUE.search(description):
            problems.append(f"{name}: description shows no live value ($value or a query template)")
        problems += template_cost_problems(name, annotations)
        url = str(annotations.get("runbook_url") or "")
        if url:
            if RUNBOOK_DOC + "#" not in url:
                problems.append(f"{name}: runbook_url does not point at {RUNBOOK_DOC}#<anchor>")
            else:
                prefix, anchor = url.split(RUNBOOK_DOC + "#", 1)
                if prefix != base:
                    problems.append(f"{name}: runbook_url base {prefix} is not {base}, the base of the other alerts")
                if anchor != name.lower():
                    problems.append(f"{name}: runbook_url anchor #{anchor} is not #{name.lower()}")
                if runbook_anchors is not None and anchor not in runbook_anchors:
                    problems.append(f"{name}: {RUNBOOK_DOC} has no section #{anchor}")
        expr = str(rule.get("expr", ""))
        problems += scrape_gap_problems(name, expr, set(records))
        for metric in sorted(metric_names(expr) - known):
            problems.append(f"{name}: reads {metric}, which is neither in docs/metrics.md nor a recording rule")
        for key in ("summary", "description"):
            for metric in sorted(template_metric_names(str(annotations.get(key) or "")) - known):
                problems.append(f"{name}: annotation {key} queries unknown metric {metric}")
        if "cluster" not in labels:  # a static cluster label (absent()) is the only exemption
            for agg in cluster_dropping_aggregations(expr):
                problems.append(f"{name}: aggregation `{agg}` drops the cluster label")

    # promtool tests.
    firing: dict[str, int] = {}
    quiet: dict[str, int] = {}
    record_tested: set[str] = set()
    expected_rule_files = {p.name for p in files}
    tfiles = promtool_test_files(rules_dir)
    if not tfiles:
        problems.append(f"{rules_dir}: no promtool test files (signal folders' rules_test.yml, rules/tests/)")
    for path in tfiles:
        data = load_yaml(path, problems) or {}
        where = path.relative_to(repo_root).as_posix() if path.is_relative_to(repo_root) else str(path)
        loaded = {Path(str(f)).name for f in data.get("rule_files") or []}
        if loaded != expected_rule_files:
            problems.append(f"{where}: rule_files {sorted(loaded)} is not {sorted(expected_rule_files)}")
        order = data.get("group_eval_order") or []
        if set(order) != set(groups):
            problems.append(
                f"{where}: group_eval_order does not list exactly the rule groups (run `python -m rules.assemble`)"
            )
        else:
            order_kinds = [groups[g] for g in order]
            if "alert" in order_kinds and "record" in order_kinds[order_kinds.index("alert") :]:
                problems.append(f"{where}: group_eval_order puts a recording group after an alert group")
        for test in data.get("tests") or []:
            tname = f"{where} ({test.get('name', 'unnamed')})"
            for case in test.get("alert_rule_test") or []:
                alert = case.get("alertname")
                if alert not in alerts:
                    problems.append(f"{tname}: tests unknown alert {alert}")
                    continue
                exp = case.get("exp_alerts") or []
                if exp:
                    firing[alert] = firing.get(alert, 0) + 1
                else:
                    quiet[alert] = quiet.get(alert, 0) + 1
                for expected in exp:
                    if "cluster" not in (expected.get("exp_labels") or {}):
                        problems.append(f"{tname}: {alert} is expected to fire without a cluster label")
            for case in test.get("promql_expr_test") or []:
                expr = str(case.get("expr", ""))
                used = metric_names(expr) & set(records)
                samples = case.get("exp_samples") or []
                if used and samples and all('cluster="' in str(s.get("labels", "")) for s in samples):
                    record_tested |= used
                elif used and samples:
                    problems.append(f"{tname}: samples of `{expr}` lack the cluster label")
    for name in sorted(alerts):
        if not firing.get(name):
            problems.append(f"{name}: no promtool test case expects it to fire")
        if not quiet.get(name):
            problems.append(f"{name}: no promtool test case expects it not to fire")
    for name in sorted(set(records) - record_tested):
        problems.append(f"{name}: no promql_expr_test checks this recording rule (with its cluster label)")

    # Alertmanager example.
    am = rules_dir / "alertmanager" / "alertmanager.yml"
    if am.is_file():
        text = am.read_text()
        for m in re.finditer(r'alertname\s*=~?\s*"([^"]+)"', text):
            for ref in m.group(1).split("|"):
                if ref not in alerts and ref not in CEPH_MIXIN_ALERTS:
                    problems.append(f"alertmanager.yml: refers to unknown alert {ref}")
        problems += signal_routes(am.read_text())
    return problems


def signal_routes(text: str) -> list[str]:
    """The `signal` matchers name registered signals only, and every signal reaches a team:
    a signal added to the registry and not routed here would go to the default receiver."""
    problems = []
    team_routed: set[str] = set()
    for m in re.finditer(r'signal\s*(=~?)\s*"([^"]+)"', text):
        names = set(m.group(2).split("|"))
        for name in sorted(names - SIGNALS):
            problems.append(f"alertmanager.yml: signal {name!r} is not a registered signal")
        if names != SIGNALS:
            team_routed |= names
    for name in sorted(SIGNALS - team_routed):
        problems.append(f"alertmanager.yml: alerts of signal {name!r} reach no team's receiver")
    return problems


def summary(rules_dir: Path) -> str:
    alerts = records = 0
    for path in rule_files(rules_dir):
        for group in (yaml.load(path.read_text(), Loader=YAML_LOADER) or {}).get("groups") or []:
            for rule in group.get("rules") or []:
                alerts += "alert" in rule
                records += "record" in rule
    tests = len(promtool_test_files(rules_dir))
    return f"{alerts} alerts, {records} recording rules, {tests} test files; runbooks at {runbook_base(rules_dir)}"


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules-dir", type=Path, default=here, help="the rules directory (default: %(default)s)")
    p.add_argument("--metrics-doc", type=Path, default=None, help="default: <rules-dir>/../docs/metrics.md")
    p.add_argument(
        "--set-runbook-base",
        metavar="URL",
        help="rewrite every runbook_url (and the tests' expectations) to URL + rules/runbooks.md#<anchor>, "
        "e.g. for a fork or an internal mirror; URL ends in /",
    )
    args = p.parse_args(argv)
    if args.set_runbook_base:
        try:
            changed = set_runbook_base(args.rules_dir, args.set_runbook_base)
        except ValueError as e:
            print(f"cannot set the runbook base: {e}", file=sys.stderr)
            return 2
        for path in changed:
            print(f"rewrote {path}")
    problems = validate(args.rules_dir, args.metrics_doc)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"ok: {summary(args.rules_dir)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
