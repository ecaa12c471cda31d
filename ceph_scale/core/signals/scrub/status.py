"""The scrub signal's section of `ceph scale status`: the scrub and deep-scrub backlogs, the
larger first, and how long each takes to clear."""

from __future__ import annotations

from typing import Any

from ..judging import JsonObject, Judged, Raised, StatusSection, count, section, status_word
from ..wording import duration, number, pct
from .result import ScrubResult


def scrub(r: Judged, checks: Raised, top: int) -> JsonObject:
    judged = r.results.get(ScrubResult)
    if judged is None:
        return section("NO DATA", ["no PG data yet (source pgs)"], {}, [])
    total = count(judged.pgs)
    lines = [f"{number(total)} PGs"]
    data: dict[str, Any] = {"pgs": total}
    offenders: list[dict[str, Any]] = []
    for kind, backlog in (("deep_scrub", judged.deep_scrub), ("scrub", judged.scrub)):
        n, ratio = count(backlog.overdue), count(backlog.overdue_ratio)
        oldest, after = float(backlog.oldest_age_seconds), float(backlog.overdue_after_seconds)
        now, done = count(backlog.scrubbing), float(backlog.completed)
        clear = backlog.clear_seconds
        entry: dict[str, Any] = {
            "kind": kind,
            "overdue": n,
            "overdue_ratio": ratio,
            "oldest_age_seconds": oldest,
            "overdue_after_seconds": after,
            "scrubbing": now,
            "completed": done,
            "backlog_clear_seconds": clear,
        }
        data[kind] = entry
        if n:
            offenders.append(entry)
        label = "deep scrub" if kind == "deep_scrub" else "scrub"
        clear_text = "n/a (no rate yet)" if clear is None else ("none" if clear == 0 else duration(clear))
        lines.append(
            f"{label}: {number(n)} overdue ({pct(ratio)}), oldest stamp {duration(oldest)} old "
            f"(overdue after {duration(after)}), {number(now)} running, backlog clears in: {clear_text}"
        )
    offenders.sort(key=lambda e: (-(e["backlog_clear_seconds"] or 0), -e["overdue"]))
    warn = "SCALE_SCRUB_BACKLOG" in checks or bool(offenders)
    return section(status_word(True, warn), lines, data, offenders)


SECTION = StatusSection("4. Scrub backlog", scrub)
