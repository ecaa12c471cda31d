"""The load board: S3 ops and bytes per HDD OSD against the study's baseline, the latency and
plunges that go with them, the OSDs down, per RGW and per OSD [004, 000, 003]."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ceph_scale.core.signals.degraded import panels as degraded
from ceph_scale.core.signals.latency import panels as latency
from ceph_scale.core.signals.load import panels as load
from ceph_scale.core.signals.plunge import panels as plunge

from ..board_frame import new_board, osd_variable, rgw_variable

S3_PANELS = [
    load.PER_HDD_OPS,
    load.OPS_PER_RGW,
    latency.LATENCY,
    latency.LATENCY_PER_RGW,
    plunge.BELOW_BASELINE,
    plunge.COUNTED_TITLE,
]


def load_board():
    panels = [
        db.Row("Now"),
        load.load_ratio(),
        load.headroom(),
        load.hdd_osds(),
        load.rgw_instances(),
        load.hot_osds_count(),
        degraded.expected_drop(),
        db.Row("Against the single-HDD baseline [004]"),
        load.per_hdd_ops(),
        load.per_hdd_bytes(),
        load.load_share(),
        load.ops_per_rgw(),
        latency.latency(),
        latency.latency_per_rgw(),
        db.Row("S3 throughput plunges, with their likely cause [000, 001, 004]"),
        plunge.below_baseline(),
        plunge.counted_by_cause(),
        db.Row("Per OSD"),
        load.ops_per_osd(),
        load.hot_osds(),
    ]
    return new_board(
        "load",
        "Ceph scale: load against the HDD baseline",
        "S3 ops and bytes per HDD OSD against the 10B test's single-HDD baseline (60 PUT / 90 GET ops/s, "
        "34 / 37 MB/s), per RGW, per OSD, and hot OSDs [004, 000, 003].",
        panels,
        extra_vars=[rgw_variable(), osd_variable("ceph_scale_osd_ops_per_second")],
        time_from="now-3h",
        # Every S3 ops, latency and plunge panel: a fall or a rise reads against the events beside it.
        marks={mark: S3_PANELS for mark in ("reshards", "plunges", "client_drops", "osds_down")},
    )
