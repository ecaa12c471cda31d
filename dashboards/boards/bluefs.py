"""The BlueFS / RocksDB board: spillover, DB use by level, the next level's arrival [004]."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ..board_frame import new_board
from ..common import CRIT, NONZERO_BAD, OK, WARN, Q, m
from ..panel_kinds import bars, dashed, st, ts
from ..runbooks import RB
from .base import (
    CL,
    SOON,
    config,
    osd_variable,
)


def bluefs():
    osd = 'ceph_daemon=~"$osd"'
    panels = [
        db.Row("Spillover now"),
        st(
            "OSDs spilling",
            "none",
            [Q(m("ceph_scale_bluefs_spillover_osds"), CL)],
            desc="OSDs with BlueFS bytes on the slow device (BLUEFS_SPILLOVER). 296 of 318 in the 10B test [004].",
            runbook=RB["spillover_spreading"],
            thresholds=NONZERO_BAD,
            w=6,
        ),
        st(
            "Bytes spilled (all OSDs)",
            "bytes",
            [Q(m("ceph_scale_cluster_bluefs_spilled_bytes"), CL)],
            desc="Sum of bluefs.slow_used_bytes.",
            runbook=RB["spillover"],
            thresholds=[(None, OK), (1, CRIT)],
            w=6,
        ),
        st(
            "OSDs with a DB device",
            "none",
            [Q(m("ceph_scale_bluefs_db_osds"), CL)],
            desc="OSDs whose BlueFS has a dedicated DB device (the per-OSD panels cover these).",
            runbook=RB["spillover"],
            w=6,
        ),
        st(
            "OSDs with DB below 4 % of the data device",
            "none",
            [Q(m("ceph_scale_bluefs_db_share_below_min_osds"), CL)],
            desc="The 10B test recommends DB >= 4 % of HDD capacity [004] (bluefs_db_share_min_ratio).",
            runbook=RB["db_share"],
            thresholds=NONZERO_BAD,
            w=6,
        ),
        db.Row("Per OSD"),
        ts(
            "Spilled bytes per OSD",
            "bytes",
            [Q(m("ceph_scale_bluefs_spilled_bytes", osd), f"{CL} {{{{ceph_daemon}}}}")],
            desc="bluefs.slow_used_bytes: RocksDB data on the HDD. Write ops fell as it grew in the 1B test [000].",
            runbook=RB["spillover"],
            min_val=0,
            h=11,
        ),
        ts(
            "DB used vs usable vs RocksDB level boundaries (log scale)",
            "bytes",
            [
                Q(m("ceph_scale_bluefs_db_used_bytes", osd), f"{CL} {{{{ceph_daemon}}}} used"),
                Q(m("ceph_scale_bluefs_db_usable_bytes", osd), f"{CL} {{{{ceph_daemon}}}} usable"),
                Q(m("ceph_scale_bluefs_db_size_bytes", osd), f"{CL} {{{{ceph_daemon}}}} DB device"),
                Q(m("ceph_scale_rocksdb_level_boundary_bytes"), f"{CL} boundary L1..{{{{level}}}}"),
            ],
            desc="A RocksDB level goes on the DB device only if it fits whole, so usable = the sum of the "
            "levels that fit (L1 256 MB, L2 2.56 GB, L3 25.6 GB, L4 256 GB, ... [004]). Dashed: cumulative "
            "level boundaries. Once used passes usable, the next level spills to the HDD.",
            runbook=RB["spillover"],
            log=10,
            overrides=[dashed(".*boundary.*", "purple"), dashed(".*DB device")],
            # Three series per OSD and six boundaries: room for the legend.
            h=11,
        ),
        ts(
            "DB use / usable DB space",
            "percentunit",
            [
                Q(
                    m("cluster_ceph_daemon:ceph_scale_bluefs_db_used_of_usable:ratio", osd),
                    f"{CL} {{{{ceph_daemon}}}}",
                )
            ],
            desc="Share of the usable (whole-level) DB space in use; past 100 % the next level cannot "
            "fit on the DB device. Lines: 80 % and 100 %.",
            runbook=RB["db_next_level"],
            thresholds=[(None, OK), (0.8, WARN), (1.0, CRIT)],
            min_val=0,
            soft_max=1,
        ),
        ts(
            "DB size as a share of the data device vs 4 %",
            "percentunit",
            [
                Q(m("ceph_scale_bluefs_db_share_ratio", osd), f"{CL} {{{{ceph_daemon}}}}"),
                Q(config("bluefs_db_share_min_ratio"), f"{CL} minimum (bluefs_db_share_min_ratio)"),
            ],
            desc="DB device / data device; the 10B test's remedy was >= 4 % (its cluster had ~5.5 %) [004]. "
            "Dashed red: the configured minimum (bluefs_db_share_min_ratio, 4 %).",
            runbook=RB["db_share"],
            overrides=[dashed(".*minimum.*")],
            min_val=0,
        ),
        bars(
            "Time until the next RocksDB level no longer fits (soonest OSDs)",
            "s",
            [
                Q(
                    f"bottomk(10, max by (cluster, ceph_daemon) ({m('ceph_scale_bluefs_db_next_level_seconds')}))",
                    f"{CL} {{{{ceph_daemon}}}}",
                    instant=True,
                )
            ],
            desc="At the fitted DB growth rate; 0 while spilling; absent when the DB is not growing.",
            runbook=RB["db_next_level"],
            thresholds=SOON,
            w=24,
            h=6,
        ),
    ]
    return new_board(
        "bluefs",
        "Ceph scale: BlueFS / RocksDB spillover",
        "Spilled bytes per OSD, DB use against the space usable under RocksDB's whole-level rule, "
        "and DB size against the 4 % rule [004, 000].",
        panels,
        extra_vars=[osd_variable("ceph_scale_bluefs_db_used_bytes")],
        time_from="now-2d",
    )


# --- capacity ------------------------------------------------------------------------------
