"""The runway board: when each study limit will be reached, and what to add (docs/runway.md)."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ceph_scale.core.signals.runway import panels as runway

from ..board_frame import new_board, pool_variable


def runway_board():
    panels = [
        db.Row("Runway to the target date"),
        runway.runway_per_limit(),
        runway.fit_behind_runways(),
        runway.target_date(),
        db.Row("What to add to hold it, a failure domain lost [004]"),
        runway.hdd_osds_to_add(),
        runway.rgw_instances_to_add(),
        runway.osds_spilling_by_then(),
        runway.buckets_to_preshard(),
        runway.osds_plan_can_lose(),
        runway.level_base_for_planned_db(),
        db.Row("Over time"),
        runway.runways_vs_target(),
        runway.hdd_osds_vs_plan(),
        runway.rgw_instances_vs_plan(),
        runway.db_per_osd_planned(),
        runway.pools_needing_pgs(),
        runway.buckets_to_preshard_soonest(),
        runway.plan_caveats(),
    ]
    return new_board(
        "runway",
        "Ceph scale: runway and sizing",
        "When each study limit will be reached at the fitted growth, how sure that is, and what to add to hold "
        "the target date with a failure domain lost (docs/runway.md) [004, 000, 001].",
        panels,
        extra_vars=[pool_variable()],
        time_from="now-7d",
    )
