"""The plunge signal's panels: S3 ops below their recent baseline against the clients' demand, and
the plunges counted by their likely cause [000, 001, 004]."""

from __future__ import annotations

from ...panel_queries import CL, config, m, rate
from ...panel_spec import CRIT, HIGH, INFO, OK, PURPLE, WARN, Mark, Panel, Query, coloured, dashed, runbook, ts
from .causes import NO_KNOWN_CAUSE
from .derive import ALL_CAUSES, ONE_RGW

PLUNGE = runbook("CephScaleS3ThroughputPlunge")
BELOW_BASELINE = "S3 ops below their recent baseline, and the clients' demand"
COUNTED_TITLE = "Plunges counted, by likely cause"
COUNTED = rate("ceph_scale_s3_plunges_total", fn="increase")
CLIENTS = "clients"
# One colour per cause, none shared, each the colour of its own annotation where the boards draw
# one (reshards orange, OSDs down purple, client drops blue: dashboards/annotations.py).
CAUSE_COLOURS: dict[str, str] = {
    "reshard": HIGH,
    "deep_scrub": WARN,
    "spillover": "dark-red",
    "osds_down": PURPLE,
    "slow_ops": "dark-purple",  # slow OSDs, beside the OSDs down
    ONE_RGW: "dark-blue",
    "recovery": OK,
    "fill": CRIT,
    NO_KNOWN_CAUSE: "text",
    CLIENTS: INFO,
}
if set(CAUSE_COLOURS) != {*ALL_CAUSES, CLIENTS}:  # a new cause needs its own colour
    raise ImportError(f"plunge panels: a colour for each cause of {ALL_CAUSES}")
# The axis of the drop and the demand: a drop is 0..100 % below the baseline; the demand is drawn
# up to twice the baseline. Past those (an op idle in the baseline, then busy, reads as thousands
# of percent) the lines are held at the edge, so the plunge line stays readable.
DEMAND_SHOWN_MAX = 2.0


def below_baseline() -> Panel:
    return ts(
        BELOW_BASELINE,
        "percentunit",
        [
            Query(f"clamp({m('ceph_scale_s3_plunge_drop_ratio')}, 0, 1)", f"{CL} {{{{op}}}} below the baseline"),
            Query(
                f"clamp({m('ceph_scale_s3_plunge_demand_ratio')}, 0, {DEMAND_SHOWN_MAX:g})",
                f"{CL} {{{{op}}}} demand vs the baseline",
            ),
            Query(config("plunge_drop_ratio"), f"{CL} line {{{{option}}}}"),
        ],
        desc="How far each op's rate over the last plunge_window_seconds is below the median of its recent "
        "windows (0 while at or above it), and the clients' demand against that baseline (ops in flight by "
        "Little's law, requests in the RGW, requests received; drawn up to 200 %). Down past the dashed line "
        "with the demand near 100 %: the cluster is slower (a plunge, red region titled with its likely "
        "cause); the demand down as much as the ops: the clients asked less (blue region). The study: 5.4K "
        "to 3.9K ops/s with plunges at each reshard [000], a brief significant drop from deep scrubs [001], "
        "21 % PUT / 25 % GET with one node down [004].",
        runbook=PLUNGE,
        overrides=[dashed(".* line .*")],
        min_val=0,
        max_val=DEMAND_SHOWN_MAX,
        w=16,
    )


def counted_by_cause() -> Panel:
    return ts(
        COUNTED_TITLE,
        "none",
        [
            Query(f"max by (cluster, cause) ({COUNTED})", f"{CL} {{{{cause}}}}"),
            Query(f"max by (cluster) ({rate('ceph_scale_s3_demand_drops_total', fn='increase')})", f"{CL} {CLIENTS}"),
        ],
        desc="Plunges as they end, under the cause they were attributed to (none: no known cause was "
        "active), and the drops the clients made (no cluster fault, no cause). Each cause has its own "
        "colour: reshard orange, OSDs down purple, clients blue, as their marks on the other panels.",
        runbook=PLUNGE,
        overrides=[coloured(f".* {cause}$", colour) for cause, colour in CAUSE_COLOURS.items()],
        min_val=0,
        w=8,
    )


# A plunge is a region titled with its likely cause and evidence; the drops the clients made (ops
# and demand fell together: no fault, no cause) are marked too, so that a fall on an ops or latency
# panel that is not a plunge reads as such.
MARKS = {
    "plunges": Mark(
        "Plunges",
        CRIT,
        f"max by (cluster, cause, evidence) ({m('ceph_scale_s3_plunge_info')})",
        "S3 plunge, likely cause: {{cause}}",
        "{{evidence}} (cluster {{cluster}})",
        "cause",
    ),
    "client_drops": Mark(
        "Client drops",
        INFO,
        f"max by (cluster) ({m('ceph_scale_s3_demand_drop_active')}) > 0",
        "S3 ops fell with the clients' demand: not a plunge",
        "The clients asked less; no cluster fault (cluster {{cluster}})",
        "cluster",
    ),
}
