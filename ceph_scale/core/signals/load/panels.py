"""The load signal's panels: S3 ops and bytes per HDD OSD against the 10B test's single-HDD
baseline (60 PUT / 90 GET ops/s, 34 / 37 MB/s), per RGW, per OSD, and hot OSDs [004, 000, 003]."""

from __future__ import annotations

from ...config import Thresholds
from ...panel_queries import CL, OSD, PER_HDD, PICKED_RGWS, S3_BYTES, S3_OPS, config, m, rate, top
from ...panel_spec import CRIT, NONZERO_BAD, OK, WARN, Panel, Query, Step, bars, dashed, runbook, st, ts

ABOVE_BASELINE = runbook("CephScaleS3LoadAboveHddBaseline")
HOT_OSD = runbook("CephScaleHddOsdHotspot")
LOAD: list[Step] = [(None, OK), (0.8, WARN), (1.0, CRIT)]
BASELINE: list[Step] = [(None, OK), (1.0, CRIT)]  # load / HDD baseline ratio 1 [004]
HOTSPOT: list[Step] = [(None, OK), (Thresholds().osd_hotspot_ratio, CRIT)]
PER_HDD_OPS = "S3 ops/s per HDD OSD vs 60 PUT / 90 GET"
OPS_PER_RGW = "S3 ops/s per RGW instance"
HOT_LEGEND = f"{CL} {{{{ceph_daemon}}}} ({{{{device_class}}}}, {{{{crush_root}}}})"
HOT_BY = "ceph_daemon, device_class, crush_root"
MIXED = m("ceph_scale_s3_load_ratio", 'op="mixed"', 'unit="ops"')


def load_ratio_glance() -> Panel:
    return st(
        "S3 load vs HDD baseline",
        "percentunit",
        [Query(MIXED, CL)],
        desc="PUT/60 + GET/90 per HDD OSD [004]: 100 % is the measured limit of the HDDs.",
        runbook=ABOVE_BASELINE,
        thresholds=LOAD,
    )


def load_ratio_trend() -> Panel:
    return ts(
        "S3 load per HDD OSD vs the baseline (100 % = 60 PUT / 90 GET ops/s)",
        "percentunit",
        [Query(m("ceph_scale_s3_load_ratio", 'unit="ops"'), f"{CL} {{{{op}}}}")],
        desc="Per-HDD S3 op rate as a share of the single-HDD baseline [004]; mixed = put/60 + get/90.",
        runbook=ABOVE_BASELINE,
        thresholds=BASELINE,
        soft_max=1,
        min_val=0,
    )


def hottest_osds_glance() -> Panel:
    return bars(
        "Hottest OSDs (op rate / mean)",
        "suffix:× mean",
        [
            Query(
                top(5, "ceph_scale_hdd_osd_hotspot_ratio", by=HOT_BY),
                HOT_LEGEND,
                instant=True,
            )
        ],
        desc="Client op rate of an HDD OSD over the mean of its device class under its CRUSH root; hot from 2x "
        "(osd_hotspot_ratio).",
        runbook=HOT_OSD,
        thresholds=HOTSPOT,
        w=6,
    )


def load_ratio() -> Panel:
    return st(
        "S3 load vs HDD baseline",
        "percentunit",
        [Query(MIXED, CL)],
        desc="PUT/60 + GET/90 ops/s per HDD OSD [004]; 100 % = the measured single-HDD limit.",
        runbook=ABOVE_BASELINE,
        thresholds=LOAD,
    )


def headroom() -> Panel:
    return st(
        "Headroom (ops/s the cluster can add)",
        "ops",
        [Query(m("ceph_scale_s3_ops_headroom_per_second"), f"{CL} {{{{op}}}}")],
        desc="Ops/s of each op the cluster can add before the mixed ratio reaches 1.",
        runbook=ABOVE_BASELINE,
        thresholds=[(None, CRIT), (0, OK)],
        w=5,
    )


def hdd_osds() -> Panel:
    return st(
        "HDD OSDs",
        "none",
        [Query(m("ceph_scale_hdd_osds"), CL)],
        desc="Up and in HDD OSDs: the denominator of the per-HDD rates.",
        runbook=ABOVE_BASELINE,
        w=3,
    )


def rgw_instances() -> Panel:
    return st(
        "RGW instances",
        "none",
        [Query(m("ceph_scale_rgw_instances"), CL)],
        desc="RGW daemons reporting counters. The 1B test ran 2 per node [000].",
        runbook=ABOVE_BASELINE,
        w=3,
    )


