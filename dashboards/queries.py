"""Every PromQL query in the generated dashboards, with Grafana's variables substituted.

Used by the tests (parse, run against a real Prometheus) and by the preview renderer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

JSON_DIR = Path(__file__).resolve().parent / "json"

# What Grafana puts there: "All" clusters, and a short scrape interval. The osd variable offers
# no All and a board opens on the first OSD; here the first two are picked, as an operator
# comparing a spilling OSD with a healthy one does: every test cluster's osd.0 spills (its DB
# holds no whole RocksDB level, so its use of usable DB space has no value) and osd.1 does not.
# Grafana escapes a multi-value variable's values for a regex. The pool, RGW and bucket owner
# variables open on All (".*").
DEFAULTS = {
    "cluster": ".*",
    "pool": ".*",
    "rgw": ".*",
    "tenant": ".*",
    "user": ".*",
    "osd": r"(osd\\.0|osd\\.1)",
    "__rate_interval": "1m",
    "__interval": "15s",
    "__range": "1h",
}


@dataclass(frozen=True)
class Query:
    board: str  # file stem, e.g. "overview"
    panel: str  # panel title ("annotation: X" / "variable: X" for those)
    ref: str
    expr: str  # as in the JSON, with $variables
    instant: bool
    fmt: str
    legend: str = ""

    def resolved(self, values: dict[str, str] | None = None) -> str:
        return substitute(self.expr, {**DEFAULTS, **(values or {})})

    @property
    def name(self) -> str:
        return f"{self.board}: {self.panel} [{self.ref}]"


def substitute(expr: str, values: dict[str, str]) -> str:
    """Replace $name, ${name} and ${name:fmt} by values[name]; unknown names are an error."""

    def repl(mt: re.Match) -> str:
        name = mt.group(1) or mt.group(2)
        if name not in values:
            raise KeyError(f"no value for ${name} in {expr!r}")
        return values[name]

    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)", repl, expr)


def value_field(ref: str, n_queries: int) -> str:
    """The name Grafana gives the value column of a table-format query: "Value" when the panel
    has one query, "Value #<refId>" when it has several."""
    return "Value" if n_queries == 1 else f"Value #{ref}"


def load_boards(json_dir: Path = JSON_DIR) -> dict[str, dict]:
    return {f.stem: json.loads(f.read_text()) for f in sorted(json_dir.glob("*.json"))}


def panels(board: dict) -> list[dict]:
    """Every non-row panel, including those nested in collapsed rows, in order."""
    out: list[dict] = []
    for p in board.get("panels", []):
        if p.get("type") == "row":
            out.extend(p.get("panels") or [])
        else:
            out.append(p)
    return out


def label_values_to_promql(query: str) -> str:
    """Grafana's label_values(metric{sel}, label) as the PromQL that has the same answer."""
    mt = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", query)
    if not mt:
        raise ValueError(f"not a label_values() query: {query!r}")
    return f"group by ({mt.group(2)}) ({mt.group(1)})"


def board_queries(stem: str, board: dict) -> list[Query]:
    out = []
    for p in panels(board):
        for t in p.get("targets") or []:
            out.append(
                Query(
                    stem,
                    p["title"],
                    t["refId"],
                    t["expr"],
                    bool(t.get("instant")),
                    t.get("format", "time_series"),
                    t.get("legendFormat", ""),
                )  # fmt: skip
            )
    for a in (board.get("annotations") or {}).get("list") or []:
        if a.get("expr"):
            out.append(Query(stem, f"annotation: {a['name']}", "A", a["expr"], False, "time_series"))
    for v in (board.get("templating") or {}).get("list") or []:
        if v.get("type") == "query":
            out.append(Query(stem, f"variable: {v['name']}", "A", label_values_to_promql(v["query"]), True, "table"))
    return out


def all_queries(json_dir: Path = JSON_DIR) -> list[Query]:
    return [q for stem, b in load_boards(json_dir).items() for q in board_queries(stem, b)]
