"""The reshard signal's panels: objects per shard against rgw_max_objs_per_shard, reshards over the
S3 throughput they cut, and the buckets to pre-shard [000, 004]."""

from __future__ import annotations

from ...config import Thresholds
from ...panel_queries import CL, S3_OPS, m, rate, top
from ...panel_spec import (
    CRIT,
    HIGH,
    INFO,
    NONZERO_BAD,
    OK,
    WARN,
    Mark,
    Panel,
    Query,
    Step,
    bars,
    coloured,
    runbook,
    st,
    tbl,
    ts,
)

STORM = runbook("CephScaleRgwReshardStorm")
NEAR_LIMIT = runbook("CephScaleRgwBucketsNearShardLimit")
OVER_LIMIT = runbook("CephScaleRgwBucketsOverShardLimit")
NEXT = runbook("CephScaleRgwBucketsPredictedToReshard")
QUEUE = runbook("CephScaleRgwReshardQueueStuck")
# Objects per shard / limit, warn at the default rgw_shard_warn_ratio; 1 is the per-shard limit,
# where RGW reshards.
SHARD_FILL: list[Step] = [(None, OK), (Thresholds().rgw_shard_warn_ratio, WARN), (1.0, CRIT)]
HISTOGRAM = "Buckets by shard fill (clusters summed)"


def buckets_at_limit_glance() -> Panel:
    return st(
        "Buckets at / near the shard limit",
        "none",
        [
            Query(m("ceph_scale_rgw_buckets_over_shard_limit"), f"{CL} over limit"),
            Query(m("ceph_scale_rgw_buckets_near_reshard"), f"{CL} near"),
        ],
        desc="Buckets whose objects per shard reached the limit (reshard due) or the warn share of it.",
        runbook=NEAR_LIMIT,
        thresholds=NONZERO_BAD,
        graph=False,
    )


def s3_ops(title: str, w: int) -> Panel:
    """S3 ops/s, which the boards mark with the completed reshards (and the plunges): `title`
    names it in the board's annotation filter."""
    return ts(
        title,
        "ops",
        [Query(S3_OPS, f"{CL} {{{{op}}}}")],
        desc="S3 PUT and GET operations per second from the RGW perf counters. Orange marks: completed "
        "bucket reshards; the study saw 'sudden plunges' in throughput at each one [000]. Red regions: "
        "plunges the exporter detected, titled with their likely cause and its evidence.",
        runbook=STORM,
        w=w,
        min_val=0,
        axis_label="S3 ops/s",
    )


def closest_to_resharding() -> Panel:
    return bars(
        "Buckets closest to resharding",
        "percentunit",
        [
            Query(
                top(5, "ceph_scale_rgw_top_bucket_shard_fill_ratio", "tenant, bucket"),
                f"{CL} {{{{bucket}}}}",
                instant=True,
            )
        ],
        desc="Objects per shard / rgw_max_objs_per_shard; at 100 % RGW reshards the bucket.",
        runbook=NEAR_LIMIT,
        thresholds=SHARD_FILL,
        max_val=1,
        w=6,
    )


def buckets() -> Panel:
    return st("Buckets", "none", [Query(m("ceph_scale_rgw_buckets"), CL)], desc="Buckets seen.", runbook=STORM)


def objects() -> Panel:
    return st(
        "Objects",
        "short",
        [Query(m("ceph_scale_rgw_objects"), CL)],
        desc="Objects over all buckets. The study's guidance: about 100 K objects per bucket [000, 004].",
        runbook=STORM,
    )


def near_limit() -> Panel:
    return st(
        "Buckets near the shard limit",
        "none",
        [Query(m("ceph_scale_rgw_buckets_near_reshard"), CL)],
        desc="At or above rgw_shard_warn_ratio (80 %) of rgw_max_objs_per_shard: they reshard next.",
        runbook=NEAR_LIMIT,
        thresholds=[(None, OK), (1, WARN)],
    )


def over_limit() -> Panel:
    return st(
        "Buckets over the shard limit",
        "none",
        [Query(m("ceph_scale_rgw_buckets_over_shard_limit"), CL)],
        desc="Reshard due.",
        runbook=OVER_LIMIT,
        thresholds=NONZERO_BAD,
    )


def queue() -> Panel:
    return st(
        "Reshard queue",
        "none",
        [Query(m("ceph_scale_rgw_reshard_queued"), CL)],
        desc="Entries in the reshard queue (radosgw-admin reshard list).",
        runbook=QUEUE,
        thresholds=[(None, OK), (1, WARN)],
    )


