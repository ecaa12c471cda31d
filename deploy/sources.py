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
# Where the repository's files are published: every runbook_url of rules/alerts.yml and the
# boards' `runbook_base` variable start with it (mixin.libsonnet's defaultBase, the same knob).
DEFAULT_RUNBOOK_BASE = "https://github.com/ceph-scale-signals/ceph-scale-signals/blob/main/"
RUNBOOKS = "rules/runbooks.md"


def rule_files() -> list[Path]:
    """Every Prometheus rule file of rules/ (a YAML file with `groups`), recording rules first."""
    found = [p for p in sorted(RULES.glob("*.yml")) if "groups" in (yaml.safe_load(p.read_text()) or {})]
    return sorted(found, key=lambda p: (p.name != "recording.yml", p.name))


def check_runbook_base(base: str) -> str:
    """The base as given, or ValueError with one line saying what it must look like."""
    if not base.startswith(("http://", "https://")) or not base.endswith("/") or any(c.isspace() for c in base):
        raise ValueError(f"runbook base URL {base!r}: must be an http(s) URL ending in '/', under which {RUNBOOKS} is")
    return base


def rule_groups(runbook_base: str = DEFAULT_RUNBOOK_BASE) -> list[dict[str, Any]]:
    """The groups of every rule file, in file order (group names are unique across files),
    every runbook_url moved from DEFAULT_RUNBOOK_BASE to runbook_base."""
    check_runbook_base(runbook_base)
    groups: list[dict[str, Any]] = []
    for path in rule_files():
        groups.extend(yaml.safe_load(path.read_text())["groups"])
    names = [g["name"] for g in groups]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"rules/: group names used twice: {', '.join(duplicated)}")
    for rule in (r for g in groups for r in g["rules"]):
        annotations = rule.get("annotations", {})
        if "runbook_url" in annotations:
            url = annotations["runbook_url"]
            if not url.startswith(DEFAULT_RUNBOOK_BASE):
                raise ValueError(f"rules/: {rule['alert']}: runbook_url {url} is not under {DEFAULT_RUNBOOK_BASE}")
            annotations["runbook_url"] = runbook_base + url[len(DEFAULT_RUNBOOK_BASE) :]
    return groups


def board_texts(runbook_base: str = DEFAULT_RUNBOOK_BASE) -> dict[str, str]:
    """{file name: JSON text} of every generated board; with another runbook base, each
    board's `runbook_base` variable (its runbook links) points under it."""
    check_runbook_base(runbook_base)
    texts = {p.name: p.read_text() for p in sorted(BOARDS.glob("*.json"))}
    if runbook_base == DEFAULT_RUNBOOK_BASE:
        return texts
    moved = {}
    for name, text in texts.items():
        board = json.loads(text)
        variables = [v for v in board.get("templating", {}).get("list", []) if v.get("name") == "runbook_base"]
        for v in variables:
            v["query"] = runbook_base + RUNBOOKS
        moved[name] = json.dumps(board, indent=2) + "\n"
    return moved


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Multi-line expressions and annotations stay readable blocks, as in rules/.
    style = "|" if "\n" in value and not value.endswith(" ") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=1000, allow_unicode=True)
