"""The load signal (core/signals/load/derive.py): S3 ops per HDD OSD against the study's baseline [004]."""

from __future__ import annotations

import pytest

from ceph_scale.core.config import ConfigError, Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import PerfPart, RgwOpCounters, Snapshot
from tests.unit.signals.derived import samples
from tests.unit.signals.parts import osd, osd_map


def test_load_ratio_against_the_study_baseline():
    th = Thresholds()
    state = DerivationState(th)
    osds = [osd(i) for i in range(318)]

    def snap(t, put, get):
        perf = PerfPart(collected_at=t, rgw_ops=(RgwOpCounters("4123", get, put, get * 65536, put * 65536),))
        return Snapshot(taken_at=t, osd_map=osd_map(osds, t), perf=perf)

    derive(snap(0.0, 0, 0), state, th)
    fams = derive(snap(10.0, 178_000, 288_000), state, th)
    ratio = samples(fams, "ceph_scale_s3_load_ratio")
    # [004]: ~17,800 PUT and ~28,800 GET ops/s over 318 HDDs is 56 / 90.6 per HDD.
    assert ratio[(("op", "put"), ("unit", "ops"))] == pytest.approx(17800 / 318 / 60)
    assert ratio[(("op", "get"), ("unit", "ops"))] == pytest.approx(28800 / 318 / 90)
    assert ratio[(("op", "mixed"), ("unit", "ops"))] == pytest.approx(17800 / 318 / 60 + 28800 / 318 / 90)
    assert samples(fams, "ceph_scale_hdd_osds")[()] == 318


def test_no_hdd_osds_means_no_per_hdd_ratio_rather_than_a_division_by_zero():
    th = Thresholds()
    state = DerivationState(th)
    for t, n in ((0.0, 0), (10.0, 100)):
        perf = PerfPart(collected_at=t, rgw_ops=(RgwOpCounters("1", 0, n, 0, 0),))
        fams = derive(Snapshot(taken_at=t, osd_map=osd_map([osd(0, "ssd")], t), perf=perf), state, th)
    assert samples(fams, "ceph_scale_s3_load_ratio") is None
    assert samples(fams, "ceph_scale_s3_ops_per_second")[(("op", "put"),)] == pytest.approx(10.0)


def test_hdd_device_classes_name_the_osds_the_baseline_is_per():
    """A cluster whose HDDs are the class "archive": counted once hdd_device_classes says so."""
    from ceph_scale.core.snapshot import FullRatios, Osd, OsdMapPart, PerfPart

    osds = tuple(Osd(i, "archive", "h", True, True, 10**12, 10**11) for i in range(4))
    snap = Snapshot(
        taken_at=1.0,
        osd_map=OsdMapPart(1.0, osds + (Osd(9, "nvme", "h", True, True, 10**12, 10**11),), FullRatios(0.85, 0.9, 0.95)),
        perf=PerfPart(1.0, (), (), ()),
    )
    default = derive(snap, DerivationState(Thresholds()), Thresholds())
    assert samples(default, "ceph_scale_hdd_osds")[()] == 0
    th = Thresholds.from_mapping({"hdd_device_classes": "archive, hdd"})
    named = derive(snap, DerivationState(th), th)
    assert samples(named, "ceph_scale_hdd_osds")[()] == 4
    assert set(samples(named, "ceph_scale_hdd_device_class")) == {
        (("device_class", "archive"),),
        (("device_class", "hdd"),),
    }
    assert "hdd_device_classes" not in {dict(k)["option"] for k in samples(named, "ceph_scale_config")}
    with pytest.raises(ConfigError, match="comma-separated names"):
        Thresholds.from_mapping({"hdd_device_classes": "hdd; rm -rf"})
