"""The example routing and the promtool tests' group order are assembled from the registry
(rules/routing.py, rules/eval_order.py): a new signal is routed by its row's team, and a new rule
group reaches every promtool test file, with no file edited by hand. Checked with Debian's amtool
and promtool on what the assembler writes."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import yaml

from ceph_scale.core import registry
from rules import assemble, routing
from rules.rule_set import SIGNALS_DIR, promtool_test_files
from tests.rules.test_assemble import REPO, repo_copy, run_assemble


def tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        pytest.fail(f"{name} not found: run scripts/bootstrap.sh (Debian prometheus / prometheus-alertmanager)")
    return path


def routed(config, labels: dict[str, str]) -> list[str]:
    argv = [tool("amtool"), "config", "routes", "test", f"--config.file={config}"]
    r = subprocess.run([*argv, *(f"{k}={v}" for k, v in labels.items())], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.strip().split(",")


def test_each_signal_reaches_the_receiver_of_its_rows_team():
    config = REPO / assemble.ROUTING
    for signal, team in registry.ALERT_TEAMS.items():
        assert routed(config, {"cluster": "c1", "signal": signal, "severity": "warning"}) == [f"ceph-scale-{team}"]


def test_a_new_signal_is_routed_by_its_team_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(routing, "ALERT_SIGNALS", (*registry.ALERT_SIGNALS, "iops"))
    monkeypatch.setattr(routing, "ALERT_TEAMS", {**registry.ALERT_TEAMS, "iops": "rgw"})
    config = tmp_path / "alertmanager.yml"
    config.write_text(routing.routing((REPO / assemble.TEMPLATES_DIR / routing.TEMPLATE).read_text()))
    checked = subprocess.run([tool("amtool"), "check-config", str(config)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert routed(config, {"cluster": "c1", "signal": "iops", "severity": "warning"}) == ["ceph-scale-rgw"]
    assert routed(config, {"cluster": "c1", "signal": "iops", "severity": "critical"}) == [
        "ceph-scale-pager",
        "ceph-scale-rgw",
    ]
    # A blind exporter holds back the new signal's alerts too.
    inhibited = yaml.safe_load(config.read_text())["inhibit_rules"][0]["target_matchers"][0]
    assert "|iops" in inhibited and "exporter" not in inhibited


@pytest.mark.parametrize(
    ("teams", "template_edit", "message"),
    [
        ({"iops": "dba"}, None, "signals with alerts and no known team: iops (dba)"),
        ({"iops": ""}, None, "signals with alerts and no known team: iops (no team)"),
        ({}, ("- name: ceph-scale-rgw\n", "- name: ceph-scale-s3\n"), "no receiver ceph-scale-rgw"),
        ({}, ("@@signals@@", "@@signal@@"), "unknown token @@signal@@"),
    ],
    ids=["unknown team", "no team", "no receiver", "unknown token"],
)
def test_a_routing_it_cannot_assemble_is_one_line(monkeypatch, teams, template_edit, message):
    monkeypatch.setattr(routing, "ALERT_SIGNALS", (*registry.ALERT_SIGNALS, *teams))
    monkeypatch.setattr(routing, "ALERT_TEAMS", {**registry.ALERT_TEAMS, **teams})
    template = (REPO / assemble.TEMPLATES_DIR / routing.TEMPLATE).read_text()
    if template_edit:
        template = template.replace(*template_edit)
    with pytest.raises(routing.RoutingError, match=re.escape(message)):
        routing.routing(template)


def test_a_new_rule_group_reaches_every_promtool_test_in_order(tmp_path):
    root = repo_copy(tmp_path)
    rules = root / SIGNALS_DIR / "fill" / "rules.yml"
    rules.write_text(
        rules.read_text().rstrip("\n")
        + "\n\n  - name: ceph-scale-fill-extra.rules\n    rules:\n"
        + "      - record: cluster:ceph_scale_fill_extra:max\n"
        + "        expr: max by (cluster) (ceph_scale_cluster_used_ratio)\n"
    )
    r = run_assemble("--root", str(root))
    assert r.returncode == 0, r.stderr
    tests = promtool_test_files(root / "rules")
    assert len(tests) >= 14
    for path in tests:
        order = yaml.safe_load(path.read_text())["group_eval_order"]
        assert "ceph-scale-fill-extra.rules" in order, path
        last_recording = max(i for i, g in enumerate(order) if g.endswith(".rules"))
        assert all(g.endswith(".alerts") for g in order[last_recording + 1 :])
        assert order.index("ceph-scale-fill-extra.rules") < order.index("ceph-scale-fill.alerts")
    # promtool runs the folder's tests with the group it never listed by hand.
    folder_test = root / SIGNALS_DIR / "fill" / "rules_test.yml"
    argv = [tool("promtool"), "test", "rules", str(folder_test)]
    ran = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert run_assemble("--check", "--root", str(root)).returncode == 0


def test_a_promtool_test_without_a_group_order_is_one_line(tmp_path):
    root = repo_copy(tmp_path)
    path = root / SIGNALS_DIR / "scrub" / "rules_test.yml"
    path.write_text(path.read_text().replace("group_eval_order:\n", "group_order:\n", 1))
    r = run_assemble("--check", "--root", str(root))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "ceph_scale/core/signals/scrub/rules_test.yml: no `group_eval_order:` line" in r.stderr
