"""The scrub signal's panels: PGs overdue for scrub and deep scrub by Ceph's own rule, the oldest
stamp, scrubs running and completing, the backlog's clearance time, and deep-scrub storms against
the S3 ops they cut [004, 001, 003]."""

from __future__ import annotations

from ...panel_queries import CL, S3_OPS, m, rate
from ...panel_spec import (
    CRIT,
    DAY,
    NONZERO_BAD,
    OK,
    WARN,
    Panel,
    Query,
    Step,
    dashed,
    right_axis,
    runbook,
    st,
    ts,
)

NOT_CLEARING = runbook("CephScaleScrubBacklogNotClearing")
GROWING = runbook("CephScaleScrubBacklogGrowing")
STORM = runbook("CephScaleDeepScrubStorm")
KIND = f"{CL} {{{{kind}}}}"
OVERDUE_SHARE: list[Step] = [(None, OK), (0.01, WARN), (0.1, CRIT)]
CLEAR_TIME: list[Step] = [(None, OK), (DAY, WARN), (7 * DAY, CRIT)]
STORM_TITLE = "PGs scrubbing now vs S3 ops/s"


def overdue_share_glance() -> Panel:
    return st(
        "PGs overdue for (deep) scrub",
        "percentunit",
        [Query(m("ceph_scale_pg_scrub_overdue_ratio"), KIND)],
        desc="Share of PGs past Ceph's own not-scrubbed-in-time line. 21,070 of 21,760 in the 10B test [004].",
        runbook=NOT_CLEARING,
        thresholds=OVERDUE_SHARE,
    )


def overdue_and_scrubbing() -> Panel:
    return ts(
        "PGs overdue for scrub / deep scrub",
        "none",
        [
            Query(m("ceph_scale_pg_scrub_overdue"), f"{CL} overdue {{{{kind}}}}"),
            Query(m("ceph_scale_pg_scrubbing"), f"{CL} scrubbing now {{{{kind}}}}"),
        ],
        desc="Overdue PGs by Ceph's rule, and PGs scrubbing now.",
        runbook=NOT_CLEARING,
        min_val=0,
    )


def overdue_scrub() -> Panel:
    return st(
        "PGs overdue for scrub",
        "none",
        [Query(m("ceph_scale_pg_scrub_overdue", 'kind="scrub"'), CL)],
        desc="PG_NOT_SCRUBBED's count, by Ceph's own rule.",
        runbook=NOT_CLEARING,
        thresholds=NONZERO_BAD,
    )


def overdue_deep_scrub() -> Panel:
    return st(
        "PGs overdue for deep scrub",
        "none",
        [Query(m("ceph_scale_pg_scrub_overdue", 'kind="deep_scrub"'), CL)],
        desc="PG_NOT_DEEP_SCRUBBED's count. 19,494 of 21,760 in the 10B test [004].",
        runbook=NOT_CLEARING,
        thresholds=NONZERO_BAD,
    )


def overdue_share() -> Panel:
    return st(
        "Share of PGs overdue",
        "percentunit",
        [Query(m("ceph_scale_pg_scrub_overdue_ratio"), KIND)],
        desc="Overdue / all PGs, by kind.",
        runbook=NOT_CLEARING,
        thresholds=OVERDUE_SHARE,
    )


def oldest_stamp() -> Panel:
    return st(
        "Oldest stamp",
        "s",
        [Query(m("ceph_scale_pg_scrub_oldest_age_seconds"), KIND)],
        desc="Age of the oldest last_scrub_stamp / last_deep_scrub_stamp.",
        runbook=NOT_CLEARING,
    )


def scrubbing_now() -> Panel:
    return st(
        "Scrubbing now",
        "none",
        [Query(m("ceph_scale_pg_scrubbing"), KIND)],
        desc="PGs in scrubbing (deep_scrub: scrubbing+deep) state now.",
        runbook=STORM,
    )


def time_to_clear() -> Panel:
    return st(
        "Time to clear the backlog",
        "s",
        [Query(m("ceph_scale_pg_scrub_backlog_clear_seconds"), KIND)],
        desc="Overdue PGs / completion rate over scrub_rate_window_seconds; +Inf (shown ∞) when nothing "
        "completes, 0 without backlog.",
        runbook=NOT_CLEARING,
        thresholds=CLEAR_TIME,
        graph=False,
    )


def overdue_vs_pgs() -> Panel:
    return ts(
        "PGs overdue, and all PGs",
        "none",
        [
            Query(m("ceph_scale_pg_scrub_overdue"), f"{CL} overdue {{{{kind}}}}"),
            Query(m("ceph_scale_pgs"), f"{CL} PGs"),
        ],
        desc="Overdue PGs by kind against the PG count (dashed).",
        runbook=GROWING,
        overrides=[dashed(".* PGs$", "text")],
        min_val=0,
    )


def oldest_vs_overdue_line() -> Panel:
    return ts(
        "Oldest stamp age vs the overdue line",
        "s",
        [
            Query(m("ceph_scale_pg_scrub_oldest_age_seconds"), f"{CL} oldest {{{{kind}}}}"),
            Query(m("ceph_scale_pg_scrub_overdue_after_seconds"), f"{CL} overdue after ({{{{kind}}}})"),
        ],
        desc="Dashed: the stamp age from which a PG counts as overdue (interval x (1 + mon_warn ratio)). "
        "Log scale: the scrub and deep-scrub lines are days apart.",
        runbook=NOT_CLEARING,
        overrides=[dashed(".*overdue after.*")],
        log=10,
    )


def completed_rate() -> Panel:
    return ts(
        "Scrubs completed per second",
        "ops",
        [Query(f"max by (cluster, kind) ({rate('ceph_scale_pg_scrubs_completed_total')})", KIND)],
        desc="PGs whose stamp moved forward, per second.",
        runbook=NOT_CLEARING,
        min_val=0,
    )


def time_to_clear_trend() -> Panel:
    return ts(
        "Time to clear the backlog at the current rate (log scale)",
        "s",
        [Query(m("ceph_scale_pg_scrub_backlog_clear_seconds"), KIND)],
        desc="Overdue PGs / completion rate. Lines: one day, one week; log scale so that minutes and "
        "weeks both read. Gaps: no backlog (0) or nothing completing (+Inf).",
        runbook=NOT_CLEARING,
        thresholds=CLEAR_TIME,
        log=10,
        soft_max=8 * DAY,
    )


def storm() -> Panel:
    return ts(
        STORM_TITLE,
        "none",
        [Query(m("ceph_scale_pg_scrubbing"), f"{CL} scrubbing {{{{kind}}}}"), Query(S3_OPS, f"{CL} S3 {{{{op}}}}")],
        desc="At ~500 M objects deep scrubbing 'at a high rate' under heavy PUTs cut PUT and GET ops "
        "[001, 003]: many deep scrubs while S3 ops drop is a storm; lower osd_scrub priority / rate. Red "
        "regions: S3 plunges, titled with their likely cause.",
        runbook=STORM,
        overrides=[right_axis(".* S3 .*", "ops", "S3 ops/s")],
        axis_label="PGs",
        min_val=0,
        w=24,
    )
