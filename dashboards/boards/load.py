"""The load board: S3 ops and bytes per HDD OSD against the study's baseline [004, 000, 003]."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ..board_frame import new_board
from ..common import BASELINE, CRIT, HOTSPOT, NONZERO_BAD, OK, WARN, C, Q, m, rate
from ..panel_kinds import bars, dashed, st, ts
from ..runbooks import RB
from .base import (
    CL,
    LOAD,
    PER_HDD,
    S3_BYTES,
    S3_OPS,
    config,
    osd_variable,
    top,
)

PER_HDD_OPS = "S3 ops/s per HDD OSD vs 60 PUT / 90 GET"
PLUNGE = "S3 ops below their recent baseline, and the clients' demand"
COUNTED = rate("ceph_scale_s3_plunges_total", fn="increase")
# Each RGW once whichever producers export it (max over them before dividing); no ops in the
# interval is no latency, not a division by zero.
RGW_LATENCY = (
    f"max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_latency_seconds_total')})"
    f" / (max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_latency_ops_total')}) > 0)"
)


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
            PER_HDD_OPS,
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
        ts(
            "S3 op latency",
            "s",
            [
                Q(
                    "max by (cluster, op) (cluster_op:ceph_scale_rgw_s3_latency_seconds:mean5m{" + C + "})",
                    f"{CL} {{{{op}}}}",
                )
            ],
            desc="Mean latency of S3 PUT and GET over 5 minutes, from the RGWs' own latency counters. The 10B "
            "run's users felt 510 ms per PUT and 27 ms per GET at 17,800 PUT/s [004]; rising while ops fall, "
            "the cluster is slower rather than asked less.",
            runbook=RB["latency"],
            min_val=0,
        ),
        ts(
            "S3 op latency per RGW instance",
            "s",
            [Q(RGW_LATENCY, f"{CL} rgw {{{{instance_id}}}} {{{{op}}}}")],
            desc="Mean latency of each RGW daemon's S3 PUTs and GETs over the rate interval, from its own "
            "latency counters. One RGW slower than the others points at that daemon or its host (its queue, "
            "its network); all of them slower together, at the cluster behind them. The 10B run: 510 ms per "
            "PUT, 27 ms per GET [004].",
            runbook=RB["latency"],
            min_val=0,
        ),
        db.Row("S3 throughput plunges, with their likely cause [000, 001, 004]"),
        ts(
            PLUNGE,
            "percentunit",
            [
                Q(m("ceph_scale_s3_plunge_drop_ratio"), f"{CL} {{{{op}}}} below the baseline"),
                Q(m("ceph_scale_s3_plunge_demand_ratio"), f"{CL} {{{{op}}}} demand vs the baseline"),
                Q(config("plunge_drop_ratio"), f"{CL} line {{{{option}}}}"),
            ],
            desc="How far each op's rate over the last plunge_window_seconds is below the median of its recent "
            "windows, and the clients' demand against that baseline (ops in flight by Little's law, requests in "
            "the RGW, requests received). Down past the dashed line with the demand near 100 %: the cluster is "
            "slower (a plunge, red region titled with its likely cause); the demand down as much as the ops: "
            "the clients asked less. The study: 5.4K to 3.9K ops/s with plunges at each reshard [000], a brief "
            "significant drop from deep scrubs [001], 21 % PUT / 25 % GET with one node down [004].",
            runbook=RB["plunge"],
            overrides=[dashed(".* line .*")],
            w=16,
        ),
        ts(
            "Plunges counted, by likely cause",
            "none",
            [
                Q(f"max by (cluster, cause) ({COUNTED})", f"{CL} {{{{cause}}}}"),
                Q(f"max by (cluster) ({rate('ceph_scale_s3_demand_drops_total', fn='increase')})", f"{CL} clients"),
            ],
            desc="Plunges as they end, under the cause they were attributed to (none: no known cause was "
            "active), and the drops the clients made (no cluster fault, no cause).",
            runbook=RB["plunge"],
            min_val=0,
            w=8,
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
        time_from="now-3h",
        plunges_on=[PER_HDD_OPS, PLUNGE],
    )
