"""A plunge confined to one RGW of 12 (tests/unit/signals/plunge/study.py: the 10B study's 12 RGWs):
8 % of the cluster's ops, under plunge_drop_ratio, yet all of that RGW's. Each RGW is judged
against its own baseline; no series is per RGW (the evidence names it)."""

from __future__ import annotations

import dataclasses

from tests.unit.signals.derived import samples
from tests.unit.signals.plunge.study import SynthStudy
from tests.unit.study_rounds import GET, MIXED, PUT


def rgw_series(c: SynthStudy) -> list[str]:
    """The families with a series per RGW (an instance_id label)."""
    return [f.name for f in c.fams if "instance_id" in f.label_names and f.name.startswith("ceph_scale_s3_")]


def test_one_rgw_of_twelve_stalling_is_a_plunge_blamed_on_it_and_counted_once_it_is_over():
    c = SynthStudy().run(450, PUT)
    assert rgw_series(c) == []
    stalled = c.rgws[3]
    c.slower = {stalled: 10.0}  # its ops -90 %, its clients' requests still in it
    c.run(60, PUT)
    cluster = c.value("ceph_scale_s3_plunge_drop_ratio", op="put")
    assert cluster is not None and cluster < 0.1  # the cluster's sum: no plunge of its own
    assert c.value("ceph_scale_s3_plunge_active") == 1
    info = c.info()
    assert info is not None and info["cause"] == "rgw", info
    assert info["evidence"] == f"RGW {stalled} PUT -90% (1 of 12 RGWs, their clients still waiting); the other 11 held"
    assert rgw_series(c) == [] and samples(c.fams, "ceph_scale_s3_plunges") is not None
    c.slower = {}
    c.run(120, PUT)
    assert c.value("ceph_scale_s3_plunge_active") == 0 and c.info() is None
    assert c.value("ceph_scale_s3_plunges", cause="rgw") == 1


def test_a_cluster_wide_stall_is_the_clusters_plunge_not_twelve_rgw_ones():
    c = SynthStudy().run(450, PUT)
    stall = dataclasses.replace(PUT, slowdown=1 / 0.3)
    c.run(30, stall)
    c.down(5)
    c.run(15, stall)
    info = c.info()
    assert info is not None and info["cause"] == "osds_down", info
    assert rgw_series(c) == []
    c.run(180, PUT)
    assert c.value("ceph_scale_s3_plunge_active") == 0
    assert c.value("ceph_scale_s3_plunges", cause="rgw") == 0
    assert c.value("ceph_scale_s3_plunges", cause="osds_down") == 1


def scaled_rounds(c: SynthStudy, n: int) -> SynthStudy:
    """The 1B study's COSBench rounds [000] (an hour of PUT, 15 minutes of GET, 15 of the mixed load)
    scaled to this test's 300 s baseline as they stand to the default 1,800 s: other phases of up to a
    baseline between two PUT phases."""
    for _ in range(n):
        c.run(600, PUT).run(150, GET).run(150, MIXED)
    return c


def test_one_rgw_of_twelve_stalling_as_the_put_phase_starts_is_judged_by_its_own_put_level():
    """The rounds with every RGW alike are no plunge. Then one RGW's PUTs halve as a PUT phase
    starts: its baseline holds the GET and mixed phases, where it served few PUTs, against which they
    are a rise; against its own last PUT phase they are -50 %, the other 11 held."""
    c = scaled_rounds(SynthStudy(), 2)
    assert c.plunge_windows() == 0, [s for s in c.seen if s[1]][:3]
    stalled = c.rgws[7]
    c.slower = {stalled: 2.0}
    c.run(120, PUT)
    info = c.info()
    assert c.value("ceph_scale_s3_plunge_active") == 1
    assert info is not None and info["cause"] == "rgw", info
    assert info["evidence"].startswith(f"RGW {stalled} PUT -50%"), info
    c.slower = {}
    c.run(120, PUT)
    assert c.value("ceph_scale_s3_plunge_active") == 0
    assert c.value("ceph_scale_s3_plunges", cause="rgw") == 1


def test_one_rgw_slower_across_the_switch_to_the_put_phase_is_one_plunge_blamed_on_it():
    """One RGW's ops a third slower from the middle of a mixed phase into the PUT phase: the windows
    straddling the switch judge neither the GETs its clients left nor the PUTs they ramp up, which is
    no return to its level. One plunge of that RGW, counted once it is over."""
    c = scaled_rounds(SynthStudy(), 2).run(600, PUT).run(150, GET).run(75, MIXED)
    assert c.plunge_windows() == 0
    slowed = c.rgws[7]
    c.slower = {slowed: 1.5}
    c.run(75, MIXED).run(150, PUT)
    c.slower = {}
    c.run(150, PUT)
    runs = sum(1 for (_, a, _), (_, b, _) in zip(c.seen, c.seen[1:]) if b and not a)
    assert runs == 1, [(t, a, cause) for t, a, cause in c.seen if a]
    assert c.value("ceph_scale_s3_plunge_active") == 0
    assert c.value("ceph_scale_s3_plunges", cause="rgw") == 1
