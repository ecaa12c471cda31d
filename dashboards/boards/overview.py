"""The overview board: the five study signals at a glance."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ceph_scale.core.signals.exporter import panels as exporter
from ceph_scale.core.signals.fill import panels as fill
from ceph_scale.core.signals.load import panels as load
from ceph_scale.core.signals.reshard import panels as reshard
from ceph_scale.core.signals.scrub import panels as scrub
from ceph_scale.core.signals.spillover import panels as spillover

from ..board_frame import new_board

OPS = "S3 ops/s (orange marks: reshards)"


def overview():
    panels = [
        db.Row("Now: the five signals"),
        spillover.spilling_osds_glance(),
        fill.raw_fill(),
        fill.time_to_target_glance(),
        reshard.buckets_at_limit_glance(),
        scrub.overdue_share_glance(),
        load.load_ratio_glance(),
        db.Row("Trends"),
        fill.fill_trend(),
        reshard.s3_ops(OPS, 12),
        load.load_ratio_trend(),
        spillover.spilled_bytes_trend(),
        scrub.overdue_and_scrubbing(),
        exporter.sources_failing(),
        db.Row("Worst offenders"),
        fill.fullest_osds_glance(),
        spillover.most_spilled_osds(),
        reshard.closest_to_resharding(),
        load.hottest_osds_glance(),
        db.Row("Alerts"),
        exporter.active_alerts(),
    ]
    return new_board(
        "overview",
        "Ceph scale: overview",
        "The five scale signals of one or more Ceph clusters (docs/study.md): BlueFS spillover, "
        "distance to the fill target, RGW resharding, scrub backlog, load against the HDD baseline.",
        panels,
        marks={"reshards": [OPS], "plunges": [OPS], "client_drops": [OPS], "osds_down": [OPS]},
        time_from="now-24h",
    )
