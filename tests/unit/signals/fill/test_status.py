"""The fill signal's section of `ceph scale status` (ceph_scale/core/signals/fill/status.py)."""

from __future__ import annotations

from ceph_scale.core.signals.fill.result import ClusterFill, FillResult, OsdFill
from ceph_scale.core.signals.fill.status import SECTION
from tests.unit.signals.judged import judged


def fill(*osds: float) -> FillResult:
    osd_list = tuple(OsdFill(f"osd.{i}", used) for i, used in enumerate(osds))
    return FillResult(ClusterFill(0.5, 3e12, None), (), osd_list, osd_list[0] if osd_list else None)


def test_no_data_without_a_result():
    section = SECTION.build(judged(), {}, 5)
    assert section["status"] == "NO DATA" and "no capacity data yet" in section["lines"][0]


def test_ok_and_warn_follow_the_raised_check():
    assert SECTION.build(judged(fill=fill(0.5)), {}, 5)["status"] == "OK"
    assert SECTION.build(judged(fill=fill(0.5)), {"SCALE_FILL_HEADROOM": {}}, 5)["status"] == "WARN"


def test_the_osds_near_the_target_are_those_within_the_checks_margin():
    osds = fill(0.72, 0.76, 0.5)
    assert SECTION.build(judged(fill=osds), {}, 5)["data"]["osds_near_target"] == 1
    wide = judged(opts={"fill_headroom_warn_margin": 0.10}, fill=osds)
    assert SECTION.build(wide, {}, 5)["data"]["osds_near_target"] == 2
