"""The spillover signal's panels: OSDs spilling BlueFS to the HDD, DB use against the RocksDB
levels that fit whole, DB size against the 4 % rule [004, 000], and BlueFS use against its share of the
main device (newer Ceph's BLUESTORE_BLUEFS_OVERSIZED)."""

from __future__ import annotations

from ...config import Thresholds
from ...panel_queries import CL, OSD, config, m, top
from ...panel_spec import CRIT, NONZERO_BAD, OK, SOON, WARN, Panel, Query, bars, dashed, right_axis, runbook, st, ts

STARTED = runbook("CephScaleBluefsSpilloverStarted")
SPREADING = runbook("CephScaleBluefsSpilloverSpreading")
DB_SHARE = runbook("CephScaleBluefsDbShareBelowMin")
DB_NEXT_LEVEL = runbook("CephScaleBluefsDbNextLevelSoon")
OVERSIZED = runbook("CephScaleBluefsOversized")
# A ratio's axis reaches at least twice its line's default, so the line sits mid-panel on a healthy
# cluster too (Grafana does not widen an axis for a series past its edge either way).
DB_SHARE_AXIS = 2 * Thresholds().bluefs_db_share_min_ratio
MAIN_DEVICE_AXIS = 2 * Thresholds().bluefs_warn_ratio


def spilling_osds_glance() -> Panel:
    return st(
        "OSDs spilling BlueFS to HDD",
        "none",
        [Query(m("ceph_scale_bluefs_spillover_osds"), CL)],
        desc="OSDs with BlueFS data on the slow device. 296 of 318 spilled in the 10B test [004].",
        runbook=STARTED,
        thresholds=NONZERO_BAD,
    )


def spilled_bytes_trend() -> Panel:
    return ts(
        "BlueFS bytes spilled to HDD",
        "bytes",
        [Query(m("ceph_scale_cluster_bluefs_spilled_bytes"), CL)],
        desc="BlueFS bytes on the slow device over all OSDs; 80+ GB per OSD in the 1B test [000].",
        runbook=STARTED,
        min_val=0,
    )


def most_spilled_osds() -> Panel:
    return bars(
        "Most spilled OSDs",
        "bytes",
        [Query(top(5, "ceph_scale_bluefs_spilled_bytes"), f"{CL} {{{{ceph_daemon}}}}", instant=True)],
        desc="BlueFS bytes on the slow device, per OSD.",
        runbook=STARTED,
        thresholds=NONZERO_BAD,
        w=6,
    )


def spilling_osds() -> Panel:
    return st(
        "OSDs spilling",
        "none",
        [Query(m("ceph_scale_bluefs_spillover_osds"), CL)],
        desc="OSDs with BlueFS bytes on the slow device (BLUEFS_SPILLOVER). 296 of 318 in the 10B test [004].",
        runbook=SPREADING,
        thresholds=NONZERO_BAD,
        w=6,
    )


def spilled_bytes() -> Panel:
    return st(
        "Bytes spilled (all OSDs)",
        "bytes",
        [Query(m("ceph_scale_cluster_bluefs_spilled_bytes"), CL)],
        desc="Sum of bluefs.slow_used_bytes.",
        runbook=STARTED,
        thresholds=[(None, OK), (1, CRIT)],
        w=6,
    )


def db_osds() -> Panel:
    return st(
        "OSDs with a DB device",
        "none",
        [Query(m("ceph_scale_bluefs_db_osds"), CL)],
        desc="OSDs whose BlueFS has a dedicated DB device (the per-OSD panels cover these).",
        runbook=STARTED,
        w=6,
    )


def db_share_below_min_osds() -> Panel:
    return st(
        "OSDs with DB below 4 % of the data device",
        "none",
        [Query(m("ceph_scale_bluefs_db_share_below_min_osds"), CL)],
        desc="The 10B test recommends DB >= 4 % of HDD capacity [004] (bluefs_db_share_min_ratio).",
        runbook=DB_SHARE,
        thresholds=NONZERO_BAD,
        w=6,
    )


def spilled_bytes_per_osd() -> Panel:
    return ts(
        "Spilled bytes per OSD",
        "bytes",
        [Query(m("ceph_scale_bluefs_spilled_bytes", OSD), f"{CL} {{{{ceph_daemon}}}}")],
        desc="bluefs.slow_used_bytes: RocksDB data on the HDD. Write ops fell as it grew in the 1B test [000].",
        runbook=STARTED,
        min_val=0,
        h=11,
    )


MAX_LEVELS = 10  # rocksdb_levels' upper bound (config.py)


def option(name: str) -> str:
    selector = m("ceph_scale_config", f'option="{name}"')
    return f"max by (cluster) ({selector})"


def level_boundaries() -> str:
    """Cumulative size of L1..Ln, base x (multiplier^n - 1) / (multiplier - 1), from the options in
    force (exact in float64 for every allowed value), one series per n the cluster considers
    (its `level` label, Ln): one query, so that it has data whatever rocksdb_levels is."""
    base, mult, levels = (
        option("rocksdb_level_base_bytes"),
        option("rocksdb_level_multiplier"),
        option("rocksdb_levels"),
    )
    return " or ".join(
        f"label_replace({base} * ({mult} ^ {n} - 1) / ({mult} - 1) and on (cluster) {levels} >= {n}, "
        f'"level", "L{n}", "", "")'
        for n in range(1, MAX_LEVELS + 1)
    )


