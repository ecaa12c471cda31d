"""What a signal's health checks (`<name>/check.py`) and its section of `ceph scale status`
(`<name>/status.py`) are, and the shapes they return: the registry lists them per signal, and
the module's checks and report only iterate the registry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..config import Thresholds
from .check_options import CheckOptions
from .results import SignalResults

DAY = 86400.0

# A health check or a status section as the manager and the JSON report take it.
JsonObject = dict[str, Any]
# The health checks raised: code -> check.
Raised = dict[str, JsonObject]

# (its result, the thresholds it ran with, the check options) -> the check, or None when clear.
CheckFunction = Callable[[Any, Thresholds, CheckOptions], "JsonObject | None"]


@dataclass(frozen=True)
class HealthCheck:
    """One SCALE_* health check of a signal: its code, and the check on the signal's result."""

    code: str
    judge: CheckFunction


@dataclass(frozen=True)
class Judged:
    """What a status section reads: the signals' judgements of the last derivation, the
    thresholds it ran with, and the check options in force."""

    results: SignalResults
    th: Thresholds
    opts: CheckOptions


@dataclass(frozen=True)
class StatusSection:
    """A signal's section of `ceph scale status`: its title and how it is built from the judged
    derivation, the health checks raised (code -> check) and how many offenders it lists."""

    title: str
    build: Callable[[Judged, Raised, int], JsonObject]
    # A part of the report of its own (under the signal's name, after the study signals'
    # sections), not one of `signals`.
    own_part: bool = False


def health_check(severity: str, summary: str, count: int, lines: list[str], limit: int) -> JsonObject:
    """A check as set_health_checks takes it: its detail lines capped at `limit`, the rest counted."""
    if len(lines) > limit:
        lines = lines[:limit] + [f"... and {len(lines) - limit} more"]
    return {"severity": severity, "summary": summary, "count": int(count), "detail": lines}


def section(status: str, lines: list[str], data: JsonObject, offenders: list[JsonObject]) -> JsonObject:
    return {"status": status, "lines": lines, "data": data, "offenders": offenders}


def count(value: float) -> float:
    """A figure as the JSON report states it: a float as exposed, but a plain 0 for none."""
    return float(value) or 0


def status_word(has_data: bool, warn: bool) -> str:
    if not has_data:
        return "NO DATA"
    return "WARN" if warn else "OK"


def maybe(value: float | None) -> float | None:
    return None if value is None else float(value)
