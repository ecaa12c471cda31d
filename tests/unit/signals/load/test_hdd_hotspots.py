"""Hot HDD OSDs judged against the mean of their own device class under their own CRUSH root
(core/signals/load/hdd_hotspots.py): the figures CephScaleHddOsdHotspot reads instead of joining
every OSD's series each round."""

from __future__ import annotations

import pytest

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import OsdOpCounters, PerfPart, Snapshot
from tests.unit.signals.derived import samples
from tests.unit.signals.parts import osd, osd_map

HDD = (("device_class", "hdd"), ("crush_root", "default"))
HDD_INDEX = (("device_class", "hdd"), ("crush_root", "index"))
ARCHIVE = (("device_class", "archive"), ("crush_root", "default"))


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
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio") == {HDD: pytest.approx(2.5)}
    assert samples(fams, "ceph_scale_hdd_osd_hotspots") == {HDD: 1}
    top = samples(fams, "ceph_scale_hdd_osd_hotspot_ratio")
    assert top[(("ceph_daemon", "osd.0"), *HDD)] == pytest.approx(2.5)
    assert top[(("ceph_daemon", "osd.1"), *HDD)] == pytest.approx(0.5)
    assert not any(dict(k)["ceph_daemon"] == "osd.9" for k in top)


def test_a_busier_hdd_class_is_judged_against_its_own_mean():
    """Eight "hdd" OSDs at 20 ops/s, two "archive" at 100: against the cluster's mean (36) both
    archive OSDs would be 2.8x, hot; against their class's they are 1x, and nothing is hot."""
    th = Thresholds.from_mapping({"hdd_device_classes": "hdd, archive"})
    osds = [osd(i) for i in range(8)] + [osd(8, "archive"), osd(9, "archive")]
    fams = hot_families(osds, {**{i: 20 for i in range(8)}, 8: 100, 9: 100}, th)
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio") == {
        ARCHIVE: pytest.approx(1.0),
        HDD: pytest.approx(1.0),
    }
    assert samples(fams, "ceph_scale_hdd_osd_hotspots") == {
        ARCHIVE: 0,
        HDD: 0,
    }


def test_a_down_osd_does_not_lower_the_mean_and_top_k_follows_osd_top_hot():
    """osd.3 is down (its counters still answer, idle): the mean is of the three up OSDs."""
    osds = [osd(0), osd(1), osd(2), osd(3, up=False)]
    th = Thresholds.from_mapping({"osd_top_hot": 0})
    fams = hot_families(osds, {0: 300, 1: 150, 2: 150, 3: 0}, th)
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio") == {HDD: pytest.approx(1.5)}
    assert samples(fams, "ceph_scale_hdd_osd_hotspot_ratio") is None  # none listed; the alert still judges


def test_no_load_is_no_hot_spot_rather_than_a_division_by_zero():
    fams = hot_families([osd(0), osd(1)], {0: 0, 1: 0})
    # (a family without samples is left out of the exposition)
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio") is None
    assert samples(fams, "ceph_scale_hdd_osd_hotspots") is None


def test_a_busier_crush_root_is_judged_against_its_own_mean_at_study_size():
    """The review's case at study size: 318 HDD OSDs, 212 of root "default" at 20 ops/s and 106 of
    root "index" at 110 to 131. Against the class's mean (about 54) each of the 106 is past 2x:
    about 100 hot disks. Against its root's mean none is hot; then one OSD of "index" at 3x the
    others is hot, alone, and named."""
    osds = [osd(i) for i in range(212)] + [osd(i, root="index") for i in range(212, 318)]
    rates = {i: 20.0 for i in range(212)} | {i: 110.0 + (i - 212) / 5 for i in range(212, 318)}
    fams = hot_families(osds, rates)
    class_mean = sum(rates.values()) / len(rates)
    assert sum(1 for r in rates.values() if r > 2 * class_mean) == 106  # what a mean over the roots said
    assert samples(fams, "ceph_scale_hdd_osd_hotspots") == {
        HDD: 0,
        HDD_INDEX: 0,
    }
    index_mean = sum(rates[i] for i in range(212, 318)) / 106
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio")[HDD_INDEX] == pytest.approx(131.0 / index_mean)

    fams = hot_families(osds, rates | {300: 3 * index_mean})
    hot = samples(fams, "ceph_scale_hdd_osd_hotspots")
    assert hot == {
        HDD: 0,
        HDD_INDEX: 1,
    }
    top = samples(fams, "ceph_scale_hdd_osd_hotspot_ratio")
    hottest = max(top, key=top.get)
    assert dict(hottest) == {"ceph_daemon": "osd.300", "device_class": "hdd", "crush_root": "index"}


def test_osds_in_no_tree_share_the_root_without_a_name():
    """A stray OSD (in no CRUSH bucket), or every OSD of a plain `osd df` answer: root ""."""
    fams = hot_families([osd(0, root=""), osd(1, root=""), osd(2, root="")], {0: 300, 1: 100, 2: 100})
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio") == {
        (("device_class", "hdd"), ("crush_root", "")): pytest.approx(1.8)
    }


def test_how_hot_is_judged_against_every_hdd_osd_of_the_cluster_at_study_size():
    """The review's quiet root: 212 OSDs of root "default" at 100 ops/s, 106 of an idle root
    "archive" at 2 with osd.300 at 5: 2.5x its root's mean, hot against it, yet 0.07x the mean of
    the cluster's 318 HDD OSDs, the figure the alert multiplies by the cluster's load ratio (which
    divides by those same OSDs). A busy root's hottest stands far above that mean."""
    archive = (("device_class", "hdd"), ("crush_root", "archive"))
    osds = [osd(i) for i in range(212)] + [osd(i, root="archive") for i in range(212, 318)]
    rates = {i: 100.0 for i in range(212)} | {i: 2.0 for i in range(212, 318)} | {300: 5.0}
    fams = hot_families(osds, rates)
    cluster_mean = sum(rates.values()) / 318
    assert samples(fams, "ceph_scale_hdd_osd_hotspots")[archive] == 1
    assert samples(fams, "ceph_scale_hdd_osd_hottest_ratio")[archive] == pytest.approx(5.0 / (215.0 / 106))
    against = samples(fams, "ceph_scale_hdd_osd_hottest_cluster_ratio")
    assert against == {HDD: pytest.approx(100.0 / cluster_mean), archive: pytest.approx(5.0 / cluster_mean)}
    assert against[archive] < 0.1

    # The health check and status judge as the alert does: the top-K by their ratio to their own
    # class under their own root, hottest first, the count over every class and root.
    from ceph_scale.core.signals.load.result import LoadResult

    state_th = Thresholds()
    state = DerivationState(state_th)
    for t in (0.0, 10.0):
        counters = tuple(OsdOpCounters(i, 0, int(rate * t)) for i, rate in sorted(rates.items()))
        snap = Snapshot(taken_at=t, osd_map=osd_map(osds, t), perf=PerfPart(collected_at=t, osd_ops=counters))
        derive(snap, state, state_th)
    judged = state.results.get(LoadResult)
    assert judged is not None and judged.hotspot_count == 0  # not past one HDD's load: not hot
    first = judged.hotspots[0]
    assert (first.ceph_daemon, first.crush_root) == ("osd.300", "archive")
    assert first.ratio == pytest.approx(5.0 / (215.0 / 106))
    assert first.cluster_ratio == pytest.approx(5.0 / cluster_mean)
    assert not first.hot(state_th.osd_hotspot_ratio, load=1.0) and first.hot(state_th.osd_hotspot_ratio, load=14.0)
