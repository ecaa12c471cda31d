"""The seven boards, by the name of their JSON file. A board file lists its rows and, in order, the
panels of the signals it shows (each signal's panels.py, ceph_scale/core/signals/<name>/).
Metric names are those of docs/metrics.md (and rules/recording.yml).

Numbers drawn on the boards come from docs/study.md: 70 / 80 / 90 % fill [000, 001], DB at
>= 4 % of the data device [004], 60 PUT / 90 GET ops/s and 34 / 37 MB/s per HDD OSD [004], a
per-shard limit of 1 (objects per shard / rgw_max_objs_per_shard) [000]. Absolute baselines are
read from ``ceph_scale_config`` so a changed threshold moves the line too.
"""

from __future__ import annotations

from .bluefs import bluefs
from .capacity import capacity
from .load import load_board
from .overview import overview
from .rgw import rgw
from .runway import runway_board
from .scrub import scrub_board

BOARDS = {
    "overview": overview,
    "bluefs": bluefs,
    "capacity": capacity,
    "rgw-resharding": rgw,
    "scrub": scrub_board,
    "load": load_board,
    "runway": runway_board,
}
