"""The signals a replay's timeline draws beside its alerts (a scenario's `timeline:` names them):
each one value per cluster and scrape, read from the samples the simulator served, so the row
shows what Prometheus scraped, not the scenario's intent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Trace:
    title: str
    metric: str
    where: dict[str, tuple[str, ...]] = field(default_factory=dict)  # label -> the values counted
    combine: str = "sum"  # over the matching series of one scrape: "sum" or "max"
    # Which of a column's samples the row shows: "min" where a dip is the story (ops falling),
    # "max" where a rise is (OSDs down, a backlog), so a short event is not averaged away.
    pick: str = "max"
    percent: bool = False  # a ratio, shown as a percentage
    # A count by state whose series exists only while the count is above 0: no series in a
    # scrape is 0, not a gap.
    zero_when_absent: bool = False
    days: bool = False  # seconds, shown in days; +Inf (a runway of "never") as "never"

    def value_text(self, v: float) -> str:
        if self.days:
            return "never" if v == math.inf else f"{v / 86400:,.1f} days"
        return f"{v:.0%}" if self.percent else f"{v:,.0f}"


TRACES = {
    "s3_ops": Trace("S3 ops/s (put + get)", "ceph_scale_s3_ops_per_second", pick="min"),
    "fullest_osd": Trace("fill of the fullest OSD", "ceph_scale_osd_fullest_used_ratio", combine="max", percent=True),
    "osds_down": Trace("OSDs down", "ceph_scale_osds", {"state": ("down_in", "down_out")}, zero_when_absent=True),
    "spilled_osds": Trace("OSDs spilling BlueFS", "ceph_scale_bluefs_spillover_osds"),
    "scrub_overdue": Trace("PGs overdue for scrub", "ceph_scale_pg_scrub_overdue", {"kind": ("scrub",)}),
    "deep_overdue": Trace("PGs overdue for deep scrub", "ceph_scale_pg_scrub_overdue", {"kind": ("deep_scrub",)}),
    "deep_scrubbing": Trace(
        "PGs deep scrubbing", "ceph_scale_pg_scrubbing", {"kind": ("deep_scrub",)}, zero_when_absent=True
    ),
    "pgs_recovering": Trace("PGs recovering or backfilling", "ceph_scale_pg_recovering", zero_when_absent=True),
    "reshard_queue": Trace("reshard queue", "ceph_scale_rgw_reshard_queued"),
    "top_bucket_objects": Trace("objects of the largest bucket", "ceph_scale_rgw_top_bucket_objects", combine="max"),
    "fill_runway": Trace(
        "runway to the fill target",
        "ceph_scale_runway_seconds",
        {"limit": ("fill_cluster",)},
        combine="max",
        pick="min",
        days=True,
    ),
}
DEFAULT = ("s3_ops",)


def values(names: tuple[str, ...], samples: list[tuple[str, dict[str, str], float]]) -> dict[str, float]:
    """Each named trace's value in one successful scrape's samples; a trace with no sample (a
    rate not known yet) has none, and its row shows a gap there, as it does for a failed scrape."""
    wanted = {TRACES[n].metric for n in names}
    found: dict[str, list[float]] = {n: [] for n in names}
    for metric, labels, value in samples:
        if metric not in wanted or math.isnan(value):
            continue
        for n in names:
            tr = TRACES[n]
            if tr.metric == metric and all(labels.get(k) in vs for k, vs in tr.where.items()):
                found[n].append(value)
    out = {}
    for n, vs in found.items():
        if vs:
            out[n] = max(vs) if TRACES[n].combine == "max" else sum(vs)
        elif TRACES[n].zero_when_absent:
            out[n] = 0.0
    return out
