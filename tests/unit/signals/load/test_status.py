"""The load signal's section of `ceph scale status` (ceph_scale/core/signals/load/status.py)."""

from __future__ import annotations

from ceph_scale.core.signals.load.result import Hotspot, LoadResult, PerHddLoad
from ceph_scale.core.signals.load.status import SECTION
from tests.unit.signals.judged import judged


def test_no_data_before_rates():
    section = SECTION.build(judged(load=LoadResult(4, None, None, False, (), 0)), {}, 5)
    assert section["status"] == "NO DATA" and section["data"] == {"hdd_osds": 4.0}


def test_rates_ratios_and_the_busiest_osds():
    per_hdd = PerHddLoad(30.0, 45.0, 0.5, 0.5, 1.0, 0.1, 0.2, 0.0, 0.0)
    hot = (Hotspot("osd.1", 2.5, "hdd", "default"), Hotspot("osd.2", 3.0, "hdd", ""))
    section = SECTION.build(judged(load=LoadResult(4, (120.0, 180.0), per_hdd, True, hot, 2)), {}, 1)
    assert section["data"]["load_ratio"]["mixed_ops"] == 1.0
    assert [o["ceph_daemon"] for o in section["offenders"]] == ["osd.2", "osd.1"]
    assert section["lines"][-1] == "  osd.2: 3.00 x the mean (hdd, root (none))"  # top 1, against its own root
    assert section["status"] == "OK"
