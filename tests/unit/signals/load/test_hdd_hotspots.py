"""Hot HDD OSDs judged against the mean of their own device class (core/signals/load/hdd_hotspots.py):
the figures CephScaleHddOsdHotspot reads instead of joining every OSD's series each round."""

from __future__ import annotations

import pytest

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import OsdOpCounters, PerfPart, Snapshot
from tests.unit.signals.derived import samples
from tests.unit.signals.parts import osd, osd_map


def hot_families(osds, ops_per_second, th=None):
    """The derived families after two polls 10 s apart, each OSD writing ops_per_second[osd_id]."""
    th = th or Thresholds()
    state = DerivationState(th)
    fams = []
    for t in (0.0, 10.0):
        counters = tuple(OsdOpCounters(i, 0, int(rate * t)) for i, rate in sorted(ops_per_second.items()))
        snap = Snapshot(taken_at=t, osd_map=osd_map(osds, t), perf=PerfPart(collected_at=t, osd_ops=counters))
        fams = derive(snap, state, th)
    return fams


def test_an_nvme_index_osd_is_neither_hot_nor_in_the_mean():
    """osd.0 at 500 ops/s, three at 100 (mean 200): 2.5x; osd.9 (NVMe, 2000 ops/s) changes nothing."""
    osds = [osd(i) for i in range(4)] + [osd(9, "nvme")]
    fams = hot_families(osds, {0: 500, 1: 100, 2: 100, 3: 100, 9: 2000})
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio") == {(("device_class", "hdd"),): pytest.approx(2.5)}
    assert samples(fams, "ceph_scale_hdd_osd_hotspots") == {(("device_class", "hdd"),): 1}
    top = samples(fams, "ceph_scale_hdd_osd_hotspot_ratio")
    assert top[(("ceph_daemon", "osd.0"), ("device_class", "hdd"))] == pytest.approx(2.5)
    assert top[(("ceph_daemon", "osd.1"), ("device_class", "hdd"))] == pytest.approx(0.5)
    assert not any(dict(k)["ceph_daemon"] == "osd.9" for k in top)


def test_a_busier_hdd_class_is_judged_against_its_own_mean():
    """Eight "hdd" OSDs at 20 ops/s, two "archive" at 100: against the cluster's mean (36) both
    archive OSDs would be 2.8x, hot; against their class's they are 1x, and nothing is hot."""
    th = Thresholds.from_mapping({"hdd_device_classes": "hdd, archive"})
    osds = [osd(i) for i in range(8)] + [osd(8, "archive"), osd(9, "archive")]
    fams = hot_families(osds, {**{i: 20 for i in range(8)}, 8: 100, 9: 100}, th)
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio") == {
        (("device_class", "archive"),): pytest.approx(1.0),
        (("device_class", "hdd"),): pytest.approx(1.0),
    }
    assert samples(fams, "ceph_scale_hdd_osd_hotspots") == {
        (("device_class", "archive"),): 0,
        (("device_class", "hdd"),): 0,
    }


def test_a_down_osd_does_not_lower_the_mean_and_top_k_follows_osd_top_hot():
    """osd.3 is down (its counters still answer, idle): the mean is of the three up OSDs."""
    osds = [osd(0), osd(1), osd(2), osd(3, up=False)]
    th = Thresholds.from_mapping({"osd_top_hot": 0})
    fams = hot_families(osds, {0: 300, 1: 150, 2: 150, 3: 0}, th)
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio") == {(("device_class", "hdd"),): pytest.approx(1.5)}
    assert samples(fams, "ceph_scale_hdd_osd_hotspot_ratio") is None  # none listed; the alert still judges


def test_no_load_is_no_hot_spot_rather_than_a_division_by_zero():
    fams = hot_families([osd(0), osd(1)], {0: 0, 1: 0})
    # (a family without samples is left out of the exposition)
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio") is None
    assert samples(fams, "ceph_scale_hdd_osd_hotspots") is None
