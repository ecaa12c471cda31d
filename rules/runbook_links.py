"""The runbook links of the alerts: every runbook_url is one base + rules/runbooks.md#<anchor>.
Reads the base, rewrites it (a fork or an internal mirror), and lists the anchors GitHub makes
for the headings of runbooks.md."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from rules.rule_set import chart_rule_files, folder_rule_files, promtool_test_files, rule_alerts, rule_files

RUNBOOK_DOC = "rules/runbooks.md"
RUNBOOK_BASE_FORM = re.compile(r"^https?://[^\s#?]+/$")


def github_anchors(markdown: str) -> set[str]:
    """Anchors GitHub generates for the headings of a markdown file."""
    anchors = set()
    fence = None  # the opening ``` or ~~~ while inside a fenced block, whose `# comments` are no headings
    for line in markdown.splitlines():
        if fence is None:
            m = re.match(r"\s{0,3}(`{3,}|~{3,})", line)
            if m:
                fence = m.group(1)
                continue
        else:
            if re.fullmatch(rf"\s{{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*", line):
                fence = None
            continue
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            anchors.add(text.replace(" ", "-"))
    return anchors


def common_runbook_base(urls) -> str | None:
    """The base most runbook_urls share: what comes before rules/runbooks.md#."""
    bases = Counter(str(u).split(RUNBOOK_DOC + "#", 1)[0] for u in urls if RUNBOOK_DOC + "#" in str(u))
    return bases.most_common(1)[0][0] if bases else None


def runbook_base(rules_dir: Path) -> str | None:
    """The runbook base the alerts in rules_dir use."""
    return common_runbook_base((r.get("annotations") or {}).get("runbook_url") for r in rule_alerts(rules_dir).values())


def set_runbook_base(rules_dir: Path, new_base: str) -> list[Path]:
    """Replace the runbook base in the rule files, the signal folders' rules and promtool tests
    and the Helm chart's copies (so they still equal what the folders assemble); the files changed."""
    rules_dir = Path(rules_dir)
    if not RUNBOOK_BASE_FORM.match(new_base):
        raise ValueError(f"{new_base!r} is not an absolute http(s) URL ending in /")
    old_base = runbook_base(rules_dir)
    if old_base is None:
        raise ValueError(f"no runbook_url into {RUNBOOK_DOC} found in {rules_dir}")
    changed = []
    rewritten = rule_files(rules_dir) + folder_rule_files(rules_dir) + chart_rule_files(rules_dir)
    for path in rewritten + promtool_test_files(rules_dir):
        text = path.read_text()
        new_text = text.replace(old_base + RUNBOOK_DOC + "#", new_base + RUNBOOK_DOC + "#")
        if new_text != text:
            path.write_text(new_text)
            changed.append(path)
    return changed
