"""The six boards. Metric names are those of docs/metrics.md (and rules/recording.yml).

Numbers drawn on the boards come from shared/STUDY.md: 70 / 80 / 90 % fill [000, 001], DB at
>= 4 % of the data device [004], 60 PUT / 90 GET ops/s and 34 / 37 MB/s per HDD OSD [004], a
per-shard limit of 1 (objects per shard / rgw_max_objs_per_shard) [000]. Absolute baselines are
read from ``ceph_scale_config`` so a changed threshold moves the line too.
"""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.models import dashboard as dm

from .common import (
    BASELINE,
    CRIT,
    FILL,
    HEADROOM,
    HOTSPOT,
    INFO,
    NONZERO_BAD,
    OK,
    SHARD_FILL,
    WARN,
    C,
    Q,
    bars,
    dashed,
    gg,
    m,
    new_board,
    rate,
    right_axis,
    st,
    tbl,
    ts,
)
from .runbooks import RB

DAY = 86400.0
# Time-to-threshold colouring: red under a week, yellow under a month.
SOON = [(None, CRIT), (7 * DAY, WARN), (30 * DAY, OK)]
LOAD = [(None, OK), (0.8, WARN), (1.0, CRIT)]
CL = "{{cluster}}"
OVERVIEW_OPS = "S3 ops/s (orange marks: reshards)"
RGW_OPS = "S3 ops/s with reshards marked (orange)"
OSD_HEADROOM = "Fullest OSDs: headroom to 80 %"
HISTOGRAM = "Buckets by shard fill (clusters summed)"
ALERT_PREFIX = "CephScale"

# Sums first take the max over producers of one series (the sidecar and the mgr module, or two
# scrape jobs, may both export a cluster), as rules/recording.yml does, so nothing counts twice.
S3_OPS = f"sum by (cluster, op) (max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_ops_total')}))"
S3_BYTES = f"sum by (cluster, op) (max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_bytes_total')}))"
PER_HDD = f" / on (cluster) group_left () max by (cluster) ({m('ceph_scale_hdd_osds')})"


def top(k: int, name: str, by: str = "ceph_daemon", fn: str = "topk") -> str:
    """The k largest (or smallest) of a per-daemon family, one series per cluster and daemon."""
    return f"{fn}({k}, max by (cluster, {by}) ({m(name)}))"


def config(option: str, op: str = "=") -> str:
    """The value of a threshold or baseline in force (ceph_scale_config), one series per cluster
    and option whichever producers export it, for reference lines that move with the setting."""
    selector = m("ceph_scale_config", f'option{op}"{option}"')
    return f"max by (cluster, option) ({selector})"


def osd_variable(metric: str) -> db.QueryVariable:
    return (
        db.QueryVariable("osd")
        .label("OSD")
        .datasource(dm.DataSourceRef(type_val="prometheus", uid="${datasource}"))
        .query(f"label_values({metric}{{{C}}}, ceph_daemon)")
        .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(dm.VariableSort.ALPHABETICAL_ASC)
        .multi(True)
        .include_all(True)
        .all_value(".*")
        .current(dm.VariableOption(selected=True, text=["All"], value=["$__all"]))
    )


def fill_trend(w: int = 12) -> object:
    return ts(
        "Raw fill and fullest OSD vs 70 / 80 / 90 %",
        "percentunit",
        [
            Q(m("ceph_scale_cluster_used_ratio"), f"{CL} cluster raw"),
            Q(f"max by (cluster) ({m('ceph_scale_osd_fullest_used_ratio')})", f"{CL} fullest OSD"),
        ],
        desc="Raw used / size for the cluster and the fullest in OSD (it fills first). Lines: 70 % "
        "(degradation starts [000]), 80 % (Ceph's recommended ceiling [001]), 90 % ('alarming' [000]).",
        runbook=RB["fill"],
        thresholds=FILL,
        min_val=0,
        max_val=1,
        w=w,
    )


def s3_ops(title: str, w: int) -> object:
    return ts(
        title,
        "ops",
        [Q(S3_OPS, f"{CL} {{{{op}}}}")],
        desc="S3 PUT and GET operations per second from the RGW perf counters. Orange marks: completed "
        "bucket reshards; the study saw 'sudden plunges' in throughput at each one [000].",
        runbook=RB["reshard"],
        w=w,
        min_val=0,
        axis_label="S3 ops/s",
    )