def hot_osds_count() -> Panel:
    return st(
        "Hot OSDs",
        "none",
        [Query(f"sum by (cluster) ({m('ceph_scale_hdd_osd_hotspots')})", CL)],
        desc="HDD OSDs above osd_hotspot_ratio (2) x the mean op rate of their device class.",
        runbook=HOT_OSD,
        thresholds=NONZERO_BAD,
    )


def per_hdd_ops() -> Panel:
    return ts(
        PER_HDD_OPS,
        "ops",
        [
            Query(S3_OPS + PER_HDD, f"{CL} {{{{op}}}} per HDD OSD"),
            Query(config("baseline_(put|get)_ops_per_hdd", "=~"), f"{CL} baseline {{{{option}}}}"),
        ],
        desc="S3 op rate / up-and-in HDD OSDs. Dashed: the configured baseline (64 KB objects: 60 PUT, "
        "90 GET ops/s per HDD with 4 % flash for BlueStore [004]).",
        runbook=ABOVE_BASELINE,
        overrides=[dashed(".*baseline.*")],
        min_val=0,
    )


def per_hdd_bytes() -> Panel:
    return ts(
        "S3 bytes/s per HDD OSD vs 34 PUT / 37 GET MB/s",
        "Bps",
        [
            Query(S3_BYTES + PER_HDD, f"{CL} {{{{op}}}} per HDD OSD"),
            Query(config("baseline_(put|get)_bytes_per_hdd", "=~"), f"{CL} baseline {{{{option}}}}"),
        ],
        desc="S3 byte rate / HDD OSDs. Dashed: the configured baseline (128 MB objects: 34 MB/s PUT, "
        "37 MB/s GET per HDD [004]).",
        runbook=ABOVE_BASELINE,
        overrides=[dashed(".*baseline.*")],
        min_val=0,
    )


def load_share() -> Panel:
    return ts(
        "Load as a share of the baseline (100 % = at the HDD limit)",
        "percentunit",
        [Query(m("ceph_scale_s3_load_ratio"), f"{CL} {{{{op}}}} ({{{{unit}}}})")],
        desc="Per-HDD rate / baseline: ops against 60/90, bytes against 34/37 MB/s; mixed = put/60 + get/90.",
        runbook=ABOVE_BASELINE,
        thresholds=BASELINE,
        soft_max=1,
        min_val=0,
    )


def ops_per_rgw() -> Panel:
    return ts(
        OPS_PER_RGW,
        "ops",
        [
            Query(
                f"max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_ops_total', PICKED_RGWS)})",
                f"{CL} rgw {{{{instance_id}}}} {{{{op}}}}",
            )
        ],
        desc="Per RGW daemon (those picked in the RGW variable); the 1B test measured ~1,000 PUT and ~500 GET "
        "ops/s per RGW for 64 KB [000].",
        runbook=ABOVE_BASELINE,
        min_val=0,
    )


def ops_per_osd() -> Panel:
    return ts(
        "Client ops/s per OSD and the mean",
        "ops",
        [
            Query(m("ceph_scale_osd_ops_per_second", OSD), f"{CL} {{{{ceph_daemon}}}} {{{{op}}}}"),
            Query(
                f"avg by (cluster, op) (max by (cluster, ceph_daemon, op) ({m('ceph_scale_osd_ops_per_second')}))",
                f"{CL} mean {{{{op}}}}",
            ),
        ],
        desc="Each OSD's client op rate (EC 4+2: a 64 KB PUT is six 16 KB chunk writes [003]). Dashed: "
        "the mean over OSDs.",
        runbook=HOT_OSD,
        overrides=[dashed(".* mean .*", "text")],
        min_val=0,
        # Two series per OSD and the means: room for the legend.
        h=11,
    )


def hot_osds() -> Panel:
    return bars(
        "Hot OSDs: op rate / mean",
        "suffix:× mean",
        [
            Query(
                top(10, "ceph_scale_hdd_osd_hotspot_ratio", by=HOT_BY),
                HOT_LEGEND,
                instant=True,
            )
        ],
        desc="Top-K HDD OSDs (osd_top_hot) by op rate over the mean of their device class under their CRUSH root; "
        "hot from 2x (osd_hotspot_ratio).",
        runbook=HOT_OSD,
        thresholds=HOTSPOT,
        w=12,
        h=11,
    )
