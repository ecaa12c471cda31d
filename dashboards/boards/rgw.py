"""The RGW resharding board: shard fill, reshards, the buckets expected to reshard next [000, 004]."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ceph_scale.core.signals.reshard import panels as reshard
from ceph_scale.core.signals.tenants import panels as tenants

from ..board_frame import new_board, owner_variables

OPS = "S3 ops/s with reshards marked (orange)"


def rgw():
    panels = [
        db.Row("Buckets now"),
        reshard.buckets(),
        reshard.objects(),
        reshard.near_limit(),
        reshard.over_limit(),
        reshard.queue(),
        reshard.in_progress(),
        db.Row("Throughput and reshards"),
        reshard.s3_ops(OPS, 16),
        reshard.reshards_over_time(),
        db.Row("Objects per shard against the limit"),
        reshard.shard_fill_histogram(),
        reshard.top_buckets(),
        reshard.to_preshard(),
        reshard.next_to_reshard(),
        db.Row("Usage per tenant and bucket"),
        tenants.tenants_table(),
        tenants.runway_soonest(),
        tenants.top_buckets_by_bytes(),
        tenants.top_buckets_by_objects(),
        tenants.top_buckets_by_growth(),
        tenants.past_advised_count(),
        tenants.past_advised_list(),
    ]
    return new_board(
        "rgw-resharding",
        "Ceph scale: RGW buckets and resharding",
        "Objects per shard against rgw_max_objs_per_shard, reshard events over the S3 ops graph, and "
        "the buckets to pre-shard [000, 004].",
        panels,
        extra_vars=owner_variables(),
        marks={"reshards": [OPS], "plunges": [OPS], "client_drops": [OPS], "osds_down": [OPS]},
        time_from="now-24h",
    )
