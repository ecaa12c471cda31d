"""A slow OSD among its peers is a plunge's cause (slow_ops), from the OSDs' own op latencies
(osd.op_r_latency + osd.op_w_latency: core/signals/plunge/slow_osds.py), when it serves the S3 ops'
pools; at the 10B study's scale (318 OSDs, 21,760 PGs), beside an idle bucket resharding as one
nearly always is at 100,000 buckets."""

from __future__ import annotations

import dataclasses

import pytest

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.plunge.slow_osds import LatencyWindow
from ceph_scale.core.snapshot import OsdOpCounters, ReshardEntry
from tests.unit.signals.plunge.study import TH, SynthStudy
from tests.unit.study_rounds import PUT

STALL = dataclasses.replace(PUT, slowdown=1 / 0.3)  # ops -70 % while the slow OSD's requests wait


def counters(writes: dict[int, float], ops: int, before=None, reads: dict[int, float] | None = None):
    """Each OSD's cumulative counters after `ops` more writes at its latency (and reads, if given)."""
    before = {c.osd_id: c for c in before or ()}
    out = []
    for o, w in writes.items():
        b = before.get(o) or OsdOpCounters(o, 0, 0, 0.0, 0, 0.0, 0)
        r = (reads or {}).get(o)
        r_sum, r_count = b.read_latency_sum or 0.0, b.read_latency_count or 0
        w_sum, w_count = b.write_latency_sum or 0.0, b.write_latency_count or 0
        out.append(
            OsdOpCounters(
                o, b.read_ops + (ops if r else 0), b.write_ops + ops,
                r_sum + (ops * r if r else 0.0), r_count + (ops if r else 0),
                w_sum + ops * w, w_count + ops,
            )
        )  # fmt: skip
    return out


HDD = {o: "hdd" for o in range(318)}


DEFAULTS = Thresholds()


def latency_window(th: Thresholds = DEFAULTS) -> LatencyWindow:
    return LatencyWindow(th.plunge_slow_osd_factor, th.plunge_slow_osd_floor_seconds)


def test_one_osd_of_318_answering_20_times_slower_is_slow_and_none_is_on_the_first_poll():
    window = latency_window()
    latency = {o: 0.030 for o in range(318)}
    first = counters(latency, 1000)
    assert window.slow(first, HDD) == []  # no window yet
    second = counters(latency | {5: 0.600}, 500, first)
    assert window.slow(second, HDD) == []  # slow in one window only: one stall, as a plunge makes them
    slow = window.slow(counters(latency | {5: 0.600}, 500, second), HDD)
    assert [(s.osd_id, s.op, round(s.latency, 3), round(s.median, 3)) for s in slow] == [(5, "write", 0.6, 0.03)]
    assert slow[0].told() == "osd.5 answered writes in 600 ms per op, 20x its peers' median 30 ms"


@pytest.mark.parametrize(
    ("latency", "ops", "classes", "why"),
    [
        ({0: 0.001, 1: 0.001, 2: 0.006}, 100, None, "6x an idle flash cluster's median, under the floor"),
        ({0: 0.030, 1: 0.030, 2: 0.120}, 100, None, "4x its peers: within what HDDs vary"),
        ({0: 0.030, 1: 0.030, 2: 0.900}, 20, None, "too few ops in the window to judge"),
        ({0: 0.030, 1: 0.900}, 100, None, "two OSDs: no median says what is usual"),
        (
            {0: 0.002, 1: 0.002, 2: 0.002, 3: 0.002, 4: 0.510, 5: 0.510, 6: 0.510},
            100,
            {0: "nvme", 1: "nvme", 2: "nvme", 3: "nvme", 4: "hdd", 5: "hdd", 6: "hdd"},
            "HDD OSDs beside more flash ones: judged against HDDs",
        ),
    ],
)
def test_no_slow_osd(latency, ops, classes, why):
    window = latency_window()
    classes = classes or dict.fromkeys(latency, "hdd")
    first = counters(latency, 1000)
    window.slow(first, classes)
    second = counters(latency, ops, first)
    assert window.slow(second, classes) == [], why
    assert window.slow(counters(latency, ops, second), classes) == [], why
    assert Thresholds().plunge_slow_osd_floor_seconds == 0.1


