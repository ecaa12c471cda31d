"""The scrub board: overdue PGs, completions, the backlog's clearance time [001, 003, 004]."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ceph_scale.core.signals.scrub import panels as scrub

from ..board_frame import new_board


def scrub_board():
    panels = [
        db.Row("Backlog now"),
        scrub.overdue_scrub(),
        scrub.overdue_deep_scrub(),
        scrub.overdue_share(),
        scrub.oldest_stamp(),
        scrub.scrubbing_now(),
        scrub.time_to_clear(),
        db.Row("Backlog over time"),
        scrub.overdue_vs_pgs(),
        scrub.oldest_vs_overdue_line(),
        scrub.completed_rate(),
        scrub.time_to_clear_trend(),
        db.Row("Deep-scrub storm"),
        scrub.storm(),
    ]
    return new_board(
        "scrub",
        "Ceph scale: scrub backlog",
        "PGs overdue for scrub and deep scrub, the oldest stamp, scrubs running now, completion rate "
        "and the time to clear the backlog [004, 001, 003].",
        panels,
        time_from="now-7d",
        marks={"plunges": [scrub.STORM_TITLE], "client_drops": [scrub.STORM_TITLE], "osds_down": [scrub.STORM_TITLE]},
    )
