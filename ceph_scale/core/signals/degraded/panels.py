"""The degraded signal's panel: the S3 throughput the OSDs down are expected to cost, from the 10B
test's degraded runs [004]."""

from __future__ import annotations

from ...config import Thresholds
from ...panel_queries import CL, m
from ...panel_spec import CRIT, OK, PURPLE, WARN, Mark, Panel, Query, Step, runbook, st

# Yellow from the study's smallest degraded run (2 % of HDDs down cost 6 % PUT [004]); red where
# the expected drop is one the plunge detector calls a plunge (plunge_drop_ratio).
EXPECTED_DROP: list[Step] = [(None, OK), (0.05, WARN), (Thresholds().plunge_drop_ratio, CRIT)]


def expected_drop() -> Panel:
    return st(
        "Expected drop for the OSDs down",
        "percentunit",
        [Query(m("ceph_scale_degraded_expected_drop_ratio"), f"{CL} {{{{op}}}}")],
        desc="From the 10B test's degraded runs: 2 % of HDDs down cost 6 % PUT / 8 % GET, one node "
        "(17 %) 21 % / 25 % [004]. Red from plunge_drop_ratio: a drop that large is a plunge.",
        runbook=runbook("CephScaleOsdsDownExpectedDrop"),
        thresholds=EXPECTED_DROP,
        w=5,
    )


# The stall before an OSD is marked down, and the degraded state after, are the most common cause
# of a plunge at scale [004]: a region while any OSD is down and still in.
DOWN_IN = m("ceph_scale_osds", 'state="down_in"')
MARKS = {
    "osds_down": Mark(
        "OSDs down",
        PURPLE,
        f"sum by (cluster) (max by (cluster, device_class) ({DOWN_IN})) > 0",
        "OSDs down and in",
        "OSDs down while still in: their PGs' requests stall until marked down, then run degraded "
        "(cluster {{cluster}})",
        "cluster",
    ),
}