# --- overview --------------------------------------------------------------------------------


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
            desc="Raw used / size. Markers at 70 / 80 / 90 % [000, 001].",
            runbook=RB["fill"],
            thresholds=FILL,
        ),
        st(
            "Time to 80 % at the current fill rate",
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
            desc="The OSDs that reach 80 % first.",
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
        "The five scale signals of one or more Ceph clusters (shared/STUDY.md): BlueFS spillover, "
        "distance to 80 % fill, RGW resharding, scrub backlog, load against the HDD baseline.",
        panels,
        reshards_on=[OVERVIEW_OPS],
    )


# --- BlueFS / RocksDB ------------------------------------------------------------------------


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
                    f"bottomk(10, max by (cluster, ceph_daemon) ({m('ceph_scale_bluefs_db_next_level_seconds', osd)}))",
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
    )


# --- capacity ------------------------------------------------------------------------------


def capacity():
    panels = [
        db.Row("Cluster"),
        gg(
            "Raw fill",
            "percentunit",
            [Q(m("ceph_scale_cluster_used_ratio"), CL)],
            desc="Raw used / size; markers at 70 / 80 / 90 % [000, 001].",
            runbook=RB["fill"],
            thresholds=FILL,
            h=6,
        ),
        st(
            "Raw bytes left before 80 %",
            "bytes",
            [Q(m("ceph_scale_cluster_fill_headroom_bytes", 'threshold="target"'), CL)],
            desc="Raw capacity x 0.8 - raw used (fill_target_ratio); negative once crossed.",
            runbook=RB["fill"],
            thresholds=[(None, CRIT), (0, OK)],
            w=5,
            h=6,
        ),
        st(
            "Headroom to 70 / 80 / 90 %",
            "percentunit",
            [Q(m("ceph_scale_cluster_fill_headroom_ratio"), f"{CL} to {{{{threshold}}}}")],
            desc="Threshold - used ratio, for warn (70 %), target (80 %) and critical (90 %).",
            runbook=RB["fill"],
            thresholds=HEADROOM,
            w=5,
            h=6,
            graph=False,
        ),
        st(
            "Time to 80 %",
            "s",
            [Q(m("ceph_scale_cluster_fill_seconds_to_threshold", 'threshold="target"'), CL)],
            desc="From the fitted raw fill rate over fill_forecast_window_seconds; 0 once crossed.",
            runbook=RB["fill_forecast"],
            thresholds=SOON,
            no_value="not filling",
            w=5,
            h=6,
            graph=False,
        ),
        st(
            "Raw fill rate",
            "Bps",
            [Q(m("ceph_scale_cluster_fill_rate_bytes_per_second"), CL)],
            desc="Fitted raw bytes per second (can be negative while deleting).",
            runbook=RB["fill_forecast"],
            w=5,
            h=6,
        ),
        db.Row("Trends"),
        fill_trend(),
        ts(
            "Time to 70 / 80 / 90 % (log scale)",
            "s",
            [Q(m("ceph_scale_cluster_fill_seconds_to_threshold"), f"{CL} to {{{{threshold}}}}")],
            desc="Predicted time to each line at the fitted fill rate. Lines: one week and 30 days.",
            runbook=RB["fill_forecast"],
            thresholds=SOON,
            log=10,
            soft_max=35 * DAY,
        ),
        db.Row("Pools"),
        ts(
            "Pool fill vs 80 %",
            "percentunit",
            [Q(m("ceph_scale_pool_used_ratio"), f"{CL} {{{{name}}}}")],
            desc="percent_used of `ceph df detail` per pool, against 70 / 80 / 90 %.",
            runbook=RB["pool_fill"],
            thresholds=FILL,
            min_val=0,
            max_val=1,
        ),
        tbl(
            "Pools: headroom to 80 %, time to it, space amplification",
            "none",
            [
                Q(m("ceph_scale_pool_used_ratio"), instant=True, fmt="table"),
                Q(m("ceph_scale_pool_fill_headroom_ratio"), instant=True, fmt="table"),
                Q(m("ceph_scale_pool_fill_headroom_bytes"), instant=True, fmt="table"),
                Q(m("ceph_scale_pool_fill_seconds_to_target"), instant=True, fmt="table"),
                Q(m("ceph_scale_pool_space_amplification_ratio"), instant=True, fmt="table"),
                Q(m("ceph_scale_pool_expected_amplification_ratio"), instant=True, fmt="table"),
            ],
            desc="Client bytes each pool can still take before 80 %, when it gets there, and raw/stored "
            "(EC 4+2 ideal 1.5; 64 KB objects on 64 KB min_alloc give more [000]).",
            runbook=RB["pool_fill"],
            columns={
                "A": ("used", "percentunit"),
                "B": ("headroom to 80 %", "percentunit"),
                "C": ("bytes left", "bytes"),
                "D": ("time to 80 %", "s"),
                "E": ("amplification", "suffix:×"),
                "F": ("expected", "suffix:×"),
            },
            keep=["cluster", "name"],
            sort_by="used",
        ),
        db.Row("OSDs"),
        bars(
            "Fullest OSDs vs 70 / 80 / 90 %",
            "percentunit",
            [Q(top(10, "ceph_scale_osd_used_ratio"), f"{CL} {{{{ceph_daemon}}}}", instant=True)],
            desc="The fullest OSD fills first: its headroom is the cluster's real headroom.",
            runbook=RB["osd_fill"],
            thresholds=FILL,
            max_val=1,
        ),
        bars(
            OSD_HEADROOM,
            "percentunit",
            [
                Q(
                    f"sort(bottomk(10, {config('fill_target_ratio')} - on (cluster) group_right () "
                    f"max by (cluster, ceph_daemon) ({m('ceph_scale_osd_used_ratio')})))",
                    f"{CL} {{{{ceph_daemon}}}}",
                    instant=True,
                )
            ],
            desc="fill_target_ratio (80 %, 'Ceph recommends not exceeding 80%' [001]) - used ratio of the "
            "10 fullest OSDs, least headroom first; negative once an OSD is past the line. The fullest OSD "
            "fills first, so its headroom is what the cluster really has left.",
            runbook=RB["osd_fill"],
            thresholds=HEADROOM,
            max_val=1,
        ),
        st(
            "Ceph's nearfull / backfillfull / full ratios",
            "percentunit",
            [Q(m("ceph_scale_osd_full_ratio"), f"{CL} {{{{kind}}}}")],
            desc="The ratios the cluster enforces (ceph osd set-nearfull-ratio ...), for comparison with 80 %.",
            runbook=RB["fill"],
            w=8,
            h=8,
            graph=False,
        ),
    ]
    return new_board(
        "capacity",
        "Ceph scale: capacity and distance to 80 %",
        "Headroom to 70 / 80 / 90 % for the cluster, each pool and the fullest OSDs, and the predicted "
        "time to 80 % [001, 000, 003].",
        panels,
    )


