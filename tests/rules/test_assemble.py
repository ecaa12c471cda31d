"""The shipped rule files, runbooks, metric catalog and the Helm chart's rule copies are what
the signal folders assemble (rules/assemble.py), and each rule, runbook section and catalog
section has exactly one home among the folders."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from rules import assemble
from rules.rule_set import CHART_RULES_DIR, SIGNALS_DIR

REPO = Path(__file__).resolve().parents[2]
HEADING = re.compile(r"^(#{1,6}) (.+)$", re.M)
TABLE_NAME = re.compile(r"^\| `([a-z_:]+)` \|", re.M)


def folder_pieces(piece: str) -> dict[str, str]:
    return {p.parent.name: p.read_text() for p in sorted((REPO / SIGNALS_DIR).glob(f"*/{piece}"))}


def rule_names(text: str) -> list[str]:
    return [r.get("alert") or r["record"] for g in yaml.safe_load(text)["groups"] for r in g["rules"]]


def repo_copy(root: Path) -> Path:
    """What the assembler reads and writes, copied under root."""
    for part in ("rules", "ceph_scale"):
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "docs").mkdir()
    for doc in ("metrics.md", "mgr-module.md", "configuration.md"):
        shutil.copy(REPO / "docs" / doc, root / "docs" / doc)
    (root / "mgr_module").mkdir()
    shutil.copy(REPO / "mgr_module" / "checks.md", root / "mgr_module" / "checks.md")
    shutil.copytree(REPO / CHART_RULES_DIR, root / CHART_RULES_DIR)
    return root


def write_piece(root: Path, folder: str, piece: str, text: str) -> None:
    (root / SIGNALS_DIR / folder).mkdir(exist_ok=True)
    (root / SIGNALS_DIR / folder / piece).write_text(text)


def run_assemble(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rules.assemble", *argv], capture_output=True, text=True, timeout=60, cwd=REPO
    )


def test_the_shipped_files_are_what_the_folders_assemble():
    stale = assemble.differing(REPO)
    assert stale == [], f"{[str(p) for p in stale]} differ from the signal folders: run `python -m rules.assemble`"
    assert run_assemble("--check").returncode == 0


def test_the_chart_holds_copies_of_the_rule_files_not_a_link():
    chart_rules = REPO / CHART_RULES_DIR
    assert not chart_rules.is_symlink() and chart_rules.is_dir()
    assert sorted(p.name for p in chart_rules.iterdir()) == ["alerts.yml", "recording.yml"]
    for name in ("alerts.yml", "recording.yml"):
        assert not (chart_rules / name).is_symlink()
        assert (chart_rules / name).read_bytes() == (REPO / "rules" / name).read_bytes()


def test_check_names_each_file_that_differs_and_writing_mends_it(tmp_path):
    root = repo_copy(tmp_path)
    load_runbook = root / SIGNALS_DIR / "load" / "runbook.md"
    load_runbook.write_text(load_runbook.read_text().replace("is saturation.", "is where it saturates.", 1))
    shipped_alerts = root / "rules" / "alerts.yml"
    shipped_alerts.write_text(shipped_alerts.read_text() + "# edited by hand\n")
    (root / CHART_RULES_DIR / "recording.yml").unlink()

    r = run_assemble("--check", "--root", str(root))
    assert r.returncode == 1, r.stdout + r.stderr
    named = sorted(line.split(":", 1)[0] for line in r.stdout.splitlines())
    assert named == sorted(["rules/runbooks.md", "rules/alerts.yml", f"{CHART_RULES_DIR}/recording.yml"])
    assert "run `python -m rules.assemble`" in r.stdout
    assert (root / "rules" / "runbooks.md").read_text() == (REPO / "rules" / "runbooks.md").read_text()

    r = run_assemble("--root", str(root))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "is where it saturates." in (root / "rules" / "runbooks.md").read_text()
    assert shipped_alerts.read_text() == (REPO / "rules" / "alerts.yml").read_text()
    assert (root / CHART_RULES_DIR / "recording.yml").read_text() == (REPO / "rules" / "recording.yml").read_text()
    assert run_assemble("--check", "--root", str(root)).returncode == 0


def test_writing_replaces_a_link_to_rules_with_copies(tmp_path):
    root = repo_copy(tmp_path)
    shutil.rmtree(root / CHART_RULES_DIR)
    (root / CHART_RULES_DIR).symlink_to(Path("../../../../rules"))
    assert {p.name for p in assemble.differing(root)} == {"alerts.yml", "recording.yml"}
    assemble.write(root)
    assert not (root / CHART_RULES_DIR).is_symlink()
    assert assemble.differing(root) == []


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (
            lambda root: (root / SIGNALS_DIR / "load" / "rules.yml").write_text(
                (root / SIGNALS_DIR / "load" / "rules.yml")
                .read_text()
                .replace("      # assembled here: signals/plunge/rules.yml\n", "", 1)
            ),
            "ceph_scale/core/signals/plunge/rules.yml: group ceph-scale-load.alerts is held by signals/load too",
        ),
        (
            lambda root: (root / SIGNALS_DIR / "plunge" / "rules.yml").unlink(),
            "ceph_scale/core/signals/load/rules.yml: marks a place for signals/plunge in ceph-scale-load.alerts",
        ),
        (
            lambda root: (root / SIGNALS_DIR / "latency" / "runbook.md").unlink(),
            "ceph_scale/core/signals/load/runbook.md: cannot place <!-- assembled here: signals/latency/runbook.md",
        ),
        (
            lambda root: (root / "rules" / "templates" / "recording.yml.in").write_text("groups:\n@folder stats\n"),
            "rules/templates/recording.yml.in: @folder stats names no signal folder",
        ),
        (
            lambda root: (root / SIGNALS_DIR / "runway" / "rules.yml").write_text(
                (root / SIGNALS_DIR / "runway" / "rules.yml").read_text().replace("runway.alerts", "runway.alert")
            ),
            "ceph_scale/core/signals/runway/rules.yml: group ceph-scale-runway.alert ends in none of .rules, .alerts",
        ),
        (
            lambda root: write_piece(root, "spilover", "runbook.md", "## A misspelt folder\n"),
            "ceph_scale/core/signals/spilover: holds rules or docs but is no signal of the registry",
        ),
        (
            lambda root: (root / "docs/mgr-module.md").write_text(
                (root / "docs/mgr-module.md").read_text().replace("<!-- end of the health checks -->\n", "")
            ),
            "docs/mgr-module.md: needs one `<!-- the health checks: assembled by",
        ),
    ],
    ids=[
        "guest without a place",
        "place without a guest",
        "missing runbook piece",
        "unknown folder in a template",
        "group of no shipped file",
        "folder of no signal",
        "checks table without its end",
    ],
)
def test_a_piece_it_cannot_place_is_one_line_naming_the_file(tmp_path, breakage, message):
    root = repo_copy(tmp_path)
    breakage(root)
    r = run_assemble("--check", "--root", str(root))
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert message in r.stderr, r.stderr


def test_every_rule_has_exactly_one_home():
    homes: Counter[str] = Counter()
    for text in folder_pieces("rules.yml").values():
        homes.update(rule_names(text))
    assert [name for name, n in homes.items() if n > 1] == []
    shipped = rule_names((REPO / "rules" / "recording.yml").read_text())
    shipped += rule_names((REPO / "rules" / "alerts.yml").read_text())
    assert sorted(shipped) == sorted(homes)


def test_every_alert_s_folder_is_its_signal_or_its_subject():
    """An alert lives in the folder its `signal` label names; the bucket watch's alert, which
    pages the reshard team, lives with the bucket watch it is about."""
    for folder, text in folder_pieces("rules.yml").items():
        for group in yaml.safe_load(text)["groups"]:
            for rule in group["rules"]:
                if "alert" in rule:
                    assert folder == rule["labels"]["signal"] or (folder, rule["alert"]) == (
                        "bucket_watch",
                        "CephScaleRgwBucketWatchBehind",
                    ), (folder, rule["alert"])


def headings(text: str) -> list[str]:
    return [m.group(0) for m in HEADING.finditer(re.sub(r"```.*?```", "", text, flags=re.S))]


@pytest.mark.parametrize(
    ("piece", "shipped", "template"),
    [("runbook.md", "rules/runbooks.md", "runbooks.md.in"), ("catalog.md", "docs/metrics.md", "metrics.md.in")],
)
def test_every_section_has_exactly_one_home(piece, shipped, template):
    """Each heading (a runbook anchor, a catalog section) of the shipped file is in one folder's
    piece or in the template's header, once."""
    homes: Counter[str] = Counter()
    for text in folder_pieces(piece).values():
        homes.update(headings(text))
    homes.update(headings((REPO / "rules" / "templates" / template).read_text()))
    assert [h for h, n in homes.items() if n > 1] == []
    assert sorted(headings((REPO / shipped).read_text())) == sorted(homes)


def test_every_catalogued_metric_has_exactly_one_home():
    homes: Counter[str] = Counter()
    for text in folder_pieces("catalog.md").values():
        homes.update(TABLE_NAME.findall(text))
    assert [name for name, n in homes.items() if n > 1] == []
    assert sorted(TABLE_NAME.findall((REPO / "docs" / "metrics.md").read_text())) == sorted(homes)
    assert "ceph_scale_rgw_bucket_stats_overdue" in TABLE_NAME.findall(folder_pieces("catalog.md")["bucket_watch"])
