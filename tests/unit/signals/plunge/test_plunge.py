"""The plunge signal through the derivation: each cause made to happen alone in a stream of
snapshots (the real-cluster runs are tests/integration/test_plunge_cluster.py), a drop the
clients made, and conditions that were there all along."""

from __future__ import annotations

import dataclasses

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import (
    BlueFsCounters,
    Bucket,
    BucketsPart,
    FullRatios,
    Osd,
    OsdMapPart,
    PerfPart,
    PgPart,
    PgScrubState,
    ReshardEntry,
    ReshardPart,
    RgwOpCounters,
    Snapshot,
)
from tests.unit.signals.derived import samples

TH = Thresholds(plunge_window_seconds=10, plunge_baseline_seconds=60)
STEP = 2.0


class Stream:
    """A cluster of 3 OSDs and one RGW with a closed-loop client: 100 PUT and 100 GET/s at 20 ms
    and 2 ms, 4 requests in flight, until told otherwise; one snapshot every 2 s."""

    def __init__(self, th: Thresholds = TH) -> None:
        self.th = th
        self.state = DerivationState(th)
        self.t = 0.0
        self.ops = self.seconds = self.requests = 0.0
        self.rate, self.latency, self.in_flight = 100.0, 0.02, 4
        self.osds = [Osd(i, "hdd", "h", True, True, 100, 50) for i in range(3)]
        self.pgs = [PgScrubState(f"1.{i}", 1, "active+clean", 0.0, 0.0) for i in range(8)]
        self.spilled = 0
        self.bucket = Bucket("hot", "", "hot.1", 1, 90, marker="hot.1")
        self.queue: tuple[ReshardEntry, ...] = ()
        self.fams: list = []
        self.refresh = STEP  # how often the RGW's counters reach the producer
        self.published: RgwOpCounters | None = None

    def run(self, seconds: float) -> Stream:
        for _ in range(int(seconds / STEP)):
            self.t += STEP
            self.ops += self.rate * STEP
            self.seconds += self.rate * STEP * self.latency
            self.requests += 2 * self.rate * STEP
            t = self.t
            rgw = RgwOpCounters("4150", int(self.ops), int(self.ops), 0, 0, self.seconds / 10, int(self.ops),
                                self.seconds, int(self.ops), self.in_flight, int(self.requests), 0)  # fmt: skip
            if self.published is None or t % self.refresh < STEP:
                self.published = rgw
            rgw = self.published
            snap = Snapshot(
                taken_at=t,
                osd_map=OsdMapPart(t, tuple(self.osds), FullRatios(0.85, 0.9, 0.95)),
                perf=PerfPart(t, (BlueFsCounters(0, 2**28, 2**27, self.spilled),), (), (rgw,)),
                pgs=PgPart(t, tuple(self.pgs)),
                buckets=BucketsPart(t, (self.bucket,)),
                reshard=ReshardPart(t, self.queue),
            )
            self.fams = derive(snap, self.state, self.th)
        return self

    def value(self, name: str, **labels: str) -> float | None:
        found = samples(self.fams, name) or {}
        return found.get(tuple(sorted(labels.items())))

    def info(self) -> dict[str, str] | None:
        found = samples(self.fams, "ceph_scale_s3_plunge_info")
        return dict(next(iter(found))) if found else None

    def counted(self) -> dict[str, float]:
        return {dict(k)["cause"]: v for k, v in samples(self.fams, "ceph_scale_s3_plunges").items() if v}

    def slow(self, factor: float) -> None:
        """The cluster serves `factor` of the ops, each taking 1/factor as long."""
        self.rate, self.latency = 100.0 * factor, 0.02 / factor

    def stall(self) -> None:
        self.rate = 0.0

    def normal(self) -> None:
        self.rate, self.latency, self.in_flight = 100.0, 0.02, 4


def test_an_osd_down_stalling_ops_is_a_plunge_blamed_on_it_with_the_study_expected_drop():
    s = Stream().run(60)
    assert s.value("ceph_scale_s3_plunge_active") == 0
    s.osds[2] = dataclasses.replace(s.osds[2], up=False)
    s.stall()
    s.run(12)
    assert s.value("ceph_scale_s3_plunge_active") == 1
    assert s.value("ceph_scale_s3_demand_drop_active") == 0
    info = s.info()
    assert info is not None and info["cause"] == "osds_down"
    # A third of the OSDs: past the study's 17 % point, the table's last segment extended [004].
    assert "osd.2 down" in info["evidence"] and "-37% PUT, -44% GET" in info["evidence"]
    assert s.value("ceph_scale_s3_plunge_drop_ratio", op="put") == 1.0
    s.osds[2] = dataclasses.replace(s.osds[2], up=True)
    s.normal()
    s.run(30)
    assert s.value("ceph_scale_s3_plunge_active") == 0 and s.info() is None
    assert s.counted() == {"osds_down": 1}


