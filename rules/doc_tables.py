"""Tables of the docs assembled from what declares them, each between two marker lines of its
page (the rest of the page is prose kept by hand):

- docs/mgr-module.md, the health checks: each signal's `checks.md` (one row per SCALE_* check
  its `check.py` raises, in registry order), then the module's own (`mgr_module/checks.md`);
- docs/configuration.md, the thresholds: one row per setting of ceph_scale/core/config.py
  (its name, default, range and meaning), in their declared order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ceph_scale.core.config import SETTINGS
from ceph_scale.core.registry import SIGNALS
from rules.rule_set import SIGNALS_DIR

MODULE_CHECKS = Path("mgr_module/checks.md")


@dataclass(frozen=True)
class DocTable:
    doc: Path
    what: str  # named in its marker lines
    rows: Callable[[Path], str]  # the table's text, header included, from the repository root

    @property
    def start(self) -> str:
        return f"<!-- {self.what}: assembled by `python -m rules.assemble` -->\n"

    @property
    def end(self) -> str:
        return f"<!-- end of {self.what} -->\n"

    def filled(self, root: Path) -> str:
        """The page with its table replaced; ValueError naming the page if a marker is missing."""
        doc = (root / self.doc).read_text()
        start, end = self.start, self.end
        if doc.count(start) != 1 or doc.count(end) != 1 or doc.index(start) > doc.index(end):
            raise ValueError(f"{self.doc}: needs one `{start.strip()}` line and, after it, one `{end.strip()}` line")
        head, rest = doc.split(start)
        return head + start + self.rows(root) + end + rest.split(end)[1]


def health_checks(root: Path) -> str:
    pieces = [root / SIGNALS_DIR / s.name / "checks.md" for s in SIGNALS] + [root / MODULE_CHECKS]
    rows = "".join(p.read_text() for p in pieces if p.is_file())
    return "| code | raised when | detail lines |\n|---|---|---|\n" + rows


def _number(value: float | int | str) -> str:
    return value if isinstance(value, str) else f"{value:g}"


def thresholds(_root: Path) -> str:
    rows = []
    for s in SETTINGS:
        span = "names" if s.kind is str else f"{_number(s.minimum or 0)} .. {_number(s.maximum or 0)}"
        rows.append(f"| `{s.name}` | {_number(s.default)} | {span} | {s.doc} |\n")
    return "| name | default | range | meaning and origin |\n|---|---|---|---|\n" + "".join(rows)


TABLES = (
    DocTable(Path("docs/mgr-module.md"), "the health checks", health_checks),
    DocTable(Path("docs/configuration.md"), "the thresholds", thresholds),
)
