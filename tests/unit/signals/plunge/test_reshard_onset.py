"""Reshards in progress long before a drop, their buckets' own ops not counted, against a drop of
the reads too (causes.yields): the 10B cluster (318 HDD OSDs, 12 RGWs) under the 1B study's COSBench
rounds, with the default thresholds. A reshard blocks writes, not reads [Ceph's dynamic resharding
docs]: where the GETs fell too, another cause seen made the drop; seen alone, the reshard is still
named for the writes it may hold."""

from __future__ import annotations

import dataclasses
import random

import pytest

from ceph_scale.core.snapshot import ReshardEntry, ReshardPart, Snapshot
from tests.unit.signals.plunge.test_plunge_study import MIXED_HELD, RESHARDING, plunge_spans
from tests.unit.study_rounds import GET, GET_LATENCY, MIXED, PUT, Load, StudyCluster, after_rounds, rounds

STALL_MIXED = dataclasses.replace(MIXED, slowdown=1 / 0.3)  # one OSD of 318 stalls every op by 70 %


def causes_after_mark_down(c: StudyCluster, stall: Load, polls: int = 5) -> list[str | None]:
    """The OSD stalls for 30 s, is marked down, and stalls `polls` polls more: the cause at each."""
    c.run(30, stall)
    c.down(5)
    causes = []
    for _ in range(polls):
        c.run(15, stall)
        info = c.info()
        causes.append(info["cause"] if info else None)
    return causes


def assert_a_full_reshard_candidate(c: StudyCluster) -> None:
    """The reshard is a candidate of the plunge on, its score not capped (causes.yields)."""
    plunge = c.state.signals["plunge"].plunge
    assert plunge is not None
    reshard = [x for x in plunge.candidates if x.cause == "reshard"]
    assert reshard and reshard[0].explained is not None
    assert reshard[0].score == pytest.approx(reshard[0].overlap * (1 + reshard[0].explained) / 2)


def test_an_osd_stall_in_a_mixed_phase_is_blamed_on_it_not_on_a_reshard_in_progress_since_the_get_phase():
    """A bucket resharding since the GET phase began, its writes not held; 5 minutes into the mixed
    phase one OSD of 318 stalls every op by 70 %. The reshard was in progress for 20 minutes with no
    drop of its own, and the GETs fell too: blamed on the OSD from its mark-down on, the reshard a
    candidate below it."""
    c = after_rounds(1).run(3600, PUT)
    c.resharding = RESHARDING
    c.run(900, GET).run(300, MIXED)
    assert causes_after_mark_down(c, STALL_MIXED) == ["osds_down"] * 5
    reshard = c.value("ceph_scale_s3_plunge_cause_score", cause="reshard")
    osd = c.value("ceph_scale_s3_plunge_cause_score", cause="osds_down")
    assert reshard is not None and osd is not None and reshard <= osd


def test_a_reshard_that_begins_as_an_osd_stalls_is_still_a_candidate():
    """The quiet case of the rule above: a reshard first seen as the drop begins may have made it;
    more buckets resharding than usual are a candidate beside the OSD, as before."""
    c = after_rounds(1).run(3600, PUT).run(900, GET).run(300, MIXED)
    c.resharding = RESHARDING
    causes_after_mark_down(c, STALL_MIXED, polls=1)
    assert_a_full_reshard_candidate(c)


def test_with_another_bucket_resharding_at_every_poll_the_count_not_the_bucket_tells_how_long():
    """The reviewer's case at 100,000 buckets: a different idle bucket resharding at every poll and
    one entry in progress since the PUT hour began, two where one is usual. The bucket told is new
    at each poll, but the count has been above usual for 80 minutes: an OSD's stall in the mixed
    phase is blamed on the OSD, and counted so."""
    c = uneven_until_the_stall(0, MIXED, idle=(1,))  # one idle bucket at each poll
    assert causes_after_mark_down(c, STALL_MIXED) == ["osds_down"] * 5
    c.run(900, MIXED)
    assert c.plunges() == {"osds_down": 1}