def test_an_osd_marked_out_while_up_is_blamed_on_its_data_moving_not_on_a_failure():
    """Out and up, it still serves its PGs: the clients slow down for the data moving away, which
    begins before any PG poll shows a PG backfilling. Recovery, with no failure's expected drop."""
    s = Stream().run(60)
    s.osds[2] = dataclasses.replace(s.osds[2], in_cluster=False)
    s.slow(0.4)
    s.run(12)
    info = s.info()
    assert info is not None and info["cause"] == "recovery", info
    assert "osd.2 out (1 of 3 OSDs): their data moves" in info["evidence"]
    assert s.value("ceph_scale_s3_plunge_cause_score", cause="osds_down") in (None, 0.0)
    s.normal()
    s.run(30)
    assert s.counted() == {"recovery": 1}


def test_clients_pausing_is_a_demand_drop_never_a_plunge_nor_blamed():
    s = Stream().run(60)
    s.osds[1] = dataclasses.replace(s.osds[1], up=False)  # a cause is active meanwhile: not blamed
    s.stall()
    s.in_flight = 0
    for _ in range(8):
        s.run(STEP)
        assert s.value("ceph_scale_s3_plunge_active") == 0 and s.info() is None
    assert s.value("ceph_scale_s3_demand_drop_active") == 1
    s.normal()
    s.run(40)
    assert s.value("ceph_scale_s3_demand_drop_active") == 0
    assert s.counted() == {} and s.value("ceph_scale_s3_demand_drops") == 1


def test_clients_coming_back_in_a_burst_after_a_pause_are_not_a_slower_cluster():
    """As seen on Reef: the clients resume all at once, more requests in the RGW than before the
    pause, while the window's op rate still holds the pause. The demand reads high and the ops low,
    which is what a slower cluster looks like, until the window no longer holds the clients' drop."""
    s = Stream().run(60)
    s.stall()
    s.in_flight = 0
    s.run(12)
    assert s.value("ceph_scale_s3_demand_drop_active") == 1
    s.normal()
    s.in_flight = 8
    for _ in range(4):
        s.run(STEP)
        assert s.value("ceph_scale_s3_plunge_active") == 0 and s.info() is None
    s.in_flight = 4
    for _ in range(15):
        s.run(STEP)
        assert s.value("ceph_scale_s3_plunge_active") == 0 and s.info() is None
    assert s.counted() == {} and s.value("ceph_scale_s3_demand_drops") == 1


def paused_with_lagging_counters() -> Stream:
    """The test cluster's windows (15 s, a 120 s baseline), counters reaching the producer every
    6 s, and clients that paused for 20 s: a demand drop."""
    s = Stream(dataclasses.replace(TH, plunge_window_seconds=15, plunge_baseline_seconds=120))
    s.refresh = 6.0
    s.run(150)
    s.stall()
    s.in_flight = 1
    s.run(20)
    assert s.value("ceph_scale_s3_demand_drop_active") == 1
    return s


def test_clients_coming_back_are_not_a_slower_cluster_while_the_counters_lag():
    """As on the test cluster, where the RGW's counters reach the producer every 6 s (the manager's
    stats period and its prometheus module's cache): the clients come back in a burst that queues
    in the RGW (more in flight, each op slower) for 26 s. The windows then read as a slower
    cluster for longer than one window after the clients' drop was last seen."""
    s = paused_with_lagging_counters()
    s.slow(0.6)
    s.in_flight = 5
    for i in range(30):
        if i == 13:
            s.normal()
        s.run(STEP)
        assert s.value("ceph_scale_s3_plunge_active") == 0 and s.info() is None, f"{s.t} s"
    assert s.counted() == {} and s.value("ceph_scale_s3_demand_drops") == 1
    assert s.value("ceph_scale_s3_demand_drop_active") == 0


def test_a_cluster_slower_after_the_clients_return_is_a_plunge():
    """The guard after a clients' drop only delays a plunge that lasts: the cluster stays slower."""
    s = paused_with_lagging_counters()
    s.slow(0.5)
    s.run(60)
    assert s.value("ceph_scale_s3_plunge_active") == 1


