"""The runway signal's panels: when each study limit will be reached at the fitted growth, how sure
that is, and what to add to hold the target date with a failure domain lost (docs/runway.md)
[004, 000, 001]."""

from __future__ import annotations

from ...config import Thresholds
from ...panel_queries import CL, C, config, m
from ...panel_spec import (
    CRIT,
    DAY,
    OK,
    WARN,
    Panel,
    Query,
    Step,
    bars,
    coloured,
    dashed,
    runbook,
    st,
    tbl,
    ts,
)

SHORT = runbook("CephScaleRunwayShort")
RUNWAY = f"min by (cluster, limit) (ceph_scale_runway_seconds{{{C}}})"
# +Inf (fitted, not growing) would flatten every other bar and line: drawn at the cap.
YEARS_10 = 10 * 365 * DAY
YEARS_2 = 2 * 365 * DAY
# Red under a month, yellow under the target date (runway_target_seconds), green past it.
TARGET: list[Step] = [(None, CRIT), (30 * DAY, WARN), (float(Thresholds().runway_target_seconds), OK)]
# A plan figure is something to add, not a fault: yellow while there is any, never red.
TO_ADD: list[Step] = [(None, OK), (1, WARN)]
# A runway fitted over less than 1/plan_max_extrapolation of the target date (the plan withholds
# its figures then), or on unsteady growth, is a guess: the bars say so in its name, in grey.
GUESS_NOTE = "short or unsteady fit, a guess"
SHORT_FIT = (
    f"max by (cluster, limit) ({m('ceph_scale_runway_fit_span_seconds')})"
    f" * on (cluster) group_left () {config('plan_max_extrapolation')}"
    f" < on (cluster) group_left () {config('runway_target_seconds')}"
)
UNSTEADY = f"max by (cluster, limit) ({m('ceph_scale_runway_growth_steady')}) == 0"
GUESSES = f"({SHORT_FIT}) or ({UNSTEADY})"


def flagged(runway: str) -> list[Query]:
    """`runway` per (cluster, limit) as two queries: the limits whose fit is short or unsteady
    (legend suffixed with GUESS_NOTE; the table beside says which), and the rest."""
    limit = f"{CL} {{{{limit}}}}"
    return [
        Query(f"{runway} and on (cluster, limit) ({GUESSES})", f"{limit} ({GUESS_NOTE})", instant=True),
        Query(f"{runway} unless on (cluster, limit) ({GUESSES})", limit, instant=True),
    ]


LIMITS = (
    "fill_cluster / fill_osd: raw fill at fill_target_ratio (80 % [001]), cluster and fullest OSD; "
    "db_levels: DB use past the RocksDB levels that fit whole (L5 did not on the 10B cluster [004]); "
    "load_hdd: S3 load per HDD OSD at 60 PUT / 90 GET ops/s or 34 / 37 MB/s [004]; load_rgw: per RGW at "
    "~1,000 PUT / 500 GET ops/s [000]; scrub: scrub work filling the scrub slots (21,070 of 21,760 PGs late "
    "at 10B [004]); shard: the next bucket at its per-shard limit [000]."
)


def runway_per_limit() -> Panel:
    return bars(
        "Runway per limit",
        "s",
        flagged(f"clamp_max({RUNWAY}, {YEARS_10:g})"),
        desc="Time until each study limit is reached at the growth fitted over the exporter's own history; "
        f"0: reached now; not growing: drawn at 10 years. Grey, '{GUESS_NOTE}': fitted over less than "
        "1/plan_max_extrapolation of the target date, or the older and newer thirds of the history grow "
        "apart; the table beside says which, with the 95 % interval of each. " + LIMITS,
        runbook=SHORT,
        thresholds=TARGET,
        overrides=[coloured(f".*\\({GUESS_NOTE}\\)$", "text")],
        w=10,
        h=9,
    )


def fit_behind_runways() -> Panel:
    return tbl(
        "How sure: the fit behind each runway",
        "s",
        [
            Query(RUNWAY, "", instant=True, fmt="table"),
            Query(
                f"max by (cluster, limit) ({m('ceph_scale_runway_fit_span_seconds')})",
                "",
                instant=True,
                fmt="table",
            ),
            Query(f"max by (cluster, limit) ({m('ceph_scale_runway_growth_steady')})", "", instant=True, fmt="table"),
            Query(f"min by (cluster, limit) ({m('ceph_scale_runway_lower_seconds')})", "", instant=True, fmt="table"),
            Query(f"max by (cluster, limit) ({m('ceph_scale_runway_upper_seconds')})", "", instant=True, fmt="table"),
        ],
        desc="The history each runway's growth was fitted over, whether its older and newer thirds grow "
        "alike (1: steady; 0: a runway on unsteady growth is a guess), and the 95 % interval of the runway: "
        "earliest and latest (latest +Inf: the interval allows no growth). No span: reached now, no fit needed.",
        runbook=SHORT,
        columns={
            "A": ("runway", "s"),
            "B": ("fitted over", "s"),
            "C": ("steady", "none"),
            "D": ("earliest", "s"),
            "E": ("latest", "s"),
        },
        keep=["cluster", "limit"],
        sort_by="runway",
        w=10,
        h=9,
    )


def target_date() -> Panel:
    return st(
        "Target date",
        "s",
        [Query(config("runway_target_seconds"), CL)],
        desc="runway_target_seconds: the date every runway must reach and the plan holds to (180 days by default).",
        runbook=SHORT,
        w=4,
        h=9,
        graph=False,
    )


def runways_vs_target() -> Panel:
    return ts(
        "Runways vs the target date",
        "s",
        [
            Query(f"clamp_max({RUNWAY}, {YEARS_2:g})", f"{CL} {{{{limit}}}}"),
            Query(config("runway_target_seconds"), f"{CL} target {{{{option}}}}"),
        ],
        desc="Each runway over time (drawn up to two years; not growing: at two years). Dashed: the target "
        "date in force. A runway that falls is a limit coming closer.",
        runbook=SHORT,
        overrides=[dashed(".* target .*")],
        min_val=0,
    )
