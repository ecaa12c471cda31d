"""A counted bucket that begins to reshard as an idle one leaves the queue: the count of buckets
resharding stays as usual, and its own ops are what tell. At the 10B study's scale under the 1B
study's hourly rounds (tests/unit/study_rounds.py: 318 HDD OSDs, 12 RGWs, the default 60 s
window and 1,800 s baseline), with a new idle bucket in the queue at every poll, as at 100,000
buckets, and RGWs that count each bucket's PUTs (Tentacle's `rgw_bucket_counters_cache`)."""

from __future__ import annotations

import dataclasses

from ceph_scale.core.config import Thresholds
from ceph_scale.core.queued_bucket_ops import ALL_BUCKETS
from ceph_scale.core.snapshot import BucketOps, ReshardEntry, Snapshot
from tests.unit.study_rounds import GET, GET_LATENCY, MIXED, POLL, PUT, PUT_LATENCY, RGWS, Load, StudyCluster, rounds

HOT = "hot-0"
SHARE = 0.017  # of the PUTs: one written bucket of many


def entry(name: str, processing: bool = True) -> ReshardEntry:
    return ReshardEntry(name, "", f"zone.{name}", 11, 23, processing)


class CountedRounds(StudyCluster):
    """`share`: bucket -> its share of the cluster's PUTs now, counted per RGW; an idle bucket (no
    counters) new in the queue at every poll, unless `hot` buckets are processed in its place."""

    def __init__(self, th: Thresholds | None = None) -> None:
        super().__init__(th)
        self.share: dict[str, float] = {HOT: SHARE}
        self.counts: dict[tuple[str, str], float] = {}
        self.hot: list[str] = []
        self.queued: list[str] = []
        self.beside = False  # the hot buckets beside the idle one (more than usual), not in its place
        self.polls = 0

    def run(self, seconds: float, load: Load) -> CountedRounds:
        for _ in range(round(seconds / POLL)):
            self.polls += 1
            put_rate = load.rates(self.in_flight)["put"]
            for bucket, share in self.share.items():
                for r in range(RGWS):
                    key = (str(4000 + r), bucket)
                    self.counts[key] = self.counts.get(key, 0.0) + share * put_rate / RGWS * POLL
            idle = [] if self.hot and not self.beside else [entry(f"idle-{self.polls:06d}")]
            self.resharding = tuple(idle + [entry(h) for h in self.hot] + [entry(q, False) for q in self.queued])
            StudyCluster.run(self, POLL, load)
        return self

    def snapshot(self) -> Snapshot:
        snap = super().snapshot()
        c = self.counters
        totals = tuple(
            BucketOps(str(4000 + r), ALL_BUCKETS, int(c["put"] / RGWS), int(c["get"] / RGWS)) for r in range(RGWS)
        )
        ops = totals + tuple(BucketOps(r, b, int(n), 0) for (r, b), n in sorted(self.counts.items()))
        assert snap.reshard is not None
        return dataclasses.replace(
            snap, reshard=dataclasses.replace(snap.reshard, bucket_ops=ops, bucket_ops_unread="")
        )

    def cause(self) -> str | None:
        info = self.info()
        return info["cause"] if info else None


def held_from(put_seconds: float, queued_seconds: float, mixed: Load = MIXED) -> CountedRounds:
    """A round (its mixed phase `mixed`), then `put_seconds` of PUTs and the bucket queued for
    `queued_seconds` more; then processed in place of the idle bucket, its writes held."""
    c = CountedRounds()
    rounds(c, 1, mixed=mixed)
    c.run(put_seconds, PUT)
    c.queued = [HOT]
    c.run(queued_seconds, PUT)
    c.queued, c.hot = [], [HOT]
    c.share = {HOT: 0.0}
    return c


def test_a_hot_bucket_resharding_from_the_get_phase_makes_no_plunge_when_the_mixed_clients_write_elsewhere():
    """Its share of the PUTs falls from the PUT hour's 1.7 % to 0 because the mixed phase's clients
    write other buckets, with every PUT 1.3x slower than in the PUT hour: its own ops confirm a
    fall, but no hold of the writes is judged at the usual count (it made a plunge of the whole
    mixed phase)."""
    slower = dataclasses.replace(MIXED, slowdown=1.3)
    c = held_from(3300, 300, slower)  # the mixed phases' own level as slow: no change against it
    c.run(900, GET)
    c.run(900, slower)
    told = [e for e in c.state.signals["plunge"].evidence.current(c.t) if e.cause == "reshard"]
    assert told and "its share of the PUTs fell from 1.7% to 0%" in told[-1].text, told
    assert c.plunges() == {}, c.plunges()


