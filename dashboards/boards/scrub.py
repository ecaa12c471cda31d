"""The scrub board: overdue PGs, completions, the backlog's clearance time [001, 003, 004]."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ..board_frame import new_board
from ..common import CRIT, NONZERO_BAD, OK, WARN, Q, m, rate
from ..panel_kinds import dashed, right_axis, st, ts
from ..runbooks import RB
from .base import (
    CL,
    DAY,
    S3_OPS,
)


def scrub():
    kind = f"{CL} {{{{kind}}}}"
    panels = [
        db.Row("Backlog now"),
        st(
            "PGs overdue for scrub",
            "none",
            [Q(m("ceph_scale_pg_scrub_overdue", 'kind="scrub"'), CL)],
            desc="PG_NOT_SCRUBBED's count, by Ceph's own rule.",
            runbook=RB["scrub"],
            thresholds=NONZERO_BAD,
        ),
        st(
            "PGs overdue for deep scrub",
            "none",
            [Q(m("ceph_scale_pg_scrub_overdue", 'kind="deep_scrub"'), CL)],
            desc="PG_NOT_DEEP_SCRUBBED's count. 19,494 of 21,760 in the 10B test [004].",
            runbook=RB["scrub"],
            thresholds=NONZERO_BAD,
        ),
        st(
            "Share of PGs overdue",
            "percentunit",
            [Q(m("ceph_scale_pg_scrub_overdue_ratio"), kind)],
            desc="Overdue / all PGs, by kind.",
            runbook=RB["scrub"],
            thresholds=[(None, OK), (0.01, WARN), (0.1, CRIT)],
        ),
        st(
            "Oldest stamp",
            "s",
            [Q(m("ceph_scale_pg_scrub_oldest_age_seconds"), kind)],
            desc="Age of the oldest last_scrub_stamp / last_deep_scrub_stamp.",
            runbook=RB["scrub"],
        ),
        st(
            "Scrubbing now",
            "none",
            [Q(m("ceph_scale_pg_scrubbing"), kind)],
            desc="PGs in scrubbing (deep_scrub: scrubbing+deep) state now.",
            runbook=RB["deep_scrub_storm"],
        ),
        st(
            "Time to clear the backlog",
            "s",
            [Q(m("ceph_scale_pg_scrub_backlog_clear_seconds"), kind)],
            desc="Overdue PGs / completion rate over scrub_rate_window_seconds; +Inf (shown ∞) when nothing "
            "completes, 0 without backlog.",
            runbook=RB["scrub"],
            thresholds=[(None, OK), (DAY, WARN), (7 * DAY, CRIT)],
            graph=False,
        ),
        db.Row("Backlog over time"),
        ts(
            "PGs overdue, and all PGs",
            "none",
            [Q(m("ceph_scale_pg_scrub_overdue"), f"{CL} overdue {{{{kind}}}}"), Q(m("ceph_scale_pgs"), f"{CL} PGs")],
            desc="Overdue PGs by kind against the PG count (dashed).",
            runbook=RB["scrub_growing"],
            overrides=[dashed(".* PGs$", "text")],
            min_val=0,
        ),
        ts(
            "Oldest stamp age vs the overdue line",
            "s",
            [
                Q(m("ceph_scale_pg_scrub_oldest_age_seconds"), f"{CL} oldest {{{{kind}}}}"),
                Q(m("ceph_scale_pg_scrub_overdue_after_seconds"), f"{CL} overdue after ({{{{kind}}}})"),
            ],
            desc="Dashed: the stamp age from which a PG counts as overdue (interval x (1 + mon_warn ratio)). "
            "Log scale: the scrub and deep-scrub lines are days apart.",
            runbook=RB["scrub"],
            overrides=[dashed(".*overdue after.*")],
            log=10,
        ),
        ts(
            "Scrubs completed per second",
            "ops",
            [Q(f"max by (cluster, kind) ({rate('ceph_scale_pg_scrubs_completed_total')})", kind)],
            desc="PGs whose stamp moved forward, per second.",
            runbook=RB["scrub"],
            min_val=0,
        ),
        ts(
            "Time to clear the backlog at the current rate (log scale)",
            "s",
            [Q(m("ceph_scale_pg_scrub_backlog_clear_seconds"), kind)],
            desc="Overdue PGs / completion rate. Lines: one day, one week; log scale so that minutes and "
            "weeks both read. Gaps: no backlog (0) or nothing completing (+Inf).",
            runbook=RB["scrub"],
            thresholds=[(None, OK), (DAY, WARN), (7 * DAY, CRIT)],
            log=10,
            soft_max=8 * DAY,
        ),
        db.Row("Deep-scrub storm"),
        ts(
            "PGs scrubbing now vs S3 ops/s",
            "none",
            [Q(m("ceph_scale_pg_scrubbing"), f"{CL} scrubbing {{{{kind}}}}"), Q(S3_OPS, f"{CL} S3 {{{{op}}}}")],
            desc="At ~500 M objects deep scrubbing 'at a high rate' under heavy PUTs cut PUT and GET ops "
            "[001, 003]: many deep scrubs while S3 ops drop is a storm; lower osd_scrub priority / rate. Red "
            "regions: S3 plunges, titled with their likely cause.",
            runbook=RB["deep_scrub_storm"],
            overrides=[right_axis(".* S3 .*", "ops", "S3 ops/s")],
            axis_label="PGs",
            min_val=0,
            w=24,
        ),
    ]
    return new_board(
        "scrub",
        "Ceph scale: scrub backlog",
        "PGs overdue for scrub and deep scrub, the oldest stamp, scrubs running now, completion rate "
        "and the time to clear the backlog [004, 001, 003].",
        panels,
        time_from="now-7d",
        plunges_on=["PGs scrubbing now vs S3 ops/s"],
    )


# --- load against the HDD baseline -------------------------------------------------------------
