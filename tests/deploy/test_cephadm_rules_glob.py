"""The installed rules directory loads whole through a `rule_files: rules/*.yml` glob, the way
an operator points a Prometheus (cephadm's own loads `/etc/prometheus/alerting/*`) at a
directory of rule files: only rule files match, and the example Alertmanager routing, which
Prometheus would refuse ("field route not found"), is installed out of the glob's reach.

The installed tree is laid out here from pyproject.toml's data-files, as setuptools copies them
(each pattern's files flat into its target directory); test_wheel.py installs the real wheel.
"""

from __future__ import annotations

import glob
import shutil
import subprocess
from pathlib import Path

import tomllib
import yaml

from tests.deploy.source_tree import REPO

SHARE = "share/ceph-scale-signals"


def installed_share(prefix: Path) -> Path:
    data_files = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    for target, patterns in data_files.items():
        (prefix / target).mkdir(parents=True, exist_ok=True)
        for pattern in patterns:
            for source in glob.glob(str(REPO / pattern)):
                shutil.copy(source, prefix / target)
    return prefix / SHARE


def test_a_rules_glob_over_the_installed_rules_loads_in_prometheus(tmp_path):
    share = installed_share(tmp_path)
    matched = sorted(p.name for p in (share / "rules").glob("*.yml"))
    assert matched == ["alerts.yml", "recording.yml"]
    config = {"rule_files": [str(share / "rules" / "*.yml")], "scrape_configs": []}
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    proc = subprocess.run(
        ["promtool", "check", "config", str(tmp_path / "prometheus.yml")], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS: 2 rule files found" in proc.stdout
    assert proc.stdout.count("rules found") == 2 and "FAILED" not in proc.stdout


def test_the_routing_example_is_installed_beside_the_rules_and_valid(tmp_path):
    routing = installed_share(tmp_path) / "rules" / "alertmanager" / "alertmanager.yml"
    assert routing.read_text() == (REPO / "rules" / "alertmanager" / "alertmanager.yml").read_text()
    proc = subprocess.run(["amtool", "check-config", str(routing)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_prometheus_refuses_the_routing_example_as_a_rule_file(tmp_path):
    """Why it must stay out of the glob: the failure the layout prevents."""
    rules = tmp_path / "rules"
    rules.mkdir()
    shutil.copy(REPO / "rules" / "alertmanager" / "alertmanager.yml", rules)
    proc = subprocess.run(
        ["promtool", "check", "rules", str(rules / "alertmanager.yml")], capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert "field route not found" in proc.stdout + proc.stderr