def in_progress() -> Panel:
    return st(
        "Reshards in progress",
        "none",
        [Query(m("ceph_scale_rgw_reshard_in_progress"), CL)],
        desc="Queue entries being processed now; writes to those buckets block meanwhile.",
        runbook=QUEUE,
        thresholds=[(None, OK), (1, WARN)],
    )


def reshards_over_time() -> Panel:
    return ts(
        "Reshards completed and queued",
        "none",
        [
            Query(
                f"max by (cluster) ({rate('ceph_scale_rgw_reshard_events_total', fn='increase')})",
                f"{CL} completed",
            ),
            Query(m("ceph_scale_rgw_reshard_queued"), f"{CL} queued"),
            Query(m("ceph_scale_rgw_reshard_in_progress"), f"{CL} in progress"),
        ],
        desc="Completed reshards per rate interval (a bucket's instance id or shard count changed), "
        "queue length and entries in progress. Many at once is a reshard storm.",
        runbook=STORM,
        w=8,
        min_val=0,
    )


def shard_fill_histogram() -> Panel:
    return bars(
        HISTOGRAM,
        "none",
        [
            Query(
                f"sum by (le) (max by (cluster, le) ({m('ceph_scale_rgw_bucket_shard_fill_ratio_bucket')}))",
                "≤ {{le}}",
                instant=True,
                fmt="heatmap",
            )
        ],
        desc="How many buckets sit in each band of objects-per-shard / rgw_max_objs_per_shard "
        "(100 % = the limit, where RGW reshards), summed over the selected clusters (pick one in "
        "the cluster variable to see a single cluster). Red: over the limit.",
        runbook=NEAR_LIMIT,
        overrides=[coloured("≤ (1.5|2|\\+Inf)", CRIT)],
        thresholds=[(None, INFO)],
        w=6,
        h=9,
    )


def top_buckets() -> Panel:
    return bars(
        "Top buckets: objects per shard / limit",
        "percentunit",
        [
            Query(
                top(10, "ceph_scale_rgw_top_bucket_shard_fill_ratio", "tenant, bucket"),
                f"{CL} {{{{bucket}}}}",
                instant=True,
            )
        ],
        desc="Top-K buckets (rgw_top_buckets) by shard fill; 80 % warn, 100 % reshard.",
        runbook=NEAR_LIMIT,
        thresholds=SHARD_FILL,
        max_val=1,
        w=6,
        h=9,
    )


def to_preshard() -> Panel:
    families = (
        "ceph_scale_rgw_top_bucket_shard_fill_ratio",
        "ceph_scale_rgw_top_bucket_objects",
        "ceph_scale_rgw_top_bucket_shards",
        "ceph_scale_rgw_top_bucket_recommended_shards",
    )
    return tbl(
        "Buckets to pre-shard",
        "none",
        [Query(m(name), instant=True, fmt="table") for name in families],
        desc="Pre-sharded buckets gave deterministic performance [000]: `radosgw-admin bucket reshard "
        "--bucket B --num-shards N` with the recommended N (keeps them at rgw_preshard_fill_ratio of "
        "the limit, next prime).",
        runbook=NEAR_LIMIT,
        columns={
            "A": ("objects/shard vs limit", "percentunit"),
            "B": ("objects", "short"),
            "C": ("shards", "none"),
            "D": ("recommended shards", "none"),
        },
        keep=["cluster", "tenant", "bucket"],
        sort_by="objects/shard vs limit",
        h=9,
    )


def next_to_reshard() -> Panel:
    return bars(
        "Expected to reshard next: time to the shard limit",
        "s",
        [
            Query(
                top(10, "ceph_scale_rgw_bucket_reshard_seconds", "tenant, bucket", fn="bottomk"),
                f"{CL} {{{{bucket}}}}",
                instant=True,
            )
        ],
        desc="The buckets predicted to reach rgw_max_objs_per_shard soonest, at each one's own object "
        "growth over rgw_growth_window_seconds; 0 = at the limit now. A bucket due within a day is "
        "worth pre-sharding at a quiet hour rather than resharding under load [000].",
        runbook=NEXT,
        thresholds=[(None, CRIT), (3600, WARN), (86400, OK)],
        w=24,
        h=8,
    )


# The study's "sudden plunges" came with each reshard [000]: each completed one is marked.
MARKS = {
    "reshards": Mark(
        "Reshards",
        HIGH,
        f"max by (cluster) ({rate('ceph_scale_rgw_reshard_events_total', fn='increase')}) > 0",
        "Bucket reshard completed",
        "A bucket's index was resharded (cluster {{cluster}})",
        "cluster",
    ),
}
