"""The capacity board: distance to the 80 % fill line, per cluster, pool and OSD [000, 001]."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ceph_scale.core.signals.fill import panels as fill

from ..board_frame import new_board, pool_variable


def capacity():
    panels = [
        db.Row("Cluster"),
        fill.raw_fill(h=6),
        fill.bytes_to_target(),
        fill.headroom_to_lines(),
        fill.time_to_target(),
        fill.fill_rate(),
        db.Row("Trends"),
        fill.fill_trend(),
        fill.time_to_each_line(),
        db.Row("Pools"),
        fill.pool_fill(),
        fill.pools_table(),
        db.Row("OSDs"),
        fill.fullest_osds(),
        fill.osd_headroom(),
        fill.ceph_full_ratios(),
    ]
    return new_board(
        "capacity",
        "Ceph scale: capacity and distance to the fill target",
        "Headroom to the fill lines in force (by default 70 / 80 / 90 %) for the cluster, each pool and the "
        "fullest OSDs, and the predicted time to the fill target [001, 000, 003].",
        panels,
        extra_vars=[pool_variable()],
        time_from="now-7d",
    )
