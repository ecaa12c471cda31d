"""The RGW resharding board: shard fill, reshards, the buckets expected to reshard next [000, 004]."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.models import dashboard as dm

from ..board_frame import new_board
from ..common import CRIT, INFO, NONZERO_BAD, OK, SHARD_FILL, WARN, Q, m, rate
from ..panel_kinds import bars, st, tbl, ts
from ..runbooks import RB
from .base import (
    CL,
    HISTOGRAM,
    RGW_OPS,
    s3_ops,
    top,
)


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
        plunges_on=[RGW_OPS],
        time_from="now-24h",
    )
    return board


# --- scrub -------------------------------------------------------------------------------------
