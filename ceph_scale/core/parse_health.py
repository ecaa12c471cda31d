"""The health source's parser: `health detail` (fields: tests/fixtures/README.md)."""

from __future__ import annotations

from typing import Any

from .parse_base import (
    _count,
    _get,
    _list,
    _obj,
    _str,
    refuses_bad_shapes,
)
from .snapshot import HealthCheck, HealthPart

# --- health: `health detail` -----------------------------------------------------


@refuses_bad_shapes
def health_part(health: Any, collected_at: float) -> HealthPart:
    status = _str(_get(health, "status", "health"), "health.status")
    # Always there ({} when HEALTH_OK, health_detail*.json): a missing one would read as no checks.
    raw_checks = _obj(_get(health, "checks", "health"), "health.checks")
    checks = []
    for code, c in sorted(raw_checks.items()):
        p = f"health.checks.{code}"
        summary = _obj(_get(c, "summary", p), p + ".summary")
        count = summary.get("count")
        if count is None:  # before Octopus: no count, one detail line each
            count = len(_list(c.get("detail", []) or [], p + ".detail")) or 1
        checks.append(
            HealthCheck(
                code=code,
                severity=_str(_get(c, "severity", p), p + ".severity"),
                count=_count(count, p + ".summary.count"),
                summary=_str(_get(summary, "message", p + ".summary"), p + ".summary.message"),
            )
        )
    return HealthPart(collected_at=collected_at, status=status, checks=tuple(checks))
