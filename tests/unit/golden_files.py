"""Kept outputs compared with what the code makes now, for every golden test: a diff per file
that differs, or, with CEPH_SCALE_UPDATE_GOLDEN=1 (after review), the files rewritten."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

UPDATE = os.environ.get("CEPH_SCALE_UPDATE_GOLDEN") == "1"
HINT = "\n\n(CEPH_SCALE_UPDATE_GOLDEN=1 rewrites them after review)"


def differences(made: dict[Path, str]) -> str:
    """The diffs (at most 40 lines each) of the kept files that differ from what was made; ""
    when none does. Rewrites them first when UPDATE is set."""
    if UPDATE:
        for path, text in made.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    problems = []
    for path, text in made.items():
        want = path.read_text() if path.exists() else ""
        if text != want:
            diff = difflib.unified_diff(want.splitlines(), text.splitlines(), str(path), "now", lineterm="", n=0)
            problems.append("\n".join(list(diff)[:40]))
    return "\n\n".join(problems) + HINT if problems else ""
