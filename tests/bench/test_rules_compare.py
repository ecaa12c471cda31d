"""The side-by-side rule benchmark's rule sets (bench/rules_compare.py): a set it cannot load is
refused with one line naming the file, before any data is written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench import rules_compare

REPO = Path(__file__).resolve().parents[2]


def shipped_copy(tmp_path: Path) -> Path:
    for name in rules_compare.RULE_FILES:
        shutil.copy(REPO / "rules" / name, tmp_path / name)
    return tmp_path


def test_the_shipped_rules_are_a_rule_set(tmp_path):
    files = rules_compare.rule_set(shipped_copy(tmp_path))
    assert [f.name for f in files] == list(rules_compare.RULE_FILES)


def test_a_set_without_its_alerts_is_refused_in_one_line(tmp_path):
    (shipped_copy(tmp_path) / "alerts.yml").unlink()
    with pytest.raises(SystemExit) as e:
        rules_compare.rule_set(tmp_path)
    assert str(e.value).startswith(f"{tmp_path / 'alerts.yml'}: no such rule file")
    assert "\n" not in str(e.value)


def test_a_set_promtool_rejects_is_refused_in_one_line(tmp_path):
    alerts = shipped_copy(tmp_path) / "alerts.yml"
    alerts.write_text(alerts.read_text().replace("for: 15m", "for: fifteen", 1))
    with pytest.raises(SystemExit) as e:
        rules_compare.rule_set(tmp_path)
    assert str(e.value).startswith(f"{alerts}: promtool check rules failed: ")
    assert "\n" not in str(e.value)
