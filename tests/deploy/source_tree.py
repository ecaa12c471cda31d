"""A copy of the checkout to build from, so that builds leave nothing in the working tree."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SKIP = shutil.ignore_patterns(".git", ".venv", "run", "build", "*.egg-info", "__pycache__", ".*_cache")


def copy_tree(dest: Path) -> Path:
    """The repository's files under dest/src (symlinks kept: the Helm chart's link to
    dashboards/json is)."""
    src = dest / "src"
    shutil.copytree(REPO, src, symlinks=True, ignore=SKIP)
    return src
