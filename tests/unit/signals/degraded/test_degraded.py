"""The degraded signal (core/signals/degraded/derive.py): the study's expected drop [004] and the OSDs
it counts."""

from __future__ import annotations

import pytest

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.degraded.derive import expected_drop
from ceph_scale.core.snapshot import Snapshot
from tests.unit.signals.derived import samples


def test_degraded_drop_reproduces_the_study_table():
    assert expected_drop(0.0, 0) == 0.0
    assert expected_drop(0.02, 0) == pytest.approx(0.06)
    assert expected_drop(0.02, 1) == pytest.approx(0.08)
    assert expected_drop(0.17, 0) == pytest.approx(0.21)
    assert expected_drop(0.17, 1) == pytest.approx(0.25)
    assert 0.06 < expected_drop(0.1, 0) < 0.21
    assert expected_drop(1.0, 1) == 1.0


def test_out_osds_are_not_down_for_the_drop_and_only_watched_flags_are_exported():
    """At 318 disks one OSD always waits for its replacement, destroyed and out: no drop for it."""
    from ceph_scale.core.snapshot import FullRatios, Osd, OsdMapPart

    def osd(i: int, up: bool, in_cluster: bool) -> Osd:
        return Osd(i, "hdd", "h", up, in_cluster, 10**12, 10**11, True, 10**12)

    osds = tuple(osd(i, True, True) for i in range(98)) + (osd(98, False, False), osd(99, False, True))
    part = OsdMapPart(1.0, osds, FullRatios(0.85, 0.9, 0.95), frozenset({"noout", "sortbitwise"}))
    fams = derive(Snapshot(taken_at=1.0, osd_map=part), DerivationState(Thresholds()), Thresholds())
    assert samples(fams, "ceph_scale_osds_down_ratio")[()] == pytest.approx(1 / 99)  # osd.99 of the 99 in
    assert samples(fams, "ceph_scale_osd_map_flag") == {(("flag", "noout"),): 1.0}


def test_only_hdd_data_osds_count_for_the_expected_drop():
    """The study's drop is per HDD data OSD [004]: 6 of 318 HDDs down cost 6 % PUT / 8 % GET. A
    down NVMe index OSD is neither down nor in the total; classes follow hdd_device_classes."""
    from ceph_scale.core.snapshot import FullRatios, Osd, OsdMapPart

    def osd(i: int, device_class: str, up: bool) -> Osd:
        return Osd(i, device_class, "h", up, True, 10**12, 10**11)

    hdds = tuple(osd(i, "hdd", i >= 6) for i in range(318))  # 6 of 318 HDDs down: 2 %
    nvmes = tuple(osd(318 + i, "nvme", i != 0) for i in range(12))  # one index OSD down
    part = OsdMapPart(1.0, hdds + nvmes, FullRatios(0.85, 0.9, 0.95))
    fams = derive(Snapshot(taken_at=1.0, osd_map=part), DerivationState(Thresholds()), Thresholds())
    assert samples(fams, "ceph_scale_osds_down_ratio")[()] == pytest.approx(6 / 318)
    drop = samples(fams, "ceph_scale_degraded_expected_drop_ratio")
    assert drop[(("op", "put"),)] == pytest.approx(expected_drop(6 / 318, 0))
    # Only the NVMe OSD down: no HDD down, no expected drop, no alert.
    only_nvme = OsdMapPart(1.0, tuple(osd(i, "hdd", True) for i in range(318)) + nvmes, FullRatios(0.85, 0.9, 0.95))
    quiet = derive(Snapshot(taken_at=1.0, osd_map=only_nvme), DerivationState(Thresholds()), Thresholds())
    assert samples(quiet, "ceph_scale_osds_down_ratio")[()] == 0
    assert set(samples(quiet, "ceph_scale_degraded_expected_drop_ratio").values()) == {0.0}
    # A cluster whose HDDs are the class "archive" counts them once hdd_device_classes names it.
    archive = OsdMapPart(1.0, tuple(osd(i, "archive", i >= 6) for i in range(318)) + nvmes, FullRatios(0.85, 0.9, 0.95))
    th = Thresholds.from_mapping({"hdd_device_classes": "archive"})
    named = derive(Snapshot(taken_at=1.0, osd_map=archive), DerivationState(th), th)
    assert samples(named, "ceph_scale_osds_down_ratio")[()] == pytest.approx(6 / 318)
