"""The rule set as Prometheus and promtool load it: the rule files of rules/ and their promtool
tests (each signal folder's, and the ones across signals in rules/tests/), parsed."""

from __future__ import annotations

from pathlib import Path

import yaml

NOT_RULE_FILES = {"alertmanager.yml"}
# Under the repository's root: the signal folders, each with its rules.yml and promtool tests.
SIGNALS_DIR = Path("ceph_scale/core/signals")
FOLDER_TESTS = ("*/rules_test.yml", "*/rules_tests/*.yml")
# The Helm chart's copies of the rule files (rules/assemble.py writes them).
CHART_RULES_DIR = Path("deploy/helm/ceph-scale-signals/files/rules")
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: the tests are large


def rule_files(rules_dir: Path) -> list[Path]:
    """The rule files Prometheus loads: every *.yml in rules/ but the Alertmanager config."""
    return sorted(p for p in rules_dir.glob("*.yml") if p.name not in NOT_RULE_FILES)


def promtool_test_files(rules_dir: Path) -> list[Path]:
    """Every signal folder's promtool tests, then those of rules/tests/ (across signals)."""
    signals_dir = Path(rules_dir).parent / SIGNALS_DIR
    folder_tests = sorted(p for pattern in FOLDER_TESTS for p in signals_dir.glob(pattern))
    return folder_tests + sorted((Path(rules_dir) / "tests").glob("*.yml"))


def folder_rule_files(rules_dir: Path) -> list[Path]:
    """The signal folders' rules.yml, which rules/assemble.py assembles into the rule files."""
    return sorted((Path(rules_dir).parent / SIGNALS_DIR).glob("*/rules.yml"))


def chart_rule_files(rules_dir: Path) -> list[Path]:
    """The Helm chart's copies of the rule files, where the repository has the chart."""
    return sorted((Path(rules_dir).parent / CHART_RULES_DIR).glob("*.yml"))


def rule_alerts(rules_dir: Path) -> dict[str, dict]:
    alerts = {}
    for path in rule_files(rules_dir):
        for group in (yaml.load(path.read_text(), Loader=YAML_LOADER) or {}).get("groups") or []:
            for rule in group.get("rules") or []:
                if "alert" in rule:
                    alerts[rule["alert"]] = rule
    return alerts


def load_yaml(path: Path, problems: list[str]):
    try:
        return yaml.load(path.read_text(), Loader=YAML_LOADER)
    except (OSError, yaml.YAMLError) as e:
        problems.append(f"{path.name}: cannot load: {e}")
        return None
