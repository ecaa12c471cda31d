"""The bucket poll: what it reads, when, and within what budget (core/bucket_poll.py).

The buckets are real captured bucket-stats records (tests/unit/bucket_reader.py) whose
object counts the tests drive; the reads are counted at the costs measured on a real
cluster. The properties: the budget is never exceeded, a bucket that crosses a line is
shown past it at the next poll while it grows within its bound, new buckets and queue
entries are read at once, and the state survives a restart.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ceph_scale.core.bucket_poll import BucketPoll
from ceph_scale.core.bucket_poll_limits import PollLimits, may_cross_at, poll_inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.reshard.derive import ReshardState
from ceph_scale.core.snapshot import Bucket, ClusterSettings, ReshardEntry, ReshardPart, Snapshot
from tests.unit.bucket_reader import Clock, MemoryBuckets

LIM = PollLimits(reads_per_second=100.0, max_reads=15_000, growth_floor=1.0, growth_safety=2.0,
                 max_age=86_400.0, warn_ratio=0.8, shard_limit=1000)  # fmt: skip
INTERVAL = 120.0
LISTING = 18 + 6  # both listings, one page each
ONE_READ = dataclasses.replace(LIM, max_reads=LISTING + 2 + 16 + 3)  # the listing and one new bucket of 11 shards


def setup(n: int = 0, shards: int = 11, release: str = "pacific") -> tuple[BucketPoll, MemoryBuckets, Clock]:
    clock = Clock()
    cluster = MemoryBuckets(clock, release)
    for i in range(n):
        cluster.create(f"b{i:05d}", shards)
    return BucketPoll(), cluster, clock


def poll(p: BucketPoll, cluster: MemoryBuckets, clock: Clock, lim: PollLimits = LIM, queued=frozenset(), left=60.0):
    cluster.stats_read.clear()
    cluster.meta_read.clear()
    return p.poll(clock(), cluster, lim, frozenset(queued), lambda: left, cluster.exists)


def held(part) -> dict[str, int]:
    return {b.key: b.num_objects for b in part.buckets}


def line(shards: int, lim: PollLimits = LIM, ratio: float | None = None) -> int:
    return int((lim.warn_ratio if ratio is None else ratio) * lim.shard_limit * shards)


def test_the_first_poll_reads_every_bucket_it_can_afford_and_lists_the_rest_as_unread():
    p, cluster, clock = setup(2000)
    part = poll(p, cluster, clock)
    reads = dict(part.poll.reads_total)
    # 15,000 reads: the listing, then 2 (shard count) + 11 + 5 per bucket, and probes
    assert part.poll.reads <= LIM.max_reads
    assert reads["list"] == 2 * LISTING and reads["stats"] == 16 * len(part.buckets)
    assert 700 < len(part.buckets) < 850 and part.poll.unread == 2000 - len(part.buckets)
    assert part.unread.isdisjoint(b.key for b in part.buckets) and len(part.unread) == part.poll.unread
    assert part.poll.overdue == 0  # buckets never read are unread, not overdue
    # the budget refills at 100 reads/s: two minutes later, 12,000 more
    clock.t += INTERVAL
    part = poll(p, cluster, clock)
    assert 12_000 - 16 <= part.poll.reads <= 12_000


def test_new_buckets_are_read_at_once_and_again_the_next_poll_for_their_growth():
    p, cluster, clock = setup(50)
    poll(p, cluster, clock)
    clock.t += INTERVAL
    poll(p, cluster, clock)
    cluster.create("fresh", 11)
    clock.t += INTERVAL
    part = poll(p, cluster, clock, lim=ONE_READ)  # no room for a sweep
    assert cluster.stats_read == ["fresh"] and held(part)["fresh"] == 0
    cluster.set_objects("fresh", 2000)
    clock.t += INTERVAL
    part = poll(p, cluster, clock, lim=ONE_READ)
    assert cluster.stats_read == ["fresh"] and dict(part.poll.buckets_read_total)["new"] == 2
    assert p.entries["fresh"].rate == pytest.approx(2000 / INTERVAL)
    # 6,800 objects from the line at 2 x 16.7 objects/s: 204 s; the next poll's budget goes to the sweep
    clock.t += INTERVAL
    part = poll(p, cluster, clock, lim=ONE_READ)
    assert cluster.stats_read != ["fresh"] and dict(part.poll.buckets_read_total)["due"] == 0
    cluster.set_objects("fresh", 6000)
    clock.t += INTERVAL
    part = poll(p, cluster, clock, lim=ONE_READ)
    assert cluster.stats_read == ["fresh"] and dict(part.poll.buckets_read_total)["due"] == 1


def test_a_queued_bucket_is_read_every_poll_while_queued_and_once_after():
    p, cluster, clock = setup(30)
    poll(p, cluster, clock)
    for queued, again in ((["b00007"], True), (["b00007"], True), ([], True), ([], False)):
        clock.t += INTERVAL
        poll(p, cluster, clock, lim=ONE_READ, queued=queued)
        assert (cluster.stats_read[0] == "b00007") is again


@pytest.mark.parametrize("release", ["pacific", "reef"])
def test_after_a_first_start_at_100000_buckets_the_queued_ones_are_read_before_the_unread(release):
    """A first start reads ~800 buckets a poll: the rest wait hours. The two the reshard queue names,
    the first and the last listed, are read on the first poll; on Reef the one being processed is
    seen so (its target generation built beside the current one), the other as queued."""
    p, cluster, clock = setup(100_000, release=release)
    cluster.begin_reshard("b99999", 23)
    part = poll(p, cluster, clock, queued=["b00000", "b99999"])
    read = {b.key: b for b in part.buckets}
    assert {"b00000", "b99999"} <= set(read) and part.poll.unread > 98_000
    assert cluster.stats_read.index("b99999") < 2
    if release == "reef":
        assert read["b99999"].resharding and not read["b00000"].resharding


def test_reef_reshards_are_counted_exactly_from_the_generation_probed_after_the_queue():
    p, cluster, clock = setup(20, release="reef")
    state = DerivationState(Thresholds())

    def observe():
        part = poll(p, cluster, clock, lim=ONE_READ, queued=queued)
        derive(Snapshot(taken_at=clock(), buckets=part), state)
        return part

    queued: list[str] = []
    poll(p, cluster, clock)  # every bucket read, its generation probed (0)
    assert all(e.bucket is not None and e.bucket.index_gen == 0 for e in p.entries.values())
    derive(Snapshot(taken_at=clock(), buckets=poll(p, cluster, clock)), state)
    queued = ["b00003"]
    clock.t += INTERVAL
    observe()
    cluster.reshard("b00003", 23, new_instance=False)
    cluster.reshard("b00003", 47, new_instance=False)  # twice before the next read
    queued = []
    clock.t += INTERVAL
    part = observe()
    assert cluster.stats_read == ["b00003"]  # once after it left the queue
    assert next(b for b in part.buckets if b.key == "b00003").index_gen == 2
    assert state.of(ReshardState).events == 2


def test_pacifics_new_instance_id_in_the_listing_triggers_a_read():
    p, cluster, clock = setup(20)
    poll(p, cluster, clock)
    cluster.reshard("b00011", 13, new_instance=True)
    clock.t += INTERVAL
    part = poll(p, cluster, clock, lim=ONE_READ)
    assert cluster.stats_read == ["b00011"]
    b = next(b for b in part.buckets if b.key == "b00011")
    assert b.num_shards == 13 and b.bucket_id.endswith(".r") and b.marker != b.bucket_id


def test_tentacles_stats_carry_the_generation_so_nothing_is_probed():
    p, cluster, clock = setup(20, release="tentacle")
    part = poll(p, cluster, clock)
    assert cluster.probes == 0 and dict(part.poll.reads_total)["probe"] == 0
    assert all(b.index_gen == 0 for b in part.buckets)


def test_a_bucket_past_its_bound_is_read_and_a_surprise_counted():
    p, cluster, clock = setup(10, shards=1)
    poll(p, cluster, clock)
    room = line(1)  # 800 objects at 1 object/s floor: due after 800 s
    assert may_cross_at(p.entries["b00001"].bucket, 0.0, LIM) == pytest.approx(clock() + room)
    small = dataclasses.replace(LIM, max_reads=12)  # one bucket's stats: no sweep besides
    clock.t += 700
    poll(p, cluster, clock, lim=small)
    assert "b00001" not in cluster.stats_read
    cluster.set_objects("b00001", 900)  # far faster than the 1 object/s floor: past the line
    clock.t += 101
    part = poll(p, cluster, clock, lim=dataclasses.replace(small, max_reads=70))
    assert held(part)["b00001"] == 900 and part.poll.bound_exceeded_total == 1


def test_a_budget_too_small_leaves_buckets_overdue_and_says_so():
    p, cluster, clock = setup(100, shards=1)
    for i in range(100):
        cluster.set_objects(f"b{i:05d}", line(1) - 10)  # all within 10 objects of the line
    poll(p, cluster, clock)
    clock.t += INTERVAL
    part = poll(p, cluster, clock, lim=dataclasses.replace(LIM, max_reads=100, reads_per_second=1))
    assert part.poll.reads <= 100 and len(cluster.stats_read) < 20
    assert part.poll.overdue == 100 - len(cluster.stats_read)


def test_out_of_time_no_read_is_started():
    p, cluster, clock = setup(10)
    part = poll(p, cluster, clock, left=0.5)
    assert cluster.stats_read == [] and part.poll.unread == 10


def test_the_sweep_reads_the_oldest_stats_first():
    p, cluster, clock = setup(300, shards=1)
    poll(p, cluster, clock)
    sweep = dataclasses.replace(LIM, max_reads=1000)  # ~160 buckets of 1 shard a poll
    clock.t += 10
    poll(p, cluster, clock, lim=sweep)
    second = list(cluster.stats_read)
    assert 100 < len(second) < 200 and second == sorted(second)  # equally old: in key order
    clock.t += 10
    part = poll(p, cluster, clock, lim=sweep)
    left = sorted(set(cluster.buckets) - set(second))
    assert cluster.stats_read[: len(left)] == left  # the rest of the first read, before any second one
    assert set(cluster.stats_read[len(left) :]) <= set(second[: len(cluster.stats_read) - len(left)])
    assert dict(part.poll.buckets_read_total)["sweep"] == len(second) + len(cluster.stats_read)
    assert clock() - part.poll.oldest_stats_at == 10


def test_deleted_buckets_disappear_and_a_vanishing_one_costs_no_error():
    p, cluster, clock = setup(5)
    poll(p, cluster, clock)
    cluster.delete("b00002")
    clock.t += INTERVAL
    part = poll(p, cluster, clock)
    assert "b00002" not in held(part) and "b00002" not in p.entries
    # listed, then gone before its stats are read
    original = cluster.stats

    def vanished(key, time_left):
        cluster.buckets.pop(key, None)
        return original(key, time_left)

    cluster.stats = vanished  # type: ignore[method-assign]
    cluster.create("short-lived")
    clock.t += INTERVAL
    part = poll(p, cluster, clock)
    assert "short-lived" not in held(part)


def test_the_state_survives_a_restart_and_goes_on_from_the_saved_stats():
    p, cluster, clock = setup(40)
    cluster.set_objects("b00004", 1234)
    poll(p, cluster, clock)
    restored = BucketPoll.from_dict(p.to_dict())
    assert {k: e.bucket for k, e in restored.entries.items()} == {k: e.bucket for k, e in p.entries.items()}
    cluster.create("while-down")
    clock.t += 600
    part = poll(restored, cluster, clock, lim=dataclasses.replace(LIM, reads_per_second=0.1))
    assert cluster.stats_read[0] == "while-down" and part.poll.unread == 0
    assert held(part)["b00004"] == 1234


def test_limits_and_queue_come_from_the_other_sources_parts():
    th = Thresholds(rgw_shard_warn_ratio=0.5)
    lim, queued = poll_inputs(th, None, None)
    assert lim.shard_limit == 100_000 and lim.warn_ratio == 0.5 and queued == frozenset()
    settings = ClusterSettings(collected_at=0.0, rgw_max_objs_per_shard=100)
    entries = (ReshardEntry("b", "", "id", 1, 7), ReshardEntry("c", "tnt", "id2", 1, 7))
    lim, queued = poll_inputs(th, settings, ReshardPart(0.0, entries))
    assert lim.shard_limit == 100 and queued == {"b", "tnt/c"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), budget=st.sampled_from([300, 3_000, 15_000]))
def test_property_the_budget_holds_and_crossings_are_seen_within_a_poll(seed, budget):
    """Buckets of 1 to 600 shards growing within their bound, some created on the way, polls
    at random intervals: no poll reads more than its budget, the average stays under the
    rate, and whenever no bucket was left overdue every bucket past a line is shown past it."""
    rnd = random.Random(seed)
    lim = dataclasses.replace(LIM, max_reads=budget, reads_per_second=budget / INTERVAL)
    p, cluster, clock = setup()
    rates: dict[str, float] = {}
    for i in range(150):
        key = f"b{i:04d}"
        cluster.create(key, rnd.choice([1, 1, 3, 11, 11, 64, 600]), 0)
        cap = cluster.buckets[key]["num_shards"] * lim.shard_limit
        cluster.set_objects(key, rnd.randrange(0, cap))
        rates[key] = rnd.choice([0.0, 0.0, 0.5, lim.growth_floor])  # never observed: within the floor
    start, spent, over = clock(), 0, 0.0
    for step in range(40):
        dt = rnd.uniform(1.0, 2 * INTERVAL)
        for key in list(rates):
            cluster.set_objects(key, cluster.objects(key) + int(rates[key] * dt))
        if step and rnd.random() < 0.2:  # a new bucket, filled fast: observed from its second read
            key = f"new{step}"
            cluster.create(key, 11, 0)
            rates[key] = 50.0
        clock.t += dt
        listed = dict(p.reads_total)["list"]
        part = poll(p, cluster, clock, lim=lim)
        listing = dict(p.reads_total)["list"] - listed  # always made: new and deleted buckets
        assert part.poll.reads <= max(part.poll.budget, listing) and part.poll.budget <= lim.max_reads
        spent += part.poll.reads
        over += max(0.0, listing - part.poll.budget)
        assert spent <= lim.max_reads + lim.reads_per_second * (clock() - start) + over + 1e-6
        if part.poll.overdue or part.poll.unread:
            continue
        shown = {b.key: b for b in part.buckets}
        for key in shown:  # listed (a small budget lists every few polls: new buckets wait for it)
            for ratio in (lim.warn_ratio, 1.0):
                if cluster.objects(key) >= ratio * lim.shard_limit * cluster.buckets[key]["num_shards"]:
                    assert shown[key].num_objects >= ratio * lim.shard_limit * shown[key].num_shards, key


def test_listings_past_half_the_budget_are_made_every_few_polls():
    """At a million buckets the listings alone would exceed the budget: they take at most half
    of it over time, and new buckets wait for the next one."""
    p, cluster, clock = setup(5000, shards=1)  # 5 pages of each listing: 120 reads
    lim = dataclasses.replace(LIM, reads_per_second=0.5)  # half of 60 reads a poll: a listing every 4 polls
    poll(p, cluster, clock, lim=lim)
    cluster.create("late")
    known = []
    for _ in range(8):
        clock.t += INTERVAL
        part = poll(p, cluster, clock, lim=lim)
        known.append("late" in part.unread or "late" in {b.key for b in part.buckets})
    assert cluster.listings == 2  # polls 0 and 4 (then 5,001 buckets: 6 pages, 144 reads, the next at poll 9)
    assert known == [False, False, False, True, True, True, True, True]
    assert "late" in {b.key for b in part.buckets}  # read once the budget recovered from the listing


def test_a_pacific_bucket_read_as_no_such_bucket_for_a_while_keeps_its_record_and_its_count():
    """Pacific swaps a resharded bucket's instances under RGW, and a stats read may answer "no such
    bucket" while the bucket is still listed. Dropped from the poll, it came back as a bucket first
    seen already resharded: a CI run on Pacific counted a reshard to fewer shards twice. The record
    stays with its last stats, is read again every poll, and the reshard counts once."""
    p, cluster, clock = setup(5)
    state = DerivationState(Thresholds())

    def observe():
        part = poll(p, cluster, clock)
        derive(Snapshot(taken_at=clock(), buckets=part), state)
        clock.t += INTERVAL
        return part

    observe()  # the watch begins
    cluster.create("late", 11)  # created while watched: a reshard before its first read is counted
    cluster.buckets["late"]["creation_time"] = "2027-01-15T08:00:00.000000Z"
    observe()
    assert state.of(ReshardState).events == 0
    cluster.reshard("late", 3, new_instance=True)
    observe()
    assert state.of(ReshardState).events == 1
    answers = cluster.stats

    def no_such_bucket(key, time_left):
        if key == "late":
            cluster.stats_read.append(key)
            return None
        return answers(key, time_left)

    cluster.stats = no_such_bucket  # type: ignore[method-assign]
    for _ in range(3):
        part = observe()
        assert held(part)["late"] == 0 and "late" in cluster.stats_read  # kept, and read again
    cluster.stats = answers  # type: ignore[method-assign]
    part = observe()
    assert "late" in cluster.stats_read and state.of(ReshardState).events == 1
    cluster.delete("late")  # deleted for real: the listing no longer has it
    part = observe()
    assert "late" not in held(part) and "late" not in p.entries and state.of(ReshardState).events == 1


@pytest.mark.parametrize("release", ["pacific", "reef"])
def test_a_restart_from_an_older_saved_poll_counts_no_reshard_again(release):
    """The bucket poll's state is saved every few minutes, the reshard count at every derivation:
    after a restart the poll hands out records older than those the count already judged, until
    it reads them again. A reshard seen since the save was counted once going back and once more
    coming forward."""
    p, cluster, clock = setup(5, release=release)
    state = DerivationState(Thresholds())
    derive(Snapshot(taken_at=clock(), buckets=poll(p, cluster, clock)), state)
    saved = p.to_dict()
    cluster.reshard("b00003", 13, new_instance=release == "pacific")
    clock.t += INTERVAL
    derive(Snapshot(taken_at=clock(), buckets=poll(p, cluster, clock, queued=["b00003"])), state)
    assert state.of(ReshardState).events == 1
    restarted = BucketPoll.from_dict(saved)
    durable = json.loads(json.dumps(state.durable()))  # as the producers save it
    state = DerivationState(Thresholds())
    state.restore(durable)
    clock.t += INTERVAL
    part = poll(restarted, cluster, clock, lim=dataclasses.replace(LIM, max_reads=LISTING))  # nothing read
    assert cluster.stats_read == [] and next(b for b in part.buckets if b.key == "b00003").num_shards == 11
    derive(Snapshot(taken_at=clock(), buckets=part), state)
    clock.t += INTERVAL
    part = poll(restarted, cluster, clock, queued=["b00003"])
    derive(Snapshot(taken_at=clock(), buckets=part), state)
    assert "b00003" in cluster.stats_read and state.of(ReshardState).events == 1


def test_the_durable_reshard_table_changes_only_when_a_bucket_does():
    """Each producer saves the durable state when it changes (the module in the monitors'
    config-key store, a write the derivation waits on): polls that read buckets again without a
    change, at new times, must leave it as it was."""
    p, cluster, clock = setup(5)
    state = DerivationState(Thresholds())
    derive(Snapshot(taken_at=clock(), buckets=poll(p, cluster, clock)), state)
    table = json.dumps(state.durable()["reshard"]["buckets"], sort_keys=True)
    for _ in range(3):
        clock.t += INTERVAL
        cluster.set_objects("b00001", cluster.objects("b00001") + 10)  # grown, not resharded
        derive(Snapshot(taken_at=clock(), buckets=poll(p, cluster, clock, queued=["b00001", "b00002"])), state)
        assert "b00001" in cluster.stats_read
        assert json.dumps(state.durable()["reshard"]["buckets"], sort_keys=True) == table
    cluster.reshard("b00002", 13, new_instance=True)
    clock.t += INTERVAL
    derive(Snapshot(taken_at=clock(), buckets=poll(p, cluster, clock, queued=["b00002"])), state)
    assert json.dumps(state.durable()["reshard"]["buckets"], sort_keys=True) != table


class PlainSweep(BucketPoll):
    """The sweep as a plain loop: every held bucket offered to _read, oldest stats first, until
    the budget or the time runs out (what BucketPoll._sweep must equal, read for read)."""

    def _sweep(self, skip, reader, budget, spent, time_left, probe, lim):
        held = sorted((e.bucket.stats_at, k) for k, e in self.entries.items() if e.bucket is not None)
        for _, key in held:
            if key in skip:
                continue
            if budget - spent.total < reader.stats_overhead + 1 or time_left() < 1.0:
                break
            self._read(key, "sweep", reader, budget, spent, time_left, probe, lim)


def sweeps(shards: list[int], budget: int, rounds: int, probing: bool = True, seconds: float = 60.0) -> list:
    """Each poll's stats reads, reads spent and reads by reason, and the state at the end, of the
    sweep and of the plain loop, on buckets of `shards` all held, with `budget` reads a poll.
    `probing`: generation probes on (a reserve kept for one with each read) or off; `seconds`:
    the time a poll starts with, 0.2 s less for each stats read made (the time reserve ends it)."""
    runs = []
    for cls in (BucketPoll, PlainSweep):
        clock = Clock()
        cluster = MemoryBuckets(clock)
        for i, n in enumerate(shards):
            cluster.create(f"b{i:03d}", n, objects=i)
        p = cls()
        poll(p, cluster, clock, dataclasses.replace(LIM, max_reads=10**6))  # every bucket held
        lim = dataclasses.replace(LIM, max_reads=budget, reads_per_second=0.001)
        seen = []
        time_left = functools.partial(lambda made: seconds - 0.2 * len(made), cluster.stats_read)

        for _ in range(rounds):
            clock.t += INTERVAL
            cluster.stats_read.clear()
            part = p.poll(clock(), cluster, lim, frozenset(), time_left, cluster.exists if probing else None)
            assert part.poll is not None
            seen.append((list(cluster.stats_read), part.poll.reads, part.poll.buckets_read_total))
        runs.append((seen, p.to_dict()))
    return runs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shards=st.lists(st.sampled_from([1, 2, 3, 7, 11, 23, 101, 211]), min_size=5, max_size=60),
    budget=st.integers(min_value=LISTING, max_value=LISTING + 400),
    rounds=st.integers(min_value=1, max_value=4),
    probing=st.booleans(),
    seconds=st.sampled_from([60.0, 3.0, 1.5]),
)
def test_the_sweep_passes_over_what_does_not_fit_and_reads_exactly_what_the_plain_loop_reads(
    shards, budget, rounds, probing, seconds
):
    """Buckets of mixed shard counts and a budget too small for most of them, with and without
    generation probes, with time to spare or running out: the sweep skips a bucket too big for the
    reads left without offering it to _read, and must still read the same buckets in the same
    order, spend the same reads and leave the same state."""
    ours, plain = sweeps(shards, budget, rounds, probing, seconds)
    assert ours == plain


def test_a_sweep_with_room_for_only_the_small_buckets_reads_them_past_the_big_ones():
    """The case the skip is for: the oldest buckets too big for what is left, smaller ones behind."""
    for probing in (True, False):
        ours, plain = sweeps([211, 101, 211, 2, 101, 1, 3, 211], LISTING + 40, 2, probing)
        assert ours == plain
        read = [key for reads, _, _ in ours[0] for key in reads]
        assert read and set(read) <= {"b003", "b005", "b006"}, read
    # Time for two reads only: the reserve stops the sweep where the plain loop stops.
    ours, plain = sweeps([1] * 20, LISTING + 400, 1, False, 1.0 + 0.2 * 2 - 0.1)
    assert ours == plain and len(ours[0][0][0]) == 2, ours[0][0]


def may_cross_at_by_the_rule(b, rate: float, lim: PollLimits) -> float:
    """The rule as the docs state it: the first line not yet reached (the warn ratio, then the
    limit) at the growth bound, or the stats' max age, whichever comes first."""
    stale = b.stats_at + lim.max_age
    cap = max(1, b.num_shards) * lim.shard_limit
    growth = lim.growth_bound(rate)
    for ratio in (lim.warn_ratio, 1.0):
        room = ratio * cap - b.num_objects
        if room > 0:
            return min(stale, b.stats_at + room / growth) if growth > 0 else stale
    return stale


