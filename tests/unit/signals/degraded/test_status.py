"""The degraded signal's part of `ceph scale status` (ceph_scale/core/signals/degraded/status.py):
a part of the report of its own, not one of the study signals' sections."""

from __future__ import annotations

from ceph_scale.core.signals.degraded.result import DegradedResult
from ceph_scale.core.signals.degraded.status import SECTION
from tests.unit.signals.judged import judged


def test_a_part_of_its_own():
    assert SECTION.own_part and SECTION.title == "Degraded state"


def test_warn_while_osds_are_down():
    assert SECTION.build(judged(), {}, 5)["status"] == "NO DATA"
    assert SECTION.build(judged(degraded=DegradedResult(0.0, 0.0, 0.0)), {}, 5)["status"] == "OK"
    section = SECTION.build(judged(degraded=DegradedResult(0.1, 0.2, 0.05)), {}, 5)
    assert section["status"] == "WARN" and section["data"]["expected_drop"] == {"put": 0.2, "get": 0.05}
    expected = "10.0 % of HDD OSDs down: expected S3 throughput drop 20.0 % PUT, 5.0 % GET (study table)"
    assert section["lines"] == [expected]
