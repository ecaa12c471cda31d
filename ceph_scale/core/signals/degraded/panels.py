"""The degraded signal's panel: the S3 throughput the OSDs down are expected to cost, from the 10B
test's degraded runs [004]."""

from __future__ import annotations

from ...panel_queries import CL, m
from ...panel_spec import CRIT, OK, WARN, Panel, Query, runbook, st


def expected_drop() -> Panel:
    return st(
        "Expected drop for the OSDs down",
        "percentunit",
        [Query(m("ceph_scale_degraded_expected_drop_ratio"), f"{CL} {{{{op}}}}")],
        desc="From the 10B test's degraded runs: 2 % of HDDs down cost 6 % PUT / 8 % GET, one node "
        "(17 %) 21 % / 25 % [004].",
        runbook=runbook("CephScaleOsdsDownExpectedDrop"),
        thresholds=[(None, OK), (0.05, WARN), (0.2, CRIT)],
        w=5,
    )
