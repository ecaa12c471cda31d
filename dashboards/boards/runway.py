"""The runway board: when each study limit will be reached, and what to add (docs/runway.md)."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ..board_frame import new_board
from ..common import CRIT, INFO, NONZERO_BAD, OK, WARN, C, Q, m
from ..panel_kinds import bars, dashed, st, tbl, ts
from ..runbooks import RB
from .base import CL, DAY, config

RUNWAY = f"min by (cluster, limit) (ceph_scale_runway_seconds{{{C}}})"
# +Inf (fitted, not growing) would flatten every other bar and line: drawn at the cap.
YEARS_10 = 10 * 365 * DAY
YEARS_2 = 2 * 365 * DAY
# Red under a month, yellow under the default target date (180 days), green past it.
TARGET = [(None, CRIT), (30 * DAY, WARN), (180 * DAY, OK)]
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
WITHHELD: dict[float, str] = {WITHHELD_VALUE: "withheld: fit too short or unsteady (Plan caveats)"}


def withheld(figures: str) -> str:
    """1 per cluster while any plan figure matching the regex `figures` is withheld."""
    matchers = ('caveat="withheld"', f'figure=~"{figures}"')
    return f"max by (cluster) ({m('ceph_scale_plan_caveat', *matchers)})"


def to_add(plan: str, now: str, figures: str) -> str:
    """What the plan asks for beyond what runs now, never negative; WITHHELD_VALUE while any of
    `figures` (a regex of plan_caveat's figure) is withheld, rather than the figures left."""
    add = f"clamp_min(max by (cluster) ({m(plan)}) - on (cluster) max by (cluster) ({m(now)}), 0)"
    return f"({add} unless on (cluster) {withheld(figures)}) or on (cluster) ({WITHHELD_VALUE} * {withheld(figures)})"


def runway():
    panels = [
        db.Row("Runway to the target date"),
        bars(
            "Runway per limit",
            "s",
            [Q(f"clamp_max({RUNWAY}, {YEARS_10:g})", f"{CL} {{{{limit}}}}", instant=True)],
            desc="Time until each study limit is reached at the growth fitted over the exporter's own history; "
            "0: reached now; not growing: drawn at 10 years. " + LIMITS,
            runbook=RB["runway"],
            thresholds=TARGET,
            w=10,
            h=9,
        ),
        tbl(
            "How sure: the fit behind each runway",
            "s",
            [
                Q(RUNWAY, "", instant=True, fmt="table"),
                Q(
                    f"max by (cluster, limit) ({m('ceph_scale_runway_fit_span_seconds')})",
                    "",
                    instant=True,
                    fmt="table",
                ),
                Q(f"max by (cluster, limit) ({m('ceph_scale_runway_growth_steady')})", "", instant=True, fmt="table"),
                Q(f"min by (cluster, limit) ({m('ceph_scale_runway_lower_seconds')})", "", instant=True, fmt="table"),
                Q(f"max by (cluster, limit) ({m('ceph_scale_runway_upper_seconds')})", "", instant=True, fmt="table"),
            ],
            desc="The history each runway's growth was fitted over, whether its older and newer thirds grow "
            "alike (1: steady; 0: a runway on unsteady growth is a guess), and the 95 % interval of the runway: "
            "earliest and latest (latest +Inf: the interval allows no growth). No span: reached now, no fit needed.",
            runbook=RB["runway"],
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
        ),
        st(
            "Target date",
            "s",
            [Q(config("runway_target_seconds"), CL)],
            desc="runway_target_seconds: the date every runway must reach and the plan holds to (180 days by default).",
            runbook=RB["runway"],
            w=4,
            h=9,
            graph=False,
        ),
        db.Row("What to add to hold it, a failure domain lost [004]"),
        st(
            "HDD OSDs to add",
            "none",
            [Q(to_add("ceph_scale_plan_hdd_osds", "ceph_scale_hdd_osds", "hdd_by_fill|hdd_by_ops"), CL)],
            desc="The larger of the plan by fill (raw use under the fill target once the failure domain's "
            "capacity is gone) and by ops (60 PUT / 90 GET ops/s, 34 / 37 MB/s per HDD with the study's drop "
            "for that share down: one node of six cost 21 % of PUTs [004]), minus the HDD OSDs up and in. "
            "'withheld': the growth behind either was fitted over too short a history for the target date, or "
            "is not steady (Plan caveats): no number is shown for it.",
            runbook=RB["runway"],
            thresholds=NONZERO_BAD,
            mapped=WITHHELD,
        ),
        st(
            "RGW instances to add",
            "none",
            [Q(to_add("ceph_scale_plan_rgw_instances", "ceph_scale_rgw_instances", "rgw_instances"), CL)],
            desc="RGWs for the S3 load at the target date at ~1,000 PUT / 500 GET ops/s each [000], the failure "
            "domain's share of them lost (two per node [000, 004]), minus those running. 'withheld': the load "
            "growth behind it is too short or unsteady a fit (Plan caveats).",
            runbook=RB["runway"],
            thresholds=NONZERO_BAD,
            mapped=WITHHELD,
        ),
        st(
            "OSDs whose DB spills by then",
            "none",
            [Q(m("ceph_scale_plan_db_osds_spilling"), CL)],
            desc="OSDs spilling now or whose DB use passes the RocksDB levels that fit whole by the target date: "
            "296 of 318 spilled at 10B [004].",
            runbook=RB["runway"],
            thresholds=NONZERO_BAD,
        ),
        st(
            "Buckets to pre-shard",
            "none",
            [Q(m("ceph_scale_plan_buckets_to_preshard"), CL)],
            desc="Buckets reaching their per-shard limit by the target date; each dynamic reshard was a "
            "'sudden plunge' in throughput, pre-sharded buckets were deterministic [000].",
            runbook=RB["runway"],
            thresholds=[(None, OK), (1, WARN)],
        ),
        st(
            "OSDs the plan can lose",
            "none",
            [Q(m("ceph_scale_plan_failure_domain_osds"), CL)],
            desc="The failure domain the plan survives: the largest host's HDD OSDs (plan_failure_domain_osds).",
            runbook=RB["runway"],
            graph=False,
        ),
        st(
            "RocksDB level base for the planned DB",
            "bytes",
            [Q(m("ceph_scale_plan_rocksdb_level_base_bytes"), CL)],
            desc="max_bytes_for_level_base that makes the whole levels fitting the planned DB fill it: 'increase "
            "max_bytes_for_level_base such that you can get most of your 4 %' [004].",
            runbook=RB["runway"],
            graph=False,
        ),
        db.Row("Over time"),
        ts(
            "Runways vs the target date",
            "s",
            [
                Q(f"clamp_max({RUNWAY}, {YEARS_2:g})", f"{CL} {{{{limit}}}}"),
                Q(config("runway_target_seconds"), f"{CL} target {{{{option}}}}"),
            ],
            desc="Each runway over time (drawn up to two years; not growing: at two years). Dashed: the target "
            "date in force. A runway that falls is a limit coming closer.",
            runbook=RB["runway"],
            overrides=[dashed(".* target .*")],
            min_val=0,
        ),
        ts(
            "HDD OSDs: up and in, and the plan by fill and by ops",
            "none",
            [
                Q(f"max by (cluster) ({m('ceph_scale_hdd_osds')})", f"{CL} now"),
                Q(f"max by (cluster, by) ({m('ceph_scale_plan_hdd_osds')})", f"{CL} plan by {{{{by}}}}"),
            ],
            desc="The plan holds the target date with a failure domain lost: by fill at the fitted raw growth, by "
            "ops at the fitted S3 load growth against the single-HDD baseline [004].",
            runbook=RB["runway"],
            min_val=0,
        ),
        ts(
            "RGW instances: running and planned",
            "none",
            [
                Q(f"max by (cluster) ({m('ceph_scale_rgw_instances')})", f"{CL} now"),
                Q(f"max by (cluster) ({m('ceph_scale_plan_rgw_instances')})", f"{CL} plan"),
            ],
            desc="The 1B study measured ~1,000 PUT / 500 GET ops/s of 64 KB per RGW [000]; the 10B cluster ran "
            "~1,483 PUT/s per RGW [004]: set rgw_put_ops_per_instance to what yours sustain.",
            runbook=RB["runway"],
            min_val=0,
            w=8,
        ),
        bars(
            "DB per OSD the plan asks for",
            "bytes",
            [
                Q(
                    f"max by (cluster, rule) ({m('ceph_scale_plan_db_bytes_per_osd')})",
                    f"{CL} {{{{rule}}}}",
                    instant=True,
                )
            ],
            desc="levels: the next whole RocksDB level boundary above the DB use at the target date (L1..L4 = "
            "298 GB, L1..L5 = 2.98 TB with the default 256 MB base [004]); share: bluefs_db_share_min_ratio (4 %) "
            "of the data device [004].",
            runbook=RB["runway"],
            thresholds=[(None, INFO)],
            w=8,
        ),
        tbl(
            "Pools that need more PGs",
            "none",
            [Q(f"max by (cluster, pool_id, name) ({m('ceph_scale_plan_pool_pgs')})", "", instant=True, fmt="table")],
            desc="pg_num for the planned OSDs: mon_target_pg_per_osd spread by each pool's share of raw use, over "
            "its width, to a power of two.",
            runbook=RB["runway"],
            columns={"A": ("planned PGs", "none")},
            keep=["cluster", "name", "pool_id"],
            sort_by="planned PGs",
            w=8,
        ),
        tbl(
            "Buckets to pre-shard, soonest first",
            "none",
            [
                Q(
                    f"max by (cluster, bucket, tenant) ({m('ceph_scale_plan_bucket_shards')})",
                    "",
                    instant=True,
                    fmt="table",
                )
            ],  # fmt: skip
            desc="The plan_top_buckets buckets reaching their per-shard limit soonest, with the shards that keep "
            "their objects at the target date at rgw_preshard_fill_ratio of the limit [000].",
            runbook=RB["runway"],
            columns={"A": ("shards", "none")},
            keep=["cluster", "tenant", "bucket"],
            sort_by="shards",
            w=16,
        ),
        tbl(
            "Plan caveats",
            "none",
            [Q(f"max by (cluster, figure, caveat) ({m('ceph_scale_plan_caveat')})", "", instant=True, fmt="table")],
            desc="withheld: the growth behind the figure was fitted over less than 1/plan_max_extrapolation of "
            "the target date, or is not steady: the plan prints no number for it and its headline here says "
            "'withheld'; its graph still draws it, bounded. bounded: the figure was held to a physical or Ceph "
            "limit (an HDD's write rate, the data device, the OSDs' ops, mon_max_pg_per_osd, "
            "rgw_max_dynamic_shards); docs/runway.md.",
            runbook=RB["runway"],
            columns={"A": ("set", "none")},
            keep=["cluster", "figure", "caveat"],
            sort_by="figure",
            w=8,
        ),
    ]
    return new_board(
        "runway",
        "Ceph scale: runway and sizing",
        "When each study limit will be reached at the fitted growth, how sure that is, and what to add to hold "
        "the target date with a failure domain lost (docs/runway.md) [004, 000, 001].",
        panels,
        time_from="now-7d",
    )