# --- RGW resharding ----------------------------------------------------------------------------


def rgw():
    panels = [
        db.Row("Buckets now"),
        st("Buckets", "none", [Q(m("ceph_scale_rgw_buckets"), CL)], desc="Buckets seen.", runbook=RB["reshard"]),
        st(
            "Objects",
            "short",
            [Q(m("ceph_scale_rgw_objects"), CL)],
            desc="Objects over all buckets. The study's guidance: about 100 K objects per bucket [000, 004].",
            runbook=RB["reshard"],
        ),
        st(
            "Buckets near the shard limit",
            "none",
            [Q(m("ceph_scale_rgw_buckets_near_reshard"), CL)],
            desc="At or above rgw_shard_warn_ratio (80 %) of rgw_max_objs_per_shard: they reshard next.",
            runbook=RB["near_limit"],
            thresholds=[(None, OK), (1, WARN)],
        ),
        st(
            "Buckets over the shard limit",
            "none",
            [Q(m("ceph_scale_rgw_buckets_over_shard_limit"), CL)],
            desc="Reshard due.",
            runbook=RB["over_limit"],
            thresholds=NONZERO_BAD,
        ),
        st(
            "Reshard queue",
            "none",
            [Q(m("ceph_scale_rgw_reshard_queued"), CL)],
            desc="Entries in the reshard queue (radosgw-admin reshard list).",
            runbook=RB["reshard_queue"],
            thresholds=[(None, OK), (1, WARN)],
        ),
        st(
            "Reshards in progress",
            "none",
            [Q(m("ceph_scale_rgw_reshard_in_progress"), CL)],
            desc="Queue entries being processed now; writes to those buckets block meanwhile.",
            runbook=RB["reshard_queue"],
            thresholds=[(None, OK), (1, WARN)],
        ),
        db.Row("Throughput and reshards"),
        s3_ops(RGW_OPS, 16),
        ts(
            "Reshards completed and queued",
            "none",
            [
                Q(
                    f"max by (cluster) ({rate('ceph_scale_rgw_reshard_events_total', fn='increase')})",
                    f"{CL} completed",
                ),
                Q(m("ceph_scale_rgw_reshard_queued"), f"{CL} queued"),
                Q(m("ceph_scale_rgw_reshard_in_progress"), f"{CL} in progress"),
            ],
            desc="Completed reshards per rate interval (a bucket's instance id or shard count changed), "
            "queue length and entries in progress. Many at once is a reshard storm.",
            runbook=RB["reshard"],
            w=8,
            min_val=0,
        ),
        db.Row("Objects per shard against the limit"),
        bars(
            HISTOGRAM,
            "none",
            [
                Q(
                    f"sum by (le) (max by (cluster, le) ({m('ceph_scale_rgw_bucket_shard_fill_ratio_bucket')}))",
                    "≤ {{le}}",
                    instant=True,
                    fmt="heatmap",
                )
            ],
            desc="How many buckets sit in each band of objects-per-shard / rgw_max_objs_per_shard "
            "(100 % = the limit, where RGW reshards), summed over the selected clusters (pick one in "
            "the cluster variable to see a single cluster). Red: over the limit.",
            runbook=RB["near_limit"],
            thresholds=[(None, INFO)],
            w=6,
            h=9,
        ).override_by_regexp(
            "≤ (1.5|2|\\+Inf)", [dm.DynamicConfigValue("color", {"mode": "fixed", "fixedColor": CRIT})]
        ),
        bars(
            "Top buckets: objects per shard / limit",
            "percentunit",
            [
                Q(
                    top(10, "ceph_scale_rgw_top_bucket_shard_fill_ratio", "tenant, bucket"),
                    f"{CL} {{{{bucket}}}}",
                    instant=True,
                )
            ],
            desc="Top-K buckets (rgw_top_buckets) by shard fill; 80 % warn, 100 % reshard.",
            runbook=RB["near_limit"],
            thresholds=SHARD_FILL,
            max_val=1,
            w=6,
            h=9,
        ),
        tbl(
            "Buckets to pre-shard",
            "none",
            [
                Q(m("ceph_scale_rgw_top_bucket_shard_fill_ratio"), instant=True, fmt="table"),
                Q(m("ceph_scale_rgw_top_bucket_objects"), instant=True, fmt="table"),
                Q(m("ceph_scale_rgw_top_bucket_shards"), instant=True, fmt="table"),
                Q(m("ceph_scale_rgw_top_bucket_recommended_shards"), instant=True, fmt="table"),
            ],
            desc="Pre-sharded buckets gave deterministic performance [000]: `radosgw-admin bucket reshard "
            "--bucket B --num-shards N` with the recommended N (keeps them at rgw_preshard_fill_ratio of "
            "the limit, next prime).",
            runbook=RB["preshard"],
            columns={
                "A": ("objects/shard vs limit", "percentunit"),
                "B": ("objects", "short"),
                "C": ("shards", "none"),
                "D": ("recommended shards", "none"),
            },
            keep=["cluster", "tenant", "bucket"],
            sort_by="objects/shard vs limit",
            h=9,
        ),
        bars(
            "Expected to reshard next: time to the shard limit",
            "s",
            [
                Q(
                    top(10, "ceph_scale_rgw_bucket_reshard_seconds", "tenant, bucket", fn="bottomk"),
                    f"{CL} {{{{bucket}}}}",
                    instant=True,
                )
            ],
            desc="The buckets predicted to reach rgw_max_objs_per_shard soonest, at each one's own object "
            "growth over rgw_growth_window_seconds; 0 = at the limit now. A bucket due within a day is "
            "worth pre-sharding at a quiet hour rather than resharding under load [000].",
            runbook=RB["reshard_next"],
            thresholds=[(None, CRIT), (3600, WARN), (86400, OK)],
            w=24,
            h=8,
        ),
    ]
    board = new_board(
        "rgw-resharding",
        "Ceph scale: RGW buckets and resharding",
        "Objects per shard against rgw_max_objs_per_shard, reshard events over the S3 ops graph, and "
        "the buckets to pre-shard [000, 004].",
        panels,
        reshards_on=[RGW_OPS],
    )
    return board