def test_a_stall_of_a_few_seconds_is_a_plunge_though_one_window_reads_just_under_the_threshold():
    """As a reshard under writes on the test cluster: writes wait 4 s, the counters come every 6 s.
    The windows that straddle the stall read over the threshold, then just under it, then over it
    again: slower over two refreshes, since the one in between is still down by half of it (a real
    run read 32 %, 47 %, 20 %, 46 % within 11 s and was missed)."""
    s = Stream(dataclasses.replace(TH, plunge_window_seconds=15, plunge_baseline_seconds=120, plunge_drop_ratio=0.25))
    s.refresh = 6.0
    s.run(150)
    s.stall()
    s.run(4)
    s.normal()
    seen = []
    for _ in range(15):
        s.run(STEP)
        seen.append(s.value("ceph_scale_s3_plunge_active"))
    assert 1 in seen


def test_a_pause_with_a_noisy_in_flight_gauge_is_never_taken_for_a_stall():
    """A handful of clients: the RGW's requests-in-flight gauge reads anything from 0 to 4 at a
    poll. The window's mean keeps the old level for a while after a pause; the last poll does not."""
    s = Stream()
    for i in range(30):
        s.in_flight = (4, 1, 3, 0, 4)[i % 5]
        s.run(STEP)
    s.stall()
    s.in_flight = 0
    for _ in range(10):
        s.run(STEP)
        assert s.value("ceph_scale_s3_plunge_active") == 0
    assert s.value("ceph_scale_s3_demand_drop_active") == 1


def test_a_plunge_starting_while_the_last_one_takes_late_evidence_counts_the_last_one():
    s = Stream().run(60)
    s.stall()
    s.run(12)
    s.normal()
    s.run(12)  # over, still taking evidence for a window
    assert s.value("ceph_scale_s3_plunge_active") == 0 and s.info() is not None
    s.stall()
    s.run(12)
    assert s.value("ceph_scale_s3_plunge_active") == 1
    assert s.counted() == {"none": 1}


def test_a_bucket_resharding_under_writes_is_named():
    s = Stream().run(60)
    s.stall()
    s.queue = (ReshardEntry("hot", "", "hot.1", 1, 7, in_progress=True),)
    s.run(6)
    s.queue = ()
    s.bucket = Bucket("hot", "", "hot.2", 7, 110, marker="hot.1")  # Pacific: a new instance
    s.run(6)
    info = s.info()
    assert info is not None and info["cause"] == "reshard"
    assert "bucket hot resharded 1 -> 7 shards" in info["evidence"]
    s.normal()
    s.run(30)
    assert s.counted() == {"reshard": 1}


def test_deep_scrubs_above_their_usual_concurrency_while_ops_slow_down():
    s = Stream()
    s.pgs[0] = dataclasses.replace(s.pgs[0], state="active+clean+scrubbing+deep")  # one, usually
    s.run(60)
    s.pgs = [dataclasses.replace(pg, state="active+clean+scrubbing+deep") for pg in s.pgs[:4]] + s.pgs[4:]
    s.slow(0.5)
    s.run(12)
    info = s.info()
    assert info is not None and info["cause"] == "deep_scrub"
    assert info["evidence"].startswith("4 PG deep scrubs") and "usually 1" in info["evidence"]


def test_recovery_spillover_growth_and_a_crossed_fill_target_are_each_blamed_when_alone():
    def backfilling(s: Stream) -> None:
        s.pgs = [dataclasses.replace(pg, state="active+remapped+backfilling") for pg in s.pgs]

    for cause, make in (
        ("recovery", backfilling),
        ("spillover", lambda s: setattr(s, "spilled", s.spilled + 64 * 2**20)),
        ("fill", lambda s: s.osds.__setitem__(1, dataclasses.replace(s.osds[1], used_bytes=85))),
    ):
        s = Stream().run(60)
        s.slow(0.4)
        make(s)
        s.run(12)
        info = s.info()
        assert info is not None and info["cause"] == cause, (cause, info)


def test_the_recovery_evidence_counts_one_pg_as_one():
    s = Stream().run(60)
    s.slow(0.4)
    s.pgs[3] = dataclasses.replace(s.pgs[3], state="active+remapped+backfilling")
    s.run(12)
    info = s.info()
    assert info is not None and info["evidence"] == "1 PG moving data (1 backfill; usually 0)", info


