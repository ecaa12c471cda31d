"""The rule set as Prometheus and promtool load it: the rule files of rules/ and their promtool
tests, parsed."""

from __future__ import annotations

from pathlib import Path

import yaml

NOT_RULE_FILES = {"alertmanager.yml"}
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: the tests are large


def rule_files(rules_dir: Path) -> list[Path]:
    """The rule files Prometheus loads: every *.yml in rules/ but the Alertmanager config."""
    return sorted(p for p in rules_dir.glob("*.yml") if p.name not in NOT_RULE_FILES)


def promtool_test_files(rules_dir: Path) -> list[Path]:
    return sorted((rules_dir / "tests").glob("*.yml"))


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
