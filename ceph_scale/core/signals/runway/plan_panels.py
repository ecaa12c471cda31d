"""The plan's panels: what to add to hold the target date with a failure domain lost, and the
plan over time; a figure from a short or unsteady fit says so where it is shown (docs/runway.md)
[004, 000, 001]."""

from __future__ import annotations

from ...panel_queries import CL, PICKED_POOLS, m
from ...panel_spec import INFO, Panel, Query, bars, coloured, st, tbl, ts
from .panels import SHORT, TO_ADD

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


# Where a withheld figure is still drawn (its graph, its table row: bounded, with its history), its
# series carries this label, shown in its legend or its table's column, and is drawn grey.
FIT_LABEL = "fit"
FIT_WITHHELD = "withheld: short or unsteady fit, a guess"
GREY_WHEN_WITHHELD = coloured(f".*{FIT_WITHHELD}.*", "text")
# The bucket plan, withheld, recommends the shards for today's objects: a figure, not a guess.
TODAYS_OBJECTS = "for today's objects: growth withheld"


def said_if_withheld(figure: str, withheld_expr: str, on: str = "cluster", fit: str = FIT_WITHHELD) -> str:
    """`figure`, its series labelled fit=`fit` where `withheld_expr` (matched on `on`) says the
    growth behind it is withheld, unlabelled elsewhere: one query, drawn whichever the fit."""
    return (
        f'label_replace({figure} and on ({on}) {withheld_expr}, "{FIT_LABEL}", "{fit}", "", "")'
        f" or ({figure} unless on ({on}) {withheld_expr})"
    )


def hdd_withheld_by() -> str:
    """1 per (cluster, by) while the HDD plan by fill or by ops is withheld (no capture group:
    Grafana would read `$1` as a variable)."""
    return " or ".join(f'label_replace({withheld(f"hdd_by_{by}")}, "by", "{by}", "", "")' for by in ("fill", "ops"))


def to_add(plan: str, now: str, figures: str) -> str:
    """What the plan asks for beyond what runs now, never negative; WITHHELD_VALUE while any of
    `figures` (a regex of plan_caveat's figure) is withheld, rather than the figures left."""
    return or_withheld(
        f"clamp_min(max by (cluster) ({m(plan)}) - on (cluster) max by (cluster) ({m(now)}), 0)", figures
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


def hdd_osds_vs_plan() -> Panel:
    return ts(
        "HDD OSDs: up and in, and the plan by fill and by ops",
        "none",
        [
            Query(f"max by (cluster) ({m('ceph_scale_hdd_osds')})", f"{CL} now"),
            Query(
                said_if_withheld(
                    f"max by (cluster, by) ({m('ceph_scale_plan_hdd_osds')})", f"({hdd_withheld_by()})", "cluster, by"
                ),
                f"{CL} plan by {{{{by}}}} {{{{{FIT_LABEL}}}}}",
            ),
        ],
        desc="The plan holds the target date with a failure domain lost: by fill at the fitted raw growth, by "
        "ops at the fitted S3 load growth against the single-HDD baseline [004]. Grey, "
        f"'{FIT_WITHHELD}': the growth behind it was fitted over too short a history for the target date, "
        "or is not steady (Plan caveats); drawn, bounded, for its history.",
        runbook=SHORT,
        overrides=[GREY_WHEN_WITHHELD],
        min_val=0,
    )


def rgw_instances_vs_plan() -> Panel:
    return ts(
        "RGW instances: running and planned",
        "none",
        [
            Query(f"max by (cluster) ({m('ceph_scale_rgw_instances')})", f"{CL} now"),
            Query(
                said_if_withheld(f"max by (cluster) ({m('ceph_scale_plan_rgw_instances')})", withheld("rgw_instances")),
                f"{CL} plan {{{{{FIT_LABEL}}}}}",
            ),
        ],
        desc="The 1B study measured ~1,000 PUT / 500 GET ops/s of 64 KB per RGW [000]; the 10B cluster ran "
        f"~1,483 PUT/s per RGW [004]: set rgw_put_ops_per_instance to what yours sustain. Grey, '{FIT_WITHHELD}': "
        "the load growth behind the plan is too short or unsteady a fit.",
        runbook=SHORT,
        overrides=[GREY_WHEN_WITHHELD],
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
        "of the data device [004]. While the DB growth is too short or unsteady a fit, levels is left out: "
        "the 4 % rule needs no fit.",
        runbook=SHORT,
        thresholds=[(None, INFO)],
        w=8,
    )


def pools_needing_pgs() -> Panel:
    return tbl(
        "Pools that need more PGs",
        "none",
        [
            Query(
                said_if_withheld(
                    f"max by (cluster, pool_id, name) ({m('ceph_scale_plan_pool_pgs', PICKED_POOLS)})",
                    withheld("pool_pgs"),
                ),
                "",
                True,
                "table",
            )
        ],
        desc="pg_num for the OSDs the plan shows (a withheld count adds none): mon_target_pg_per_osd spread by "
        "each pool's share of raw use, over its width, to a power of two, all pools held to mon_max_pg_per_osd. "
        f"fit '{FIT_WITHHELD}': an exporter before 2026-12-05 sized them for HDDs it withheld.",
        runbook=SHORT,
        columns={"A": ("planned PGs", "none")},
        keep=["cluster", "name", "pool_id", FIT_LABEL],
        sort_by="planned PGs",
        w=8,
    )


def buckets_to_preshard_soonest() -> Panel:
    return tbl(
        "Buckets to pre-shard, soonest first",
        "none",
        [
            Query(
                said_if_withheld(
                    f"max by (cluster, bucket, tenant) ({m('ceph_scale_plan_bucket_shards')})",
                    withheld("bucket_shards"),
                    fit=TODAYS_OBJECTS,
                ),
                "",
                instant=True,
                fmt="table",
            )
        ],  # fmt: skip
        desc="The plan_top_buckets buckets reaching their per-shard limit soonest, with the shards that keep "
        "their objects at the target date at rgw_preshard_fill_ratio of the limit [000]. fit: while their "
        f"growth is too short or unsteady a fit, the shards are for today's objects ('{TODAYS_OBJECTS}'), "
        "as the RGW board's.",
        runbook=SHORT,
        columns={"A": ("shards", "none")},
        keep=["cluster", "tenant", "bucket", FIT_LABEL],
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
        "'withheld'; its graph and table still show it, bounded, labelled 'withheld' (a grey line, a fit column; "
        "the bucket plan: today's shards). bounded: the figure was held to a physical or Ceph "
        "limit (an HDD's write rate, the data device, the OSDs' ops, mon_max_pg_per_osd, "
        "rgw_max_dynamic_shards); docs/runway.md.",
        runbook=SHORT,
        columns={"A": ("set", "none")},
        keep=["cluster", "figure", "caveat"],
        sort_by="figure",
        w=8,
    )