def test_spillover_growing_while_pgs_backfill_follows_from_the_recovery():
    """Backfill writes the objects it moves, and RocksDB spills more meanwhile. The PGs backfill in
    bursts (seen at every third poll), the spilled bytes grow at every one: the recovery is named,
    the spillover scored no higher."""
    s = Stream().run(60)
    s.slow(0.4)
    clean = s.pgs
    for poll in range(6):
        s.pgs = (
            [dataclasses.replace(pg, state="active+remapped+backfilling") for pg in clean] if poll % 3 == 0 else clean
        )
        s.spilled += 16 * 2**20
        s.run(STEP)
    info = s.info()
    assert info is not None and info["cause"] == "recovery", info
    spill = s.value("ceph_scale_s3_plunge_cause_score", cause="spillover")
    recovery = s.value("ceph_scale_s3_plunge_cause_score", cause="recovery")
    assert spill is not None and recovery is not None and spill <= recovery


def test_a_condition_there_all_along_is_not_the_cause_of_a_new_plunge():
    """An OSD down and a PG backfilling since before the baseline: the plunge has no known cause."""
    s = Stream()
    s.osds[0] = dataclasses.replace(s.osds[0], up=False)
    s.pgs[0] = dataclasses.replace(s.pgs[0], state="active+undersized+degraded+backfilling")
    s.run(60)
    s.slow(0.4)
    s.run(12)
    assert s.info() == {"cause": "none", "evidence": s.info()["evidence"]}
    assert s.value("ceph_scale_s3_plunge_cause_score", cause="none") == 1.0
    s.normal()
    s.run(30)
    assert s.counted() == {"none": 1}


def test_a_plunge_longer_than_the_baseline_is_the_new_level_and_ends():
    s = Stream().run(60)
    s.slow(0.5)
    s.run(20)
    assert s.value("ceph_scale_s3_plunge_active") == 1
    s.run(TH.plunge_baseline_seconds + 10)
    assert s.value("ceph_scale_s3_plunge_active") == 0
    assert s.counted() == {"none": 1}


def test_new_thresholds_restart_the_history_and_keep_the_counts():
    s = Stream().run(60)
    s.stall()
    s.run(12)
    s.normal()
    s.run(40)
    th = dataclasses.replace(TH, plunge_drop_ratio=0.3)
    s.th = th
    s.run(STEP)
    assert s.counted() == {"none": 1}
    assert s.value("ceph_scale_s3_plunge_drop_ratio", op="put") is None  # no baseline yet


LEAKED = 10  # qlen entries of requests whose clients hung up before the reply (Pacific: never taken back)
MINUTES = dataclasses.replace(TH, plunge_window_seconds=15, plunge_baseline_seconds=120, plunge_drop_ratio=0.25)


def loaded_over_a_leaked_gauge() -> Stream:
    """The test cluster's windows and counters refreshed every 5 s, 4 Python clients that are in the
    RGW at a poll or not, over a gauge that never reads less than LEAKED."""
    s = Stream(MINUTES)
    s.refresh = 5.0
    for i in range(75):
        s.in_flight = LEAKED + (4, 1, 3, 0, 4)[i % 5]
        s.run(STEP)
    return s


def test_a_pause_is_a_demand_drop_though_the_in_flight_gauge_never_returns_to_zero():
    """Pacific's RGW counts a request in `qlen` when it starts and takes it back only once its reply
    is sent: one whose client hung up first (a timeout during a stall) stays counted for the life of
    the RGW. The clients' pause brings the gauge back to that floor, not to zero."""
    s = loaded_over_a_leaked_gauge()
    s.stall()
    s.in_flight = LEAKED
    for _ in range(20):
        s.run(STEP)
        assert s.value("ceph_scale_s3_plunge_active") == 0, f"{s.t} s"
    assert s.value("ceph_scale_s3_demand_drop_active") == 1


def test_a_stall_is_still_a_plunge_over_a_leaked_in_flight_gauge():
    s = loaded_over_a_leaked_gauge()
    s.osds[2] = dataclasses.replace(s.osds[2], up=False)
    s.stall()
    s.in_flight = LEAKED + 4  # every client's request waits in the RGW
    s.run(20)
    assert s.value("ceph_scale_s3_plunge_active") == 1
    assert s.value("ceph_scale_s3_demand_drop_active") == 0


def test_a_pause_over_a_gauge_that_never_moved_is_a_demand_drop():
    """Many clients always in the RGW over a leaked floor: the gauge reads the same at every poll of
    the baseline, and less once they stop."""
    s = Stream(MINUTES)
    s.refresh = 5.0
    s.in_flight = 1000 + 64
    s.run(150)
    s.stall()
    s.in_flight = 1000
    for _ in range(20):
        s.run(STEP)
        assert s.value("ceph_scale_s3_plunge_active") == 0, f"{s.t} s"
    assert s.value("ceph_scale_s3_demand_drop_active") == 1
