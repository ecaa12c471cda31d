"""SCALE_SCRUB_BACKLOG: overdue PGs that take longer than the horizon to clear at the current
scrub (or deep-scrub) rate, or never clear because none completes."""

from __future__ import annotations

import math

from ...config import Thresholds
from ..check_options import CheckOptions
from ..judging import DAY, HealthCheck, JsonObject, health_check
from ..wording import duration, number, pct
from .result import ScrubResult


def check_scrub(scrub: ScrubResult | None, th: Thresholds, opts: CheckOptions) -> JsonObject | None:
    if scrub is None:
        return None
    horizon = opts.scrub_backlog_warn_days * DAY
    total = scrub.pgs
    rows = []
    for kind, backlog in (("deep_scrub", scrub.deep_scrub), ("scrub", scrub.scrub)):
        n, seconds = backlog.overdue, backlog.clear_seconds
        if not n or seconds is None or seconds <= horizon:
            continue
        share = n / total if total else 0.0
        label = "deep scrub" if kind == "deep_scrub" else "scrub"
        if math.isinf(seconds):
            tail = (
                f"no {label} completed over the last {duration(th.scrub_rate_window_seconds)}, "
                "so the backlog does not clear"
            )
        else:
            tail = f"the backlog clears in {duration(seconds)} at the current {label} rate"
        rows.append((-seconds, -n, f"{label}: {number(n)} of {number(total)} PGs overdue ({pct(share)}); {tail}"))
    if not rows:
        return None
    rows.sort()
    count = scrub.scrub.overdue + scrub.deep_scrub.overdue
    summary = f"scrub backlog does not clear within {opts.scrub_backlog_warn_days:g} days"
    return health_check("warning", summary, count, [row[2] for row in rows], opts.health_detail_max)


CHECKS = (HealthCheck("SCALE_SCRUB_BACKLOG", check_scrub),)