# --- scrub -------------------------------------------------------------------------------------


def scrub():
    kind = f"{CL} {{{{kind}}}}"
    panels = [
        db.Row("Backlog now"),
        st(
            "PGs overdue for scrub",
            "none",
            [Q(m("ceph_scale_pg_scrub_overdue", 'kind="scrub"'), CL)],
            desc="PG_NOT_SCRUBBED's count, by Ceph's own rule.",
            runbook=RB["scrub"],
            thresholds=NONZERO_BAD,
        ),
        st(
            "PGs overdue for deep scrub",
            "none",
            [Q(m("ceph_scale_pg_scrub_overdue", 'kind="deep_scrub"'), CL)],
            desc="PG_NOT_DEEP_SCRUBBED's count. 19,494 of 21,760 in the 10B test [004].",
            runbook=RB["scrub"],
            thresholds=NONZERO_BAD,
        ),
        st(
            "Share of PGs overdue",
            "percentunit",
            [Q(m("ceph_scale_pg_scrub_overdue_ratio"), kind)],
            desc="Overdue / all PGs, by kind.",
            runbook=RB["scrub"],
            thresholds=[(None, OK), (0.01, WARN), (0.1, CRIT)],
        ),
        st(
            "Oldest stamp",
            "s",
            [Q(m("ceph_scale_pg_scrub_oldest_age_seconds"), kind)],
            desc="Age of the oldest last_scrub_stamp / last_deep_scrub_stamp.",
            runbook=RB["scrub"],
        ),
        st(
            "Scrubbing now",
            "none",
            [Q(m("ceph_scale_pg_scrubbing"), kind)],
            desc="PGs in scrubbing (deep_scrub: scrubbing+deep) state now.",
            runbook=RB["deep_scrub_storm"],
        ),
        st(
            "Time to clear the backlog",
            "s",
            [Q(m("ceph_scale_pg_scrub_backlog_clear_seconds"), kind)],
            desc="Overdue PGs / completion rate over scrub_rate_window_seconds; +Inf (shown ∞) when nothing "
            "completes, 0 without backlog.",
            runbook=RB["scrub"],
            thresholds=[(None, OK), (DAY, WARN), (7 * DAY, CRIT)],
            graph=False,
        ),
        db.Row("Backlog over time"),
        ts(
            "PGs overdue, and all PGs",
            "none",
            [Q(m("ceph_scale_pg_scrub_overdue"), f"{CL} overdue {{{{kind}}}}"), Q(m("ceph_scale_pgs"), f"{CL} PGs")],
            desc="Overdue PGs by kind against the PG count (dashed).",
            runbook=RB["scrub_growing"],
            overrides=[dashed(".* PGs$", "text")],
            min_val=0,
        ),
        ts(
            "Oldest stamp age vs the overdue line",
            "s",
            [
                Q(m("ceph_scale_pg_scrub_oldest_age_seconds"), f"{CL} oldest {{{{kind}}}}"),
                Q(m("ceph_scale_pg_scrub_overdue_after_seconds"), f"{CL} overdue after ({{{{kind}}}})"),
            ],
            desc="Dashed: the stamp age from which a PG counts as overdue (interval x (1 + mon_warn ratio)). "
            "Log scale: the scrub and deep-scrub lines are days apart.",
            runbook=RB["scrub"],
            overrides=[dashed(".*overdue after.*")],
            log=10,
        ),
        ts(
            "Scrubs completed per second",
            "ops",
            [Q(f"max by (cluster, kind) ({rate('ceph_scale_pg_scrubs_completed_total')})", kind)],
            desc="PGs whose stamp moved forward, per second.",
            runbook=RB["scrub"],
            min_val=0,
        ),
        ts(
            "Time to clear the backlog at the current rate (log scale)",
            "s",
            [Q(m("ceph_scale_pg_scrub_backlog_clear_seconds"), kind)],
            desc="Overdue PGs / completion rate. Lines: one day, one week; log scale so that minutes and "
            "weeks both read. Gaps: no backlog (0) or nothing completing (+Inf).",
            runbook=RB["scrub"],
            thresholds=[(None, OK), (DAY, WARN), (7 * DAY, CRIT)],
            log=10,
            soft_max=8 * DAY,
        ),
        db.Row("Deep-scrub storm"),
        ts(
            "PGs scrubbing now vs S3 ops/s",
            "none",
            [Q(m("ceph_scale_pg_scrubbing"), f"{CL} scrubbing {{{{kind}}}}"), Q(S3_OPS, f"{CL} S3 {{{{op}}}}")],
            desc="At ~500 M objects deep scrubbing 'at a high rate' under heavy PUTs cut PUT and GET ops "
            "[001, 003]: many deep scrubs while S3 ops drop is a storm; lower osd_scrub priority / rate.",
            runbook=RB["deep_scrub_storm"],
            overrides=[right_axis(".* S3 .*", "ops", "S3 ops/s")],
            axis_label="PGs",
            min_val=0,
            w=24,
        ),
    ]
    return new_board(
        "scrub",
        "Ceph scale: scrub backlog",
        "PGs overdue for scrub and deep scrub, the oldest stamp, scrubs running now, completion rate "
        "and the time to clear the backlog [004, 001, 003].",
        panels,
    )