def test_a_reshard_holding_the_mixed_phases_writes_keeps_its_plunge_through_a_blip_of_the_gets():
    """The reviewer's case: a reshard since the GET phase holds the mixed phase's writes (one plunge,
    blamed on it); 5 minutes in, the GETs are twice as slow for 2 minutes with nothing seen. No other
    cause: the reshard is still named, and the plunge counted under it."""
    c = after_rounds(1).run(3600, PUT)
    c.resharding = RESHARDING
    mixed = c.t + 900
    c.run(900, GET).run(300, MIXED_HELD)
    assert (c.info() or {}).get("cause") == "reshard"
    c.run(120, dataclasses.replace(MIXED_HELD, get_latency=2 * GET_LATENCY))
    assert (c.info() or {}).get("cause") == "reshard"
    c.run(480, MIXED_HELD)
    c.resharding = ()
    rounds(c, 1)
    assert c.plunges() == {"reshard": 1}
    assert len([s for s in plunge_spans(c) if s[0] >= mixed - 60]) == 1


class Uneven(StudyCluster):
    """100,000 buckets: at each poll new idle buckets in the queue, as many as drawn from `idle` with
    a fixed seed (one usual), and `stuck` entries in progress for hours beside them when set;
    `dips`: polls at which the queue read lists one entry fewer; `hot`: a bucket that begins to
    reshard, in place of the idle ones at the same polls (`replace`) or beside them."""

    def __init__(self, seed: int, idle: tuple[int, ...] = (0, 1, 2)) -> None:
        super().__init__()
        self.stuck = False
        self.polls = 0
        self.rng = random.Random(seed)
        self.idle = idle
        self.dips: set[int] = set()
        self.hot = False
        self.replace = False
        self.stuck_entries = 1
        self.hot_first = False

    def run(self, seconds: float, load: Load) -> StudyCluster:
        for _ in range(round(seconds / 15)):
            self.polls += 1
            idle = [
                ReshardEntry(f"idle-{self.polls:06d}-{i}", "", f"zone.{self.polls}.{i}", 11, 23, True)
                for i in range(self.rng.choice(self.idle))
            ]
            if self.hot and self.replace:
                idle = []
            stuck = [ReshardEntry(f"stuck-{i}", "", f"zone.stuck{i}", 11, 23, True) for i in range(self.stuck_entries)]
            entries = idle + stuck * self.stuck
            hot = [ReshardEntry("hot", "", "zone.hot", 16, 512, True)] * self.hot
            entries = hot + entries if self.hot_first else entries + hot
            self.resharding = tuple(entries[1:] if self.polls in self.dips else entries)
            StudyCluster.run(self, 15, load)
        return self


def uneven_until_the_stall(seed: int, phase: Load, idle: tuple[int, ...] = (0, 1, 2)) -> Uneven:
    c = Uneven(seed, idle)
    rounds(c, 1)
    c.stuck = True
    c.run(3600, PUT)
    if phase is MIXED:
        c.run(900, GET)
    c.run(300, phase)
    return c


CHURNS = [((1,), 0), *(((0, 1, 2), seed) for seed in range(4))]


@pytest.mark.parametrize(("idle", "seed"), CHURNS, ids=["even", *(f"uneven-{seed}" for seed in range(4))])
@pytest.mark.parametrize("phase", [GET, MIXED], ids=["get", "mixed"])
def test_an_uneven_churn_and_a_queue_read_one_entry_short_do_not_make_old_reshards_new(idle, seed, phase):
    """The reviewer's cases: one, or 0 to 2, idle buckets at each poll beside the stuck entry, and a
    queue read one entry short at the poll after the mark-down. The run of polls with more reshards
    than usual goes on through gaps of up to a window: an OSD's stall in the GET or mixed phase is
    blamed on the OSD, and counted so."""
    c = uneven_until_the_stall(seed, phase, idle)
    c.dips = {c.polls + 4}  # the stall's 30 s, the mark-down, the poll after it
    stall = dataclasses.replace(phase, slowdown=1 / 0.3)
    named = [cause for cause in causes_after_mark_down(c, stall) if cause is not None]  # once read
    assert len(named) >= 4 and set(named) == {"osds_down"}, named
    c.run(900, dataclasses.replace(phase, slowdown=1.01))
    assert c.plunges() == {"osds_down": 1}


