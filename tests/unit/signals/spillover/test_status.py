"""The spillover signal's section of `ceph scale status` (ceph_scale/core/signals/spillover/status.py)."""

from __future__ import annotations

from ceph_scale.core.signals.spillover.result import DbOsd, SpilloverResult
from ceph_scale.core.signals.spillover.status import SECTION
from tests.unit.signals.judged import judged

GIB = 1024.0**3


def test_no_data_without_bluefs_counters():
    assert SECTION.build(judged(), {}, 5)["status"] == "NO DATA"


def test_the_spilling_osds_most_first():
    osds = (
        DbOsd("osd.0", 1 * GIB, 30 * GIB, 31 * GIB, 28 * GIB, 0.05),
        DbOsd("osd.1", 0.0, 30 * GIB, 10 * GIB, 28 * GIB, 0.05),
        DbOsd("osd.2", 3 * GIB, 30 * GIB, 33 * GIB, 28 * GIB, 0.05),
    )
    section = SECTION.build(judged(spillover=SpilloverResult(osds, (), 2, 4 * GIB, 0)), {}, 5)
    assert [o["ceph_daemon"] for o in section["offenders"]] == ["osd.2", "osd.0"]
    assert section["lines"][0] == "2 of 3 OSDs with a DB device spill onto the slow device, 4.0 GiB in total"
    assert section["status"] == "WARN"


def test_ok_without_spill_or_raised_checks():
    osds = (DbOsd("osd.0", 0.0, 30 * GIB, 10 * GIB, 28 * GIB, 0.05),)
    assert SECTION.build(judged(spillover=SpilloverResult(osds, (), 0, 0.0, 0)), {}, 5)["status"] == "OK"
