"""The latency signal's panels: the S3 op latency the RGWs' own counters give, for the cluster and
per RGW; rising while ops fall, the cluster is slower rather than asked less [004]."""

from __future__ import annotations

from ...panel_queries import CL, PICKED_RGWS, C, rate
from ...panel_spec import Panel, Query, runbook, ts

SLOWER = runbook("CephScaleS3SlowerWhileOpsFall")
LATENCY = "S3 op latency"
LATENCY_PER_RGW = "S3 op latency per RGW instance"
# Each RGW once whichever producers export it (max over them before dividing); no ops in the
# interval is no latency, not a division by zero.
RGW_LATENCY = (
    f"max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_latency_seconds_total', PICKED_RGWS)})"
    f" / (max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_latency_ops_total', PICKED_RGWS)}) > 0)"
)


def latency() -> Panel:
    return ts(
        LATENCY,
        "s",
        [
            Query(
                "max by (cluster, op) (cluster_op:ceph_scale_rgw_s3_latency_seconds:mean5m{" + C + "})",
                f"{CL} {{{{op}}}}",
            )
        ],
        desc="Mean latency of S3 PUT and GET over 5 minutes, from the RGWs' own latency counters. The 10B "
        "run's users felt 510 ms per PUT and 27 ms per GET at 17,800 PUT/s [004]; rising while ops fall, "
        "the cluster is slower rather than asked less.",
        runbook=SLOWER,
        min_val=0,
    )


def latency_per_rgw() -> Panel:
    return ts(
        LATENCY_PER_RGW,
        "s",
        [Query(RGW_LATENCY, f"{CL} rgw {{{{instance_id}}}} {{{{op}}}}")],
        desc="Mean latency of the S3 PUTs and GETs of each RGW daemon picked in the RGW variable, over the "
        "rate interval, from its own latency counters. One RGW slower than the others points at that "
        "daemon or its host (its queue, its network); all of them slower together, at the cluster behind "
        "them. The 10B run: 510 ms per PUT, 27 ms per GET [004].",
        runbook=SLOWER,
        min_val=0,
    )
