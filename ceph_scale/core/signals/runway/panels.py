"""The runway signal's panels: when each study limit will be reached at the fitted growth, how sure
that is, and what to add to hold the target date with a failure domain lost (docs/runway.md)
[004, 000, 001]."""

from __future__ import annotations

from ...config import Thresholds
from ...panel_queries import CL, PICKED_POOLS, C, config, m
from ...panel_spec import (
    CRIT,
    DAY,
    INFO,
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


# A headline figure the plan withholds (a short or unsteady fit behind it) reads as this value,
# which the stat maps to a word: no number is shown for it.
WITHHELD_VALUE = -1
WITHHELD: dict[float, str] = {WITHHELD_VALUE: "withheld: short or unsteady fit"}


def withheld(figures: str) -> str:
    """1 per cluster while any plan figure matching the regex `figures` is withheld."""
    matchers = ('caveat="withheld"', f'figure=~"{figures}"')
    return f"max by (cluster) ({m('ceph_scale_plan_caveat', *matchers)})"


def or_withheld(figure: str, figures: str) -> str:
    """`figure` (one series per cluster), or WITHHELD_VALUE while any of `figures` is withheld."""
    return (
        f"({figure} unless on (cluster) {withheld(figures)}) or on (cluster) ({WITHHELD_VALUE} * {withheld(figures)})"
    )


def to_add(plan: str, now: str, figures: str) -> str:
    """What the plan asks for beyond what runs now, never negative; WITHHELD_VALUE while any of
    `figures` (a regex of plan_caveat's figure) is withheld, rather than the figures left."""
    return or_withheld(
        f"clamp_min(max by (cluster) ({m(plan)}) - on (cluster) max by (cluster) ({m(now)}), 0)", figures
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


def hdd_osds_to_add() -> Panel:
    return st(
        "HDD OSDs to add",
        "none",
        [Query(to_add("ceph_scale_plan_hdd_osds", "ceph_scale_hdd_osds", "hdd_by_fill|hdd_by_ops"), CL)],
        desc="The larger of the plan by fill (raw use under the fill target once the failure domain's "
        "capacity is gone) and by ops (60 PUT / 90 GET ops/s, 34 / 37 MB/s per HDD with the study's drop "
        "for that share down: one node of six cost 21 % of PUTs [004]), minus the HDD OSDs up and in. "
        "'withheld': the growth behind either was fitted over too short a history for the target date, or "
        "is not steady (Plan caveats): no number is shown for it.",
        runbook=SHORT,
        thresholds=TO_ADD,
        mapped=WITHHELD,
    )


def rgw_instances_to_add() -> Panel:
    return st(
        "RGW instances to add",
        "none",
        [Query(to_add("ceph_scale_plan_rgw_instances", "ceph_scale_rgw_instances", "rgw_instances"), CL)],
        desc="RGWs for the S3 load at the target date at ~1,000 PUT / 500 GET ops/s each [000], the failure "
        "domain's share of them lost (two per node [000, 004]), minus those running. 'withheld': the load "
        "growth behind it is too short or unsteady a fit (Plan caveats).",
        runbook=SHORT,
        thresholds=TO_ADD,
        mapped=WITHHELD,
    )


def osds_spilling_by_then() -> Panel:
    return st(
        "OSDs whose DB spills by then",
        "none",
        [Query(or_withheld(f"max by (cluster) ({m('ceph_scale_plan_db_osds_spilling')})", "db_per_osd"), CL)],
        desc="OSDs spilling now or whose DB use passes the RocksDB levels that fit whole by the target date: "
        "296 of 318 spilled at 10B [004]. 'withheld': the DB growth behind it is too short or unsteady a fit.",
        runbook=SHORT,
        thresholds=TO_ADD,
        mapped=WITHHELD,
    )


def buckets_to_preshard() -> Panel:
    return st(
        "Buckets to pre-shard",
        "none",
        [Query(or_withheld(f"max by (cluster) ({m('ceph_scale_plan_buckets_to_preshard')})", "bucket_shards"), CL)],
        desc="Buckets reaching their per-shard limit by the target date; each dynamic reshard was a "
        "'sudden plunge' in throughput, pre-sharded buckets were deterministic [000]. 'withheld': the bucket "
        "growth behind it is too short or unsteady a fit.",
        runbook=SHORT,
        thresholds=TO_ADD,
        mapped=WITHHELD,
    )


def osds_plan_can_lose() -> Panel:
    return st(
        "OSDs the plan can lose",
        "none",
        [Query(m("ceph_scale_plan_failure_domain_osds"), CL)],
        desc="The failure domain the plan survives: the largest host's HDD OSDs (plan_failure_domain_osds).",
        runbook=SHORT,
        graph=False,
    )


def level_base_for_planned_db() -> Panel:
    return st(
        "RocksDB level base for the planned DB",
        "bytes",
        [Query(or_withheld(f"max by (cluster) ({m('ceph_scale_plan_rocksdb_level_base_bytes')})", "db_per_osd"), CL)],
        desc="max_bytes_for_level_base that makes the whole levels fitting the planned DB fill it: 'increase "
        "max_bytes_for_level_base such that you can get most of your 4 %' [004]. 'withheld': the DB growth "
        "behind the planned DB is too short or unsteady a fit.",
        runbook=SHORT,
        graph=False,
        mapped=WITHHELD,
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


def hdd_osds_vs_plan() -> Panel:
    return ts(
        "HDD OSDs: up and in, and the plan by fill and by ops",
        "none",
        [
            Query(f"max by (cluster) ({m('ceph_scale_hdd_osds')})", f"{CL} now"),
            Query(f"max by (cluster, by) ({m('ceph_scale_plan_hdd_osds')})", f"{CL} plan by {{{{by}}}}"),
        ],
        desc="The plan holds the target date with a failure domain lost: by fill at the fitted raw growth, by "
        "ops at the fitted S3 load growth against the single-HDD baseline [004].",
        runbook=SHORT,
        min_val=0,
    )


def rgw_instances_vs_plan() -> Panel:
    return ts(
        "RGW instances: running and planned",
        "none",
        [
            Query(f"max by (cluster) ({m('ceph_scale_rgw_instances')})", f"{CL} now"),
            Query(f"max by (cluster) ({m('ceph_scale_plan_rgw_instances')})", f"{CL} plan"),
        ],
        desc="The 1B study measured ~1,000 PUT / 500 GET ops/s of 64 KB per RGW [000]; the 10B cluster ran "
        "~1,483 PUT/s per RGW [004]: set rgw_put_ops_per_instance to what yours sustain.",
        runbook=SHORT,
        min_val=0,
        w=8,
    )


def db_per_osd_planned() -> Panel:
    return bars(
        "DB per OSD the plan asks for",
        "bytes",
        [
            Query(
                f"max by (cluster, rule) ({m('ceph_scale_plan_db_bytes_per_osd')})",
                f"{CL} {{{{rule}}}}",
                instant=True,
            )
        ],
        desc="levels: the next whole RocksDB level boundary above the DB use at the target date (L1..L4 = "
        "298 GB, L1..L5 = 2.98 TB with the default 256 MB base [004]); share: bluefs_db_share_min_ratio (4 %) "
        "of the data device [004].",
        runbook=SHORT,
        thresholds=[(None, INFO)],
        w=8,
    )


def pools_needing_pgs() -> Panel:
    return tbl(
        "Pools that need more PGs",
        "none",
        [Query(f"max by (cluster, pool_id, name) ({m('ceph_scale_plan_pool_pgs', PICKED_POOLS)})", "", True, "table")],
        desc="pg_num for the planned OSDs: mon_target_pg_per_osd spread by each pool's share of raw use, over "
        "its width, to a power of two.",
        runbook=SHORT,
        columns={"A": ("planned PGs", "none")},
        keep=["cluster", "name", "pool_id"],
        sort_by="planned PGs",
        w=8,
    )


def buckets_to_preshard_soonest() -> Panel:
    return tbl(
        "Buckets to pre-shard, soonest first",
        "none",
        [
            Query(
                f"max by (cluster, bucket, tenant) ({m('ceph_scale_plan_bucket_shards')})",
                "",
                instant=True,
                fmt="table",
            )
        ],  # fmt: skip
        desc="The plan_top_buckets buckets reaching their per-shard limit soonest, with the shards that keep "
        "their objects at the target date at rgw_preshard_fill_ratio of the limit [000].",
        runbook=SHORT,
        columns={"A": ("shards", "none")},
        keep=["cluster", "tenant", "bucket"],
        sort_by="shards",
        w=16,
    )


def plan_caveats() -> Panel:
    return tbl(
        "Plan caveats",
        "none",
        [Query(f"max by (cluster, figure, caveat) ({m('ceph_scale_plan_caveat')})", "", instant=True, fmt="table")],
        desc="withheld: the growth behind the figure was fitted over less than 1/plan_max_extrapolation of "
        "the target date, or is not steady: the plan prints no number for it and its headline here says "
        "'withheld'; its graph still draws it, bounded. bounded: the figure was held to a physical or Ceph "
        "limit (an HDD's write rate, the data device, the OSDs' ops, mon_max_pg_per_osd, "
        "rgw_max_dynamic_shards); docs/runway.md.",
        runbook=SHORT,
        columns={"A": ("set", "none")},
        keep=["cluster", "figure", "caveat"],
        sort_by="figure",
        w=8,
    )
