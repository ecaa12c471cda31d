"""Degraded state: the throughput drop the study measured for OSDs down [004].

318 HDDs: 6 down (2 %) cost 6 % of PUT and 8 % of GET throughput; 53 down
(one node, 17 %) cost 21 % and 25 %. Between points the drop is
interpolated; past the last point the last segment is extended, up to 100 %.
"""

from __future__ import annotations

from ...families import Family, gauge
from ..signal_input import SignalInput
from .result import DegradedResult

# Flags that change what the signals mean: planned maintenance (noout), paused scrubs,
# paused recovery. A fixed set keeps the family bounded.
WATCHED_FLAGS = frozenset(
    {"noout", "noin", "noup", "nodown", "noscrub", "nodeep-scrub", "norebalance", "norecover", "nobackfill", "pause"}
)
# (share of OSDs down, PUT drop, GET drop)
STUDY_POINTS = ((0.0, 0.0, 0.0), (0.02, 0.06, 0.08), (0.17, 0.21, 0.25))


def expected_drop(down_share: float, column: int) -> float:
    points = STUDY_POINTS
    for (x0, *y0), (x1, *y1) in zip(points, points[1:]):
        if down_share <= x1:
            return y0[column] + (y1[column] - y0[column]) * (down_share - x0) / (x1 - x0)
    (x0, *y0), (x1, *y1) = points[-2], points[-1]
    slope = (y1[column] - y0[column]) / (x1 - x0)
    return min(1.0, y1[column] + slope * (down_share - x1))


def derive(given: SignalInput, state: None = None) -> list[Family]:
    snap = given.snap
    osd_map = snap.osd_map
    if osd_map is None or not osd_map.osds:
        return []
    states = gauge("osds", "OSDs by device class and state.", "device_class", "state")
    counts: dict[tuple[str, str], int] = {}
    for o in osd_map.osds:
        up_in = ("up" if o.up else "down") + "_" + ("in" if o.in_cluster else "out")
        key = (o.device_class, up_in)
        counts[key] = counts.get(key, 0) + 1
    for (device_class, up_in), n in sorted(counts.items()):
        states.add(n, device_class, up_in)
    # The study's drop is for HDD data OSDs that went down holding their data. One that is out
    # holds none (at 318 disks one always waits for its replacement, destroyed and out): it counts
    # neither as down nor in the total. Nor does an OSD of another class (an NVMe index OSD):
    # the table was measured per HDD, and its share would dilute or inflate the HDDs'.
    classes = given.th.hdd_classes
    holding = [o for o in osd_map.osds if o.in_cluster and o.device_class in classes]
    down = sum(1 for o in holding if not o.up) / len(holding) if holding else 0.0
    drop = gauge("degraded_expected_drop_ratio", "Expected S3 throughput drop for the share of HDD OSDs down.", "op")
    drop.add(expected_drop(down, 0), "put").add(expected_drop(down, 1), "get")
    given.judged(DegradedResult(down, expected_drop(down, 0), expected_drop(down, 1)))
    flags = gauge("osd_map_flag", "1 for each of the cluster-wide OSD flags that is set (noout, noscrub, ...).", "flag")
    for flag in sorted(osd_map.flags & WATCHED_FLAGS):
        flags.add(1, flag)
    return [states, gauge("osds_down_ratio", "Share of the in HDD OSDs that are down.").add(down), drop, flags]
