"""The `group_eval_order` of every promtool test file, written by the assembler.

promtool evaluates the groups a test file names in that order, and every group it does not
name first, in no set order (cmd/promtool/unittest.go, orderedGroups: an unnamed group sorts
as position 0). So each test names every group: the recording groups first, then the alert
groups that read them, as the assembled files hold them. A new rule group is added to every
test file by `python -m rules.assemble`, never by hand; `--check` fails on a stale list.
"""

from __future__ import annotations

import re

ITEM = re.compile(r"^(\s*)- \S+\s*$")
GROUP_NAME = re.compile(r"^  - name: (\S+)$", re.M)


def group_names(recording: str, alerts: str) -> list[str]:
    """The groups of the assembled rule files: the recording groups, then the alert groups."""
    return GROUP_NAME.findall(recording) + GROUP_NAME.findall(alerts)


def with_eval_order(text: str, groups: list[str], where: str) -> str:
    """The test file's text with the list under its `group_eval_order:` line replaced by
    `groups`, in the file's own indentation; ValueError naming the file if it has no such line."""
    lines = text.splitlines(keepends=True)
    try:
        at = lines.index("group_eval_order:\n") + 1
    except ValueError:
        raise ValueError(f"{where}: no `group_eval_order:` line (promtool would order its groups at random)") from None
    end = at
    while end < len(lines) and ITEM.match(lines[end]):
        end += 1
    first = ITEM.match(lines[at]) if end > at else None
    indent = first.group(1) if first else "  "
    return "".join(lines[:at] + [f"{indent}- {g}\n" for g in groups] + lines[end:])
