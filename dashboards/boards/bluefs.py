"""The BlueFS / RocksDB board: spillover, DB use by level, the next level's arrival [004]."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ceph_scale.core.signals.spillover import panels as spillover

from ..board_frame import new_board, osd_variable


def bluefs():
    panels = [
        db.Row("Spillover now"),
        spillover.spilling_osds(),
        spillover.spilled_bytes(),
        spillover.db_osds(),
        spillover.db_share_below_min_osds(),
        db.Row("Per OSD"),
        spillover.spilled_bytes_per_osd(),
        spillover.db_used_vs_levels(),
        spillover.db_used_of_usable(),
        spillover.db_share(),
        spillover.main_device_share(),
        spillover.next_level_time(),
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
