"""The plunge signal's panels: S3 ops below their recent baseline against the clients' demand, and
the plunges counted by their likely cause [000, 001, 004]."""

from __future__ import annotations

from ...panel_queries import CL, config, m, rate
from ...panel_spec import Panel, Query, dashed, runbook, ts

PLUNGE = runbook("CephScaleS3ThroughputPlunge")
BELOW_BASELINE = "S3 ops below their recent baseline, and the clients' demand"
COUNTED = rate("ceph_scale_s3_plunges_total", fn="increase")


def below_baseline() -> Panel:
    return ts(
        BELOW_BASELINE,
        "percentunit",
        [
            Query(m("ceph_scale_s3_plunge_drop_ratio"), f"{CL} {{{{op}}}} below the baseline"),
            Query(m("ceph_scale_s3_plunge_demand_ratio"), f"{CL} {{{{op}}}} demand vs the baseline"),
            Query(config("plunge_drop_ratio"), f"{CL} line {{{{option}}}}"),
        ],
        desc="How far each op's rate over the last plunge_window_seconds is below the median of its recent "
        "windows, and the clients' demand against that baseline (ops in flight by Little's law, requests in "
        "the RGW, requests received). Down past the dashed line with the demand near 100 %: the cluster is "
        "slower (a plunge, red region titled with its likely cause); the demand down as much as the ops: "
        "the clients asked less. The study: 5.4K to 3.9K ops/s with plunges at each reshard [000], a brief "
        "significant drop from deep scrubs [001], 21 % PUT / 25 % GET with one node down [004].",
        runbook=PLUNGE,
        overrides=[dashed(".* line .*")],
        w=16,
    )


def counted_by_cause() -> Panel:
    return ts(
        "Plunges counted, by likely cause",
        "none",
        [
            Query(f"max by (cluster, cause) ({COUNTED})", f"{CL} {{{{cause}}}}"),
            Query(f"max by (cluster) ({rate('ceph_scale_s3_demand_drops_total', fn='increase')})", f"{CL} clients"),
        ],
        desc="Plunges as they end, under the cause they were attributed to (none: no known cause was "
        "active), and the drops the clients made (no cluster fault, no cause).",
        runbook=PLUNGE,
        min_val=0,
        w=8,
    )
