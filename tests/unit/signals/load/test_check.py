"""SCALE_LOAD_ABOVE_BASELINE on a hand-made load result (ceph_scale/core/signals/load/check.py)."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.load.check import CHECKS, check_load
from ceph_scale.core.signals.load.result import Hotspot, LoadResult, PerHddLoad


def load(mixed: float, put_bytes: float = 0.1, hot=()) -> LoadResult:
    per_hdd = PerHddLoad(60 * mixed, 0.0, mixed, 0.0, mixed, put_bytes, 0.0, 0.0, 0.0)
    return LoadResult(10, (600.0 * mixed, 0.0), per_hdd, True, tuple(hot), len(hot))


def test_it_is_the_folders_one_check():
    assert [c.code for c in CHECKS] == ["SCALE_LOAD_ABOVE_BASELINE"]


def test_quiet_at_or_below_the_warn_ratio():
    assert check_load(None, Thresholds(), CheckOptions()) is None
    assert check_load(load(1.0), Thresholds(), CheckOptions()) is None
    assert check_load(load(1.5), Thresholds(), CheckOptions(load_warn_ratio=2.0)) is None


def test_the_worst_ratio_leads_and_the_hot_osds_follow():
    # osd.9: 2.5x its idle root's mean but 0.07x the cluster's HDD mean: not hot, as the alert judges
    hot = (
        Hotspot("osd.4", 3.0, "hdd", "index", 2.0),
        Hotspot("osd.9", 2.5, "hdd", "archive", 0.07),
        Hotspot("osd.1", 1.5, "hdd", "", 1.5),
    )
    c = check_load(load(1.5, put_bytes=2.0, hot=hot), Thresholds(), CheckOptions())
    assert c is not None and c["summary"].startswith("S3 load per HDD OSD is 2.00 x")
    assert "PUT bytes" in c["detail"][0] and "ops per HDD OSD are 1.50" in c["detail"][1]
    # above osd_hotspot_ratio only, against the mean of its class under its root
    assert c["detail"][2:] == ["osd.4 takes 3.0 x the mean op rate of the hdd OSDs under CRUSH root index"]