def db_used_vs_levels() -> Panel:
    return ts(
        "DB used vs usable vs RocksDB level boundaries (log scale)",
        "bytes",
        [
            Query(m("ceph_scale_bluefs_db_used_bytes", OSD), f"{CL} {{{{ceph_daemon}}}} used"),
            Query(m("ceph_scale_bluefs_db_usable_bytes", OSD), f"{CL} {{{{ceph_daemon}}}} usable"),
            Query(m("ceph_scale_bluefs_db_size_bytes", OSD), f"{CL} {{{{ceph_daemon}}}} DB device"),
            Query(level_boundaries(), f"{CL} boundary L1..{{{{level}}}}"),
        ],
        desc="A RocksDB level goes on the DB device only if it fits whole, so usable = the sum of the "
        "levels that fit (L1 256 MB, L2 2.56 GB, L3 25.6 GB, L4 256 GB, ... [004]). Dashed red: cumulative "
        "level boundaries, from the RocksDB options in force. Once used passes usable, the next level spills "
        "to the HDD.",
        runbook=STARTED,
        log=10,
        overrides=[dashed(".*boundary.*", "red"), dashed(".*DB device")],
        # Three series per OSD and six boundaries: room for the legend.
        h=11,
    )


def db_used_of_usable() -> Panel:
    return ts(
        "DB use / usable DB space",
        "percentunit",
        [
            # Divided here, for the OSDs shown, rather than recorded for every OSD of a fleet.
            Query(
                f"max by (cluster, ceph_daemon) ({m('ceph_scale_bluefs_db_used_bytes', OSD)})"
                " / on (cluster, ceph_daemon) "
                f"(max by (cluster, ceph_daemon) ({m('ceph_scale_bluefs_db_usable_bytes', OSD)}) > 0)",
                f"{CL} {{{{ceph_daemon}}}}",
            )
        ],
        desc="Share of the usable (whole-level) DB space in use; past 100 % the next level cannot "
        "fit on the DB device. Lines: 80 % and 100 %.",
        runbook=DB_NEXT_LEVEL,
        thresholds=[(None, OK), (0.8, WARN), (1.0, CRIT)],
        min_val=0,
        soft_max=1,
    )


def db_share() -> Panel:
    return ts(
        "DB size as a share of the data device vs 4 %",
        "percentunit",
        [
            Query(m("ceph_scale_bluefs_db_share_ratio", OSD), f"{CL} {{{{ceph_daemon}}}}"),
            Query(config("bluefs_db_share_min_ratio"), f"{CL} minimum (bluefs_db_share_min_ratio)"),
        ],
        desc="DB device / data device; the 10B test's remedy was >= 4 % (its cluster had ~5.5 %) [004]. "
        "Dashed red: the configured minimum (bluefs_db_share_min_ratio, 4 %).",
        runbook=DB_SHARE,
        overrides=[dashed(".*minimum.*")],
        min_val=0,
        soft_max=DB_SHARE_AXIS,
    )


def next_level_time() -> Panel:
    return bars(
        "Time until the next RocksDB level no longer fits (soonest OSDs)",
        "s",
        [
            Query(
                f"bottomk(10, max by (cluster, ceph_daemon) ({m('ceph_scale_bluefs_db_next_level_seconds')}))",
                f"{CL} {{{{ceph_daemon}}}}",
                instant=True,
            )
        ],
        desc="At the fitted DB growth rate; 0 while spilling; absent when the DB is not growing.",
        runbook=DB_NEXT_LEVEL,
        thresholds=SOON,
        w=24,
        h=6,
    )


def main_device_share() -> Panel:
    return ts(
        "BlueFS use as a share of the main device vs bluefs_warn_ratio",
        "percentunit",
        [
            Query(m("ceph_scale_bluefs_main_device_share_ratio", OSD), f"{CL} {{{{ceph_daemon}}}}"),
            Query(m("ceph_scale_bluefs_oversized_osds"), f"{CL} OSDs past the ratio"),
            Query(config("bluefs_warn_ratio"), f"{CL} ratio (bluefs_warn_ratio)"),
        ],
        desc="BlueFS used (DB + WAL + spilled) / main device, newer Ceph's BLUESTORE_BLUEFS_OVERSIZED "
        "(bluestore_bluefs_warn_ratio, 6 %) on every release: the OSDs past the ratio, or the highest one "
        "while none is. Spillover is not this: the 10B cluster's "
        "296 spilling OSDs stayed under 3 % [004]. Dashed: the ratio; right axis: OSDs past it.",
        runbook=OVERSIZED,
        overrides=[
            dashed(".*ratio \\(bluefs_warn_ratio\\)"),
            right_axis(".*OSDs past the ratio", "none", "OSDs past the ratio"),
        ],
        min_val=0,
        soft_max=MAIN_DEVICE_AXIS,
        w=24,
    )