@pytest.mark.parametrize("replace", [True, False], ids=["in place of the idle ones", "beside them"])
def test_a_hot_bucket_that_begins_as_an_osd_stalls_is_a_full_candidate_from_its_second_poll(replace):
    """The reviewer's case: on top of the churn, a hot bucket (16 -> 512 shards) begins to reshard as
    one OSD stalls; in place of the idle buckets, the count does not move. Seen at two polls, its
    own first poll is its onset: it may have made the drop, and is not capped below the OSD."""
    c = uneven_until_the_stall(0, MIXED, idle=(1,))  # one idle bucket at each poll
    c.hot, c.replace = True, replace
    causes_after_mark_down(c, STALL_MIXED, polls=2)
    assert_a_full_reshard_candidate(c)


class SlowQueue(Uneven):
    """The reshard queue read every `every` polls of 15 s, as the sidecar reads it every
    `rgw_interval` (60 s by default), while the RGW counters are read every 15 s."""

    def __init__(self, every: int, late: float) -> None:
        super().__init__(0, idle=(1,))
        self.every, self.late = every, late
        self.queue: ReshardPart | None = None
        self.reads = 0

    def snapshot(self) -> Snapshot:
        snap = super().snapshot()
        if snap.reshard is not None and (self.queue is None or self.polls % self.every == 0):
            self.reads += 1
            # Each read `late` seconds later than the last, within the 15 s before the snapshot.
            at = snap.reshard.collected_at - 15 + self.late * (self.reads % 29)
            self.queue = dataclasses.replace(snap.reshard, collected_at=at)
        return dataclasses.replace(snap, reshard=self.queue)


@pytest.mark.parametrize(("every", "late"), [(4, 0.0), (4, 0.5), (5, 0.0)], ids=["60 s", "60.5 s", "75 s"])
def test_a_queue_read_less_often_than_a_window_keeps_its_run_of_reshards(every, late):
    """The queue read every 60 s (the default rgw_interval; each read a little later than the last,
    as the sidecar's loop sleeps at least its interval) or 75 s, reads a window or more apart: the
    run of polls with more reshards than usual goes on from one read to the next, so an OSD's stall
    in the mixed phase, the stuck entry in the queue since the PUT hour, is blamed on the OSD."""
    c = SlowQueue(every, late)
    rounds(c, 1)
    c.stuck = True
    began = c.t
    c.run(3600, PUT).run(900, GET).run(300, MIXED)
    seen = [e for e in c.state.signals["plunge"].evidence.current(c.t) if e.cause == "reshard"]
    assert seen and seen[-1].onset is not None and seen[-1].onset <= began + 15 * every, (began, seen[-1])
    named = [cause for cause in causes_after_mark_down(c, STALL_MIXED, polls=8) if cause is not None]
    assert len(named) >= 6 and named[-4:] == ["osds_down"] * 4, named
    c.run(900, dataclasses.replace(MIXED, slowdown=1.01))
    assert c.plunges() == {"osds_down": 1}


@pytest.mark.parametrize("first", [True, False], ids=["listed first", "listed past the 20 told"])
def test_a_hot_bucket_listed_past_the_buckets_told_is_a_full_candidate_too(first):
    """The reviewer's case: 24 entries stuck in progress since the PUT hour beside the churn, then a
    hot bucket begins as one OSD stalls. Listed past the 20 buckets told, it is a subject of the
    first evidence, which speaks for it too (the latest onset of its buckets): a full candidate
    from its second poll, as where it is listed first."""
    c = Uneven(0, idle=(1,))
    c.stuck_entries = 24
    rounds(c, 1)
    c.stuck = True
    c.run(3600, PUT).run(900, GET).run(300, MIXED)
    c.hot, c.hot_first = True, first
    causes_after_mark_down(c, STALL_MIXED, polls=2)
    assert_a_full_reshard_candidate(c)