def test_a_hot_bucket_whose_writes_are_held_at_the_usual_count_is_named_while_its_plunge_lasts():
    """53 minutes of a reshard of a bucket of 1.7 % of the PUTs, its writes held, every PUT twice as
    slow, the count of buckets resharding as usual: one plunge, named reshard."""
    c = held_from(240, 60)
    c.run(20 * 60, dataclasses.replace(PUT, slowdown=2.0))
    assert c.cause() == "reshard", c.info()
    assert "its share of the PUTs fell from 1.7% to 0%" in (c.info() or {})["evidence"]
    c.run(33 * 60, dataclasses.replace(PUT, slowdown=2.0))
    c.hot, c.share = [], {HOT: SHARE}
    c.run(600, PUT)
    assert c.plunges() == {"reshard": 1.0}, c.plunges()
    assert c.value("ceph_scale_s3_plunge_active") == 0


def test_an_osd_stall_in_the_mixed_phase_is_named_over_a_hot_bucket_resharding_since_before():
    """The bucket's writes held for 5 minutes at the usual count when one OSD of 318 stalls every op
    by 70 %, the GETs too: a reshard blocks writes, not reads, so the OSD is named from its
    mark-down on (the reshard was named to the stall's end)."""
    c = CountedRounds()
    rounds(c, 1)
    c.run(3600, PUT).run(900, GET)
    c.hot, c.share = [HOT], {HOT: 0.0}
    c.run(300, MIXED)
    stall = dataclasses.replace(MIXED, slowdown=1 / 0.3)
    c.run(30, stall)
    c.down(5)
    causes = []
    for _ in range(5):
        c.run(15, stall)
        causes.append(c.cause())
    assert causes[1:] == ["osds_down"] * 4, causes


def half_the_puts_resharding_beside(put_seconds: float) -> CountedRounds:
    """A round, then `put_seconds` of PUTs; then a bucket of half the PUTs processed beside the idle
    bucket of each poll (more than usual), its writes held."""
    c = CountedRounds()
    c.share, c.beside = {HOT: 0.5}, True
    rounds(c, 1)
    c.run(put_seconds, PUT)
    c.hot, c.share = [HOT], {HOT: 0.0}
    return c


def test_a_reshard_its_own_ops_confirm_above_the_usual_count_keeps_its_plunge_through_a_get_blip_and_an_osd():
    """A bucket of half the PUTs resharding beside the idle one since the GET phase holds the mixed
    phase's writes (PUTs twice as slow): one plunge, named reshard to its end, though 5 minutes in
    the GETs run twice as slow for 2 minutes while one OSD of 318 is down (it was counted osds_down
    once confirmed reshards took an onset above the usual count too)."""
    c = half_the_puts_resharding_beside(3600)
    held = dataclasses.replace(MIXED, put_latency=2 * PUT_LATENCY)
    c.run(900, GET).run(300, held)
    c.down(5)
    c.run(120, dataclasses.replace(held, get_latency=2 * GET_LATENCY))
    c.osds[5] = dataclasses.replace(c.osds[5], up=True)
    c.run(480, held)
    assert c.cause() == "reshard", c.info()
    c.hot, c.share = [], {HOT: 0.5}
    rounds(c, 1)
    assert c.plunges() == {"reshard": 1.0}, c.plunges()


def test_the_buckets_judged_are_kept_no_longer_than_the_polls():
    """A new bucket judged at nearly every poll at 100,000 buckets: what OwnOps keeps of its
    judgements is bounded by the polls it keeps (4.5 h by default; 1.5 h with the cause held an
    hour, as here), not by every bucket ever resharded: 40 counted buckets resharding in each half
    hour for 3 hours."""
    c = CountedRounds(Thresholds(plunge_cause_hold_seconds=3600))
    assert c.state.signals["plunge"].evidence.keep < 2 * 3600
    for i in range(6):
        c.share = {f"w-{i}-{j}": 0.001 for j in range(40)}
        c.hot = list(c.share)
        c.run(1800, PUT)
    evidence = c.state.signals["plunge"].evidence
    judged = evidence.reshards.own_ops.judged
    assert 0 < len(judged) < 6 * 40, len(judged)
    assert all(last >= c.t - evidence.keep for _, last in judged.values())


def test_the_bucket_holding_the_writes_is_named_not_the_idle_one_new_at_each_poll():
    """A bucket of half the PUTs resharding beside the idle one new in the queue at every poll (more
    than usual), its writes held for 20 minutes of the PUT hour, its own ops confirming it: the
    evidence named the idle bucket of each poll, in the queue's order (53 of them over the study's
    53-minute hold), and never the bucket that held the writes."""
    c = half_the_puts_resharding_beside(600)
    held = dataclasses.replace(PUT, put_latency=2 * PUT_LATENCY)
    told = []
    for _ in range(20):
        c.run(60, held)
        info = c.info()
        if info and info["cause"] == "reshard":
            told.append(info["evidence"])
    assert len(told) >= 15, told
    assert all(t.startswith(f"bucket {HOT} resharding") for t in told), told[:3]
    assert "its share of the PUTs fell from 50% to 0%" in told[-1]
    c.hot, c.share = [], {HOT: 0.5}
    c.run(900, PUT)
    assert c.plunges() == {"reshard": 1.0}, c.plunges()
