"""The one source of every generated deployment artefact: the rule files under rules/ and the
boards under dashboards/json/, read as they are (never a copy that could go stale)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "rules"
BOARDS = REPO / "dashboards" / "json"


def rule_files() -> list[Path]:
    """Every Prometheus rule file of rules/ (a YAML file with `groups`), recording rules first."""
    found = [p for p in sorted(RULES.glob("*.yml")) if "groups" in (yaml.safe_load(p.read_text()) or {})]
    return sorted(found, key=lambda p: (p.name != "recording.yml", p.name))


def rule_groups() -> list[dict[str, Any]]:
    """The groups of every rule file, in file order (group names are unique across files)."""
    groups: list[dict[str, Any]] = []
    for path in rule_files():
        groups.extend(yaml.safe_load(path.read_text())["groups"])
    names = [g["name"] for g in groups]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"rules/: group names used twice: {', '.join(duplicated)}")
    return groups


def board_texts() -> dict[str, str]:
    """{file name: JSON text} of every generated board."""
    return {p.name: p.read_text() for p in sorted(BOARDS.glob("*.json"))}


def boards() -> dict[str, dict[str, Any]]:
    """{file name: dashboard} of every generated board."""
    return {name: json.loads(text) for name, text in board_texts().items()}


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Multi-line expressions and annotations stay readable blocks, as in rules/.
    style = "|" if "\n" in value and not value.endswith(" ") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=1000, allow_unicode=True)
