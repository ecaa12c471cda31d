"""What the validator reads in PromQL and in annotation templates, by text: the metrics an
expression selects, the aggregations that drop `cluster`, and Prometheus durations."""

from __future__ import annotations

import re

DURATION = re.compile(r"^(?:\d+[smhdwy])+$")
DURATION_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}

AGGREGATORS = ("sum", "min", "max", "avg", "count", "group", "stddev", "stdvar", "quantile", "count_values")
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool"}
KEYWORDS |= {"inf", "nan", "atan2"}
NAME_TOKEN = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")


def metric_names(expr: str) -> set[str]:
    """Metric names a PromQL expression selects (not functions, labels or keywords)."""
    s = re.sub(r'"(?:[^"\\]|\\.)*"' + r"|'(?:[^'\\]|\\.)*'", '""', expr)
    s = re.sub(r"\{[^}]*\}", " ", s)
    s = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", s)
    s = re.sub(r"\[[^\]]*\]", " ", s)
    s = re.sub(r"(?<![\w:])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?:ms|s|m|h|d|w|y)?\b", " ", s)
    names = set()
    for m in NAME_TOKEN.finditer(s):
        token = m.group(0)
        if token.lower() in KEYWORDS or re.match(r"\s*\(", s[m.end() :]):
            continue
        names.add(token)
    return names


def template_metric_names(text: str) -> set[str]:
    """Metric and recording-rule names a template's queries read."""
    return set(re.findall(r"\b(ceph_scale_[a-z0-9_]+|cluster[a-z_]*:[a-z0-9_]+:[a-z0-9_]+)\b", text))


def cluster_dropping_aggregations(expr: str) -> list[str]:
    """Aggregations that can drop `cluster`: no grouping, by (...) without it, without (cluster)."""
    found = []
    alts = "|".join(AGGREGATORS)
    for m in re.finditer(rf"\b({alts})\s*(by|without)?\s*(\([^()]*\))?\s*\(", expr):
        mode, labels = m.group(2), m.group(3) or ""
        names = set(re.findall(r"\w+", labels))
        if mode is None or (mode == "by" and "cluster" not in names) or (mode == "without" and "cluster" in names):
            found.append(m.group(0).rstrip("(").strip())
    return found


def duration_seconds(text: str) -> int | None:
    """Seconds of a Prometheus duration such as 5m or 1h30m; None if it is not one."""
    if not DURATION.match(text):
        return None
    return sum(int(n) * DURATION_UNIT_SECONDS[u] for n, u in re.findall(r"(\d+)([smhdwy])", text))