@settings(max_examples=500, deadline=None)
@given(
    shards=st.integers(0, 5000),
    objects=st.integers(0, 10**9),
    rate=st.floats(0, 1e6),
    warn=st.floats(0.01, 1.0),
    floor=st.floats(0, 100),
    safety=st.floats(0, 10),
    at=st.floats(0, 2e9),
)
def test_the_growth_bound_gives_the_rules_time_exactly(shards, objects, rate, warn, floor, safety, at):
    lim = PollLimits(100.0, 15_000, floor, safety, 86_400.0, warn, 100_000)
    b = dataclasses.replace(Bucket("b", "", "i", shards, objects), stats_at=at)
    assert may_cross_at(b, rate, lim) == may_cross_at_by_the_rule(b, rate, lim)


class FreshBounds(BucketPoll):
    """Every bucket's bound worked out again each poll (what the entries' cached cross_at must
    equal, read for read)."""

    def _must_read(self, now, lim):
        for e in self.entries.values():
            e.cross_of = None  # no bound kept: each is worked out afresh
        return super()._must_read(now, lim)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), budget=st.sampled_from([200, 600, 3_000]))
def test_the_bounds_kept_between_polls_read_exactly_what_bounds_worked_out_afresh_read(seed, budget):
    """Buckets at every fill, a few growing, resharded, deleted, queued, new ones; the limits
    changing (warn ratio, per-shard limit, growth floor) and a restart from the saved state on the
    way: each poll reads the same buckets in the same order, for the same reasons, as a poll that
    works every bound out again, and both end in the same state."""
    runs = []
    for cls in (BucketPoll, FreshBounds):
        rnd = random.Random(seed)
        lim = dataclasses.replace(LIM, max_reads=budget, reads_per_second=budget / INTERVAL)
        _, cluster, clock = setup()
        p = cls()
        for i in range(80):
            shards = rnd.choice([1, 3, 11, 64])
            cluster.create(f"b{i:03d}", shards, rnd.randrange(0, shards * lim.shard_limit))
        seen = []
        for step in range(25):
            for key in sorted(cluster.buckets):
                if rnd.random() < 0.1:
                    cluster.set_objects(key, cluster.objects(key) + rnd.randrange(0, 300))
            roll = rnd.random()
            keys = sorted(cluster.buckets)
            if roll < 0.1 and keys:
                cluster.reshard(rnd.choice(keys), rnd.choice([13, 29]), new_instance=rnd.random() < 0.5)
            elif roll < 0.15 and keys:
                cluster.delete(rnd.choice(keys))
            elif roll < 0.25:
                cluster.create(f"new{step}", 11, 0)
            elif roll < 0.45:
                lim = dataclasses.replace(
                    lim,
                    warn_ratio=rnd.choice([0.3, 0.8]),
                    shard_limit=rnd.choice([500, 1000]),
                    growth_floor=rnd.choice([0.5, 5.0]),
                )
            elif roll < 0.5:
                restored = cls.from_dict(json.loads(json.dumps(p.to_dict())))
                restored.tokens = p.tokens
                p = restored
            queued = frozenset(k for k in keys if rnd.random() < 0.03)
            clock.t += rnd.uniform(10.0, 3 * INTERVAL)
            part = poll(p, cluster, clock, lim=lim, queued=queued)
            seen.append((list(cluster.stats_read), part.poll.reads, part.poll.buckets_read_total, part.poll.overdue))
        runs.append((seen, p.to_dict()))
    assert runs[0] == runs[1]
    assert any(reads for reads, *_ in runs[0][0][1:])  # polls after the first read buckets