def test_an_all_flash_cluster_names_its_slow_osd_once_the_floor_is_lowered_for_it():
    """60 ms against the 1 ms of 20 NVMe peers: under the default floor (100 ms, for HDD clusters'
    noise) not slow; with plunge_slow_osd_floor_seconds at 10 ms, slow; and with the factor raised
    past 60x, not slow again."""
    latency = {o: 0.001 for o in range(20)} | {7: 0.060}
    classes = dict.fromkeys(latency, "nvme")

    def named(th: Thresholds) -> list[int]:
        window, polls = latency_window(th), [counters(latency, 1000)]
        for _ in range(2):
            polls.append(counters(latency, 200, polls[-1]))
        return [s.osd_id for p in polls for s in window.slow(p, classes)]

    assert named(Thresholds()) == []
    flash = Thresholds.from_mapping({"plunge_slow_osd_floor_seconds": 0.01})
    assert named(flash) == [7]
    assert named(Thresholds.from_mapping({"plunge_slow_osd_floor_seconds": 0.01, "plunge_slow_osd_factor": 61})) == []


def test_an_osd_serving_more_writes_than_reads_is_not_slow_for_it():
    """osd.2 serves only writes (a 64 KB PUT's chunk: 0.51 s on the study's HDDs), the others
    mostly reads (27 ms) and some writes: per op, every OSD is at its peers' median."""
    window = latency_window()
    writes = {o: 0.51 for o in range(10)}
    reads = {o: 0.027 for o in range(10) if o != 2}
    classes = dict.fromkeys(range(10), "hdd")
    polls = [counters(writes, 1000, reads=reads)]
    for _ in range(3):
        polls.append(counters(writes, 100, polls[-1], reads=reads))
    assert [window.slow(p, classes) for p in polls] == [[], [], [], []]


def test_single_stalled_ops_in_a_plunges_thin_windows_make_no_slow_osd():
    """A plunge leaves each OSD 30 reads a window; one of them stalls 5 s behind a compaction on a
    different OSD each window: each such mean is 7x its peers' (27 ms), but never twice in a row."""
    window = latency_window()
    reads = {o: 0.027 for o in range(318)}
    polls = [counters(reads, 1000)]
    for stalled in (range(0, 5), range(5, 10), range(10, 15)):
        with_stall = reads | {o: (29 * 0.027 + 5.0) / 30 for o in stalled}
        polls.append(counters(with_stall, 30, polls[-1]))
    assert [window.slow(p, HDD) for p in polls] == [[], [], [], []]


def test_a_restarted_osd_whose_counters_start_again_is_not_judged_for_that_window():
    window = latency_window()
    latency = {o: 0.030 for o in range(10)}
    window.slow(counters(latency, 1000), HDD)
    # osd.3 restarted with one 0.9 s op since: its counters went down, and its mean is not judged
    restarted = [c if c.osd_id != 3 else OsdOpCounters(3, 0, 40, 0.0, 0, 36.0, 40) for c in counters(latency, 2000)]
    assert window.slow(restarted, HDD) == []
    assert window.slow(counters(latency, 100, restarted), HDD) == []  # then judged from its new counters


def idle_reshard() -> tuple[ReshardEntry, ...]:
    return (ReshardEntry("idle-bucket", "", "zone.1", 16, 32, in_progress=True),)


def slow_osd(c: SynthStudy, osd: int = 5) -> SynthStudy:
    c.resharding = idle_reshard()
    c.run(450, PUT)
    c.osd_latency[osd] = 0.030 * 20
    return c.run(60, STALL)


def test_the_factor_the_operator_set_reaches_the_plunges_evidence():
    """The same 20x OSD, with plunge_slow_osd_factor at 30: not slow, so the plunge is not blamed on it."""
    info = slow_osd(SynthStudy(dataclasses.replace(TH, plunge_slow_osd_factor=30.0))).info()
    assert info is not None and info["cause"] != "slow_ops", info


def test_a_slow_osd_serving_the_s3_pools_is_the_plunges_cause_not_an_idle_bucket_resharding():
    c = slow_osd(SynthStudy())
    info = c.info()
    assert info is not None and info["cause"] == "slow_ops", info
    assert info["evidence"].startswith("osd.5 answered writes in 600 ms per op, 20x its peers' median 30 ms (1 slow"), (
        info
    )
    assert "holding " in info["evidence"] and " RGW PGs" in info["evidence"], info


