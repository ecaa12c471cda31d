"""The overview board: the five study signals at a glance."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ..board_frame import new_board
from ..common import BASELINE, CRIT, FILL, HOTSPOT, NONZERO_BAD, OK, SHARD_FILL, WARN, C, Q, m
from ..panel_kinds import bars, gg, st, tbl, ts
from ..runbooks import RB
from .base import (
    ALERT_PREFIX,
    CL,
    LOAD,
    OVERVIEW_OPS,
    SOON,
    STATIC_FILL_COLOURS,
    fill_trend,
    s3_ops,
    top,
)


def overview():
    panels = [
        db.Row("Now: the five signals"),
        st(
            "OSDs spilling BlueFS to HDD",
            "none",
            [Q(m("ceph_scale_bluefs_spillover_osds"), CL)],
            desc="OSDs with BlueFS data on the slow device. 296 of 318 spilled in the 10B test [004].",
            runbook=RB["spillover"],
            thresholds=NONZERO_BAD,
        ),
        gg(
            "Raw fill",
            "percentunit",
            [Q(m("ceph_scale_cluster_used_ratio"), CL)],
            desc="Raw used / size." + STATIC_FILL_COLOURS,
            runbook=RB["fill"],
            thresholds=FILL,
        ),
        st(
            "Time to the fill target at the current fill rate",
            "s",
            [Q(m("ceph_scale_cluster_fill_seconds_to_threshold", 'threshold="target"'), CL)],
            desc="Predicted from the fitted raw fill rate; 0 once crossed; empty when not filling.",
            runbook=RB["fill_forecast"],
            thresholds=SOON,
            no_value="not filling",
            graph=False,
        ),
        st(
            "Buckets at / near the shard limit",
            "none",
            [
                Q(m("ceph_scale_rgw_buckets_over_shard_limit"), f"{CL} over limit"),
                Q(m("ceph_scale_rgw_buckets_near_reshard"), f"{CL} near"),
            ],
            desc="Buckets whose objects per shard reached the limit (reshard due) or the warn share of it.",
            runbook=RB["near_limit"],
            thresholds=NONZERO_BAD,
            graph=False,
        ),
        st(
            "PGs overdue for (deep) scrub",
            "percentunit",
            [Q(m("ceph_scale_pg_scrub_overdue_ratio"), f"{CL} {{{{kind}}}}")],
            desc="Share of PGs past Ceph's own not-scrubbed-in-time line. 21,070 of 21,760 in the 10B test [004].",
            runbook=RB["scrub"],
            thresholds=[(None, OK), (0.01, WARN), (0.1, CRIT)],
        ),
        st(
            "S3 load vs HDD baseline",
            "percentunit",
            [Q(m("ceph_scale_s3_load_ratio", 'op="mixed"', 'unit="ops"'), CL)],
            desc="PUT/60 + GET/90 per HDD OSD [004]: 100 % is the measured limit of the HDDs.",
            runbook=RB["load"],
            thresholds=LOAD,
        ),
        db.Row("Trends"),
        fill_trend(),
        s3_ops(OVERVIEW_OPS, 12),
        ts(
            "S3 load per HDD OSD vs the baseline (100 % = 60 PUT / 90 GET ops/s)",
            "percentunit",
            [Q(m("ceph_scale_s3_load_ratio", 'unit="ops"'), f"{CL} {{{{op}}}}")],
            desc="Per-HDD S3 op rate as a share of the single-HDD baseline [004]; mixed = put/60 + get/90.",
            runbook=RB["load"],
            thresholds=BASELINE,
            soft_max=1,
            min_val=0,
        ),
        ts(
            "BlueFS bytes spilled to HDD",
            "bytes",
            [Q(m("ceph_scale_cluster_bluefs_spilled_bytes"), CL)],
            desc="BlueFS bytes on the slow device over all OSDs; 80+ GB per OSD in the 1B test [000].",
            runbook=RB["spillover"],
            min_val=0,
        ),
        ts(
            "PGs overdue for scrub / deep scrub",
            "none",
            [
                Q(m("ceph_scale_pg_scrub_overdue"), f"{CL} overdue {{{{kind}}}}"),
                Q(m("ceph_scale_pg_scrubbing"), f"{CL} scrubbing now {{{{kind}}}}"),
            ],
            desc="Overdue PGs by Ceph's rule, and PGs scrubbing now.",
            runbook=RB["scrub"],
            min_val=0,
        ),
        ts(
            "Exporter sources failing",
            "none",
            [Q(f"max by (cluster, source) (1 - {m('ceph_scale_source_success')})", f"{CL} {{{{source}}}}")],
            desc="1 while a source fails: its signals then age and disappear; never taken for a healthy 0.",
            runbook=RB["source"],
            thresholds=[(None, OK), (1, CRIT)],
            min_val=0,
            max_val=1,
        ),
        db.Row("Worst offenders"),
        bars(
            "Fullest OSDs",
            "percentunit",
            [Q(top(5, "ceph_scale_osd_used_ratio"), f"{CL} {{{{ceph_daemon}}}}", instant=True)],
            desc="The OSDs that reach the fill target first." + STATIC_FILL_COLOURS,
            runbook=RB["osd_fill"],
            thresholds=FILL,
            max_val=1,
            w=6,
        ),
        bars(
            "Most spilled OSDs",
            "bytes",
            [Q(top(5, "ceph_scale_bluefs_spilled_bytes"), f"{CL} {{{{ceph_daemon}}}}", instant=True)],
            desc="BlueFS bytes on the slow device, per OSD.",
            runbook=RB["spillover"],
            thresholds=NONZERO_BAD,
            w=6,
        ),
        bars(
            "Buckets closest to resharding",
            "percentunit",
            [
                Q(
                    top(5, "ceph_scale_rgw_top_bucket_shard_fill_ratio", "tenant, bucket"),
                    f"{CL} {{{{bucket}}}}",
                    instant=True,
                )
            ],
            desc="Objects per shard / rgw_max_objs_per_shard; at 100 % RGW reshards the bucket.",
            runbook=RB["near_limit"],
            thresholds=SHARD_FILL,
            max_val=1,
            w=6,
        ),
        bars(
            "Hottest OSDs (op rate / mean)",
            "suffix:× mean",
            [Q(top(5, "ceph_scale_osd_hotspot_ratio"), f"{CL} {{{{ceph_daemon}}}}", instant=True)],
            desc="Client op rate of an OSD over the mean of up OSDs; hot from 2x (osd_hotspot_ratio).",
            runbook=RB["hot_osd"],
            thresholds=HOTSPOT,
            w=6,
        ),
        db.Row("Alerts"),
        tbl(
            "Active ceph-scale alerts (firing and pending)",
            "none",
            [Q(f'ALERTS{{alertname=~"{ALERT_PREFIX}.*", {C}}}', instant=True, fmt="table")],
            desc="The project's alerts now, from Prometheus' ALERTS series. Each alert's runbook_url "
            "annotation points to its runbook section.",
            runbook=RB["alerts"],
            columns={"A": ("active", "none")},
            keep=["cluster", "alertname", "severity", "alertstate", "ceph_daemon", "kind", "op", "bucket"],
            sort_by="severity",
            w=24,
        ),
    ]
    return new_board(
        "overview",
        "Ceph scale: overview",
        "The five scale signals of one or more Ceph clusters (docs/study.md): BlueFS spillover, "
        "distance to the fill target, RGW resharding, scrub backlog, load against the HDD baseline.",
        panels,
        reshards_on=[OVERVIEW_OPS],
        plunges_on=[OVERVIEW_OPS],
        time_from="now-24h",
    )


# --- BlueFS / RocksDB ------------------------------------------------------------------------
