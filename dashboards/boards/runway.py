"""The runway board: when each study limit will be reached, and what to add (docs/runway.md)."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ceph_scale.core.signals.runway import panels as runway
from ceph_scale.core.signals.runway import plan_panels as plan

from ..board_frame import new_board, pool_variable


def runway_board():
    panels = [
        db.Row("Runway to the target date"),
        runway.runway_per_limit(),
        runway.fit_behind_runways(),
        runway.target_date(),
        db.Row("What to add to hold it, a failure domain lost [004]"),
        plan.hdd_osds_to_add(),
        plan.rgw_instances_to_add(),
        plan.osds_spilling_by_then(),
        plan.buckets_to_preshard(),
        plan.osds_plan_can_lose(),
        plan.level_base_for_planned_db(),
        db.Row("Over time"),
        runway.runways_vs_target(),
        plan.hdd_osds_vs_plan(),
        plan.rgw_instances_vs_plan(),
        plan.db_per_osd_planned(),
        plan.pools_needing_pgs(),
        plan.buckets_to_preshard_soonest(),
        plan.plan_caveats(),
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
