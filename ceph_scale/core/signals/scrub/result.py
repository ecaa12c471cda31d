"""The scrub signal's typed result: the scrub and deep-scrub backlogs: overdue PGs and how long they take to clear.

Its derivation fills it (derive.py); its health checks (check.py, where it has any) and its
section of `ceph scale status` (status.py) judge it again in words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScrubBacklog:
    overdue: int
    clear_seconds: float | None  # 0 without a backlog, +Inf when nothing completes, None before a rate
    overdue_ratio: float
    oldest_age_seconds: float
    overdue_after_seconds: float
    scrubbing: int
    completed: int


@dataclass(frozen=True)
class ScrubResult:
    pgs: int
    scrub: ScrubBacklog
    deep_scrub: ScrubBacklog