# --- load against the HDD baseline -------------------------------------------------------------


def load():
    panels = [
        db.Row("Now"),
        st(
            "S3 load vs HDD baseline",
            "percentunit",
            [Q(m("ceph_scale_s3_load_ratio", 'op="mixed"', 'unit="ops"'), CL)],
            desc="PUT/60 + GET/90 ops/s per HDD OSD [004]; 100 % = the measured single-HDD limit.",
            runbook=RB["load"],
            thresholds=LOAD,
        ),
        st(
            "Headroom (ops/s the cluster can add)",
            "ops",
            [Q(m("ceph_scale_s3_ops_headroom_per_second"), f"{CL} {{{{op}}}}")],
            desc="Ops/s of each op the cluster can add before the mixed ratio reaches 1.",
            runbook=RB["load"],
            thresholds=[(None, CRIT), (0, OK)],
            w=5,
        ),
        st(
            "HDD OSDs",
            "none",
            [Q(m("ceph_scale_hdd_osds"), CL)],
            desc="Up and in HDD OSDs: the denominator of the per-HDD rates.",
            runbook=RB["load"],
            w=3,
        ),
        st(
            "RGW instances",
            "none",
            [Q(m("ceph_scale_rgw_instances"), CL)],
            desc="RGW daemons reporting counters. The 1B test ran 2 per node [000].",
            runbook=RB["load"],
            w=3,
        ),
        st(
            "Hot OSDs",
            "none",
            [Q(m("ceph_scale_osd_hotspots"), CL)],
            desc="OSDs above osd_hotspot_ratio (2) x the mean op rate.",
            runbook=RB["hot_osd"],
            thresholds=NONZERO_BAD,
        ),
        st(
            "Expected drop for the OSDs down",
            "percentunit",
            [Q(m("ceph_scale_degraded_expected_drop_ratio"), f"{CL} {{{{op}}}}")],
            desc="From the 10B test's degraded runs: 2 % of HDDs down cost 6 % PUT / 8 % GET, one node "
            "(17 %) 21 % / 25 % [004].",
            runbook=RB["degraded"],
            thresholds=[(None, OK), (0.05, WARN), (0.2, CRIT)],
            w=5,
        ),
        db.Row("Against the single-HDD baseline [004]"),
        ts(
            "S3 ops/s per HDD OSD vs 60 PUT / 90 GET",
            "ops",
            [
                Q(S3_OPS + PER_HDD, f"{CL} {{{{op}}}} per HDD OSD"),
                Q(config("baseline_(put|get)_ops_per_hdd", "=~"), f"{CL} baseline {{{{option}}}}"),
            ],
            desc="S3 op rate / up-and-in HDD OSDs. Dashed: the configured baseline (64 KB objects: 60 PUT, "
            "90 GET ops/s per HDD with 4 % flash for BlueStore [004]).",
            runbook=RB["load"],
            overrides=[dashed(".*baseline.*")],
            min_val=0,
        ),
        ts(
            "S3 bytes/s per HDD OSD vs 34 PUT / 37 GET MB/s",
            "Bps",
            [
                Q(S3_BYTES + PER_HDD, f"{CL} {{{{op}}}} per HDD OSD"),
                Q(config("baseline_(put|get)_bytes_per_hdd", "=~"), f"{CL} baseline {{{{option}}}}"),
            ],
            desc="S3 byte rate / HDD OSDs. Dashed: the configured baseline (128 MB objects: 34 MB/s PUT, "
            "37 MB/s GET per HDD [004]).",
            runbook=RB["load"],
            overrides=[dashed(".*baseline.*")],
            min_val=0,
        ),
        ts(
            "Load as a share of the baseline (100 % = at the HDD limit)",
            "percentunit",
            [Q(m("ceph_scale_s3_load_ratio"), f"{CL} {{{{op}}}} ({{{{unit}}}})")],
            desc="Per-HDD rate / baseline: ops against 60/90, bytes against 34/37 MB/s; mixed = put/60 + get/90.",
            runbook=RB["load"],
            thresholds=BASELINE,
            soft_max=1,
            min_val=0,
        ),
        ts(
            "S3 ops/s per RGW instance",
            "ops",
            [
                Q(
                    f"max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_ops_total')})",
                    f"{CL} rgw {{{{instance_id}}}} {{{{op}}}}",
                )
            ],
            desc="Per RGW daemon; the 1B test measured ~1,000 PUT and ~500 GET ops/s per RGW for 64 KB [000].",
            runbook=RB["load"],
            min_val=0,
        ),
        db.Row("Per OSD"),
        ts(
            "Client ops/s per OSD and the mean",
            "ops",
            [
                Q(m("ceph_scale_osd_ops_per_second", 'ceph_daemon=~"$osd"'), f"{CL} {{{{ceph_daemon}}}} {{{{op}}}}"),
                Q(
                    f"avg by (cluster, op) (max by (cluster, ceph_daemon, op) ({m('ceph_scale_osd_ops_per_second')}))",
                    f"{CL} mean {{{{op}}}}",
                ),
            ],
            desc="Each OSD's client op rate (EC 4+2: a 64 KB PUT is six 16 KB chunk writes [003]). Dashed: "
            "the mean over OSDs.",
            runbook=RB["hot_osd"],
            overrides=[dashed(".* mean .*", "text")],
            min_val=0,
            # Two series per OSD and the means: room for the legend.
            h=11,
        ),
        bars(
            "Hot OSDs: op rate / mean",
            "suffix:× mean",
            [Q(top(10, "ceph_scale_osd_hotspot_ratio"), f"{CL} {{{{ceph_daemon}}}}", instant=True)],
            desc="Top-K OSDs (osd_top_hot) by op rate over the mean of up OSDs; hot from 2x (osd_hotspot_ratio).",
            runbook=RB["hot_osd"],
            thresholds=HOTSPOT,
            w=12,
            h=11,
        ),
    ]
    return new_board(
        "load",
        "Ceph scale: load against the HDD baseline",
        "S3 ops and bytes per HDD OSD against the 10B test's single-HDD baseline (60 PUT / 90 GET ops/s, "
        "34 / 37 MB/s), per RGW, per OSD, and hot OSDs [004, 000, 003].",
        panels,
        extra_vars=[osd_variable("ceph_scale_osd_ops_per_second")],
    )


BOARDS = {
    "overview": overview,
    "bluefs": bluefs,
    "capacity": capacity,
    "rgw-resharding": rgw,
    "scrub": scrub,
    "load": load,
}