def test_the_same_slow_osd_serving_none_of_the_s3_pools_is_not_named():
    c = SynthStudy()
    c.off_the_s3_pools(5)
    info = slow_osd(c).info()
    assert info is None or info["cause"] != "slow_ops", info
    assert c.value("ceph_scale_s3_plunge_cause_score", cause="slow_ops") is None


def test_a_slow_osd_without_a_plunge_pages_nothing():
    c = SynthStudy()
    c.run(450, PUT)
    c.osd_latency[5] = 0.030 * 20
    c.run(60, PUT)
    assert c.plunge_windows() == 0


def test_an_osd_slow_all_along_is_named_after_the_one_that_became_slow():
    """osd.7 has been 20x slow through the baseline (a disk known to be slow); at the plunge osd.5
    turns 7x slow: the evidence names osd.5 first."""
    c = SynthStudy()
    c.osd_latency[7] = 0.030 * 20
    c.run(450, PUT)
    c.osd_latency[5] = 0.030 * 7
    c.run(60, STALL)
    info = c.info()
    assert info is not None and info["cause"] == "slow_ops", info
    assert info["evidence"].startswith("osd.5 answered writes in 210 ms per op, 7x"), info
    assert "and 1 more (2 slow OSD(s), usually 1)" in info["evidence"], info


def test_a_slow_osd_serving_no_s3_pool_is_neither_named_nor_counted():
    """osd.5 (20x) serves only another rule's pools, osd.9 (7x) the S3 ops': osd.9 is named, alone,
    with its own RGW PGs."""
    c = SynthStudy()
    pools = c.rgw_pools()
    c.off_the_s3_pools(5)
    c.run(450, PUT)
    c.osd_latency[5], c.osd_latency[9] = 0.030 * 20, 0.030 * 7
    c.run(60, STALL)
    info = c.info()
    held = sum(1 for pg in c.pgs if pg.pool_id in pools and 9 in pg.acting)
    assert info is not None and info["cause"] == "slow_ops", info
    assert info["evidence"].startswith("osd.9 answered writes in 210 ms per op"), info
    assert f"(1 slow OSD(s), usually 0), holding {held} RGW PGs" in info["evidence"], info


def test_osds_slowed_by_the_recovery_of_their_pgs_leave_the_plunge_to_recovery():
    """30 RGW PGs recovering; their primaries answer 6.7x slower (requests wait on degraded
    objects): the slow OSDs follow from the recovery, which is named."""
    c = SynthStudy().run(450, PUT)
    pools = c.rgw_pools()
    recovering = [i for i, pg in enumerate(c.pgs) if pg.pool_id in pools and pg.acting][:30]
    for i in recovering:
        c.pgs[i] = dataclasses.replace(c.pgs[i], state="active+recovering+degraded")
        c.osd_latency[c.pgs[i].acting[0]] = 0.030 * 6.7
    c.run(60, STALL)
    info = c.info()
    assert info is not None and info["cause"] == "recovery", info
    recovery = c.value("ceph_scale_s3_plunge_cause_score", cause="recovery") or 0
    assert (c.value("ceph_scale_s3_plunge_cause_score", cause="slow_ops") or 0) <= recovery


def test_slow_osds_alongside_a_recovery_score_no_more_than_it_and_lose_the_tie():
    """What follows from a recovery: requests waiting on degraded objects make the recovering PGs'
    OSDs slow. Seen over the whole plunge, both unmeasured by the study: a tie, named recovery; seen
    longer than the recovery, slow_ops is held to its score."""
    from ceph_scale.core.signals.plunge.causes import Evidence, rank

    drops = {"put": 0.7}
    both = [Evidence("slow_ops", 0, 100, "osd.5 slow"), Evidence("recovery", 0, 100, "30 PGs recovering")]
    assert [c.cause for c in rank(0, 100, drops, both)] == ["recovery", "slow_ops"]
    longer = [Evidence("slow_ops", 0, 100, "osd.5 slow"), Evidence("recovery", 50, 100, "30 PGs recovering")]
    ranked = {c.cause: c.score for c in rank(0, 100, drops, longer)}
    assert ranked["slow_ops"] == ranked["recovery"] == pytest.approx(0.5 * 0.75)
    alone = [Evidence("slow_ops", 0, 100, "osd.5 slow")]
    assert rank(0, 100, drops, alone)[0].score == pytest.approx(0.75)
