"""What watching the study's 100,000 buckets costs and whether the watch keeps up, through the real
bucket poll and derivation: the bucket_watch signal's families and its typed result."""

from __future__ import annotations

from ceph_scale.core.bucket_poll import BucketPoll
from ceph_scale.core.bucket_poll_limits import PollLimits
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.bucket_watch.result import BucketPollResult
from ceph_scale.core.snapshot import Snapshot
from tests.unit.bucket_reader import Clock, MemoryBuckets
from tests.unit.signals.derived import samples

TH = Thresholds()
BUCKETS = 100_000
# The 10B study's budget: 1 % of its 17,800 PUT/s in RADOS reads, a poll's reads held to a burst.
BUDGET = PollLimits(reads_per_second=178.0, max_reads=20_000, growth_floor=1.0, growth_safety=2.0,
                    max_age=86_400.0, warn_ratio=0.8, shard_limit=100_000)  # fmt: skip
# A budget that reads the 100,000 buckets (about 20 reads each) in a few polls a minute apart.
SWEEP = PollLimits(reads_per_second=800_000 / 60, max_reads=800_000, growth_floor=1.0, growth_safety=2.0,
                   max_age=86_400.0, warn_ratio=0.8, shard_limit=100_000)  # fmt: skip


def cluster() -> tuple[MemoryBuckets, Clock]:
    clock = Clock()
    buckets = MemoryBuckets(clock)
    for i in range(BUCKETS):
        buckets.create(f"b{i:06d}", objects=1_000 + i % 5_000)
    return buckets, clock


def judged(poll: BucketPoll, buckets: MemoryBuckets, clock: Clock, state: DerivationState, lim: PollLimits = BUDGET):
    part = poll.poll(clock(), buckets, lim, frozenset(), lambda: 60.0, buckets.exists)
    families = derive(Snapshot(taken_at=clock(), buckets=part), state, TH)
    result = state.results.get(BucketPollResult)
    assert result is not None
    return part, families, result


def value(families, name: str) -> float:
    found = samples(families, name)
    assert found is not None, name
    (v,) = found.values()
    return v


def test_a_first_start_at_100000_buckets_spends_its_budget_and_says_what_it_has_not_read():
    buckets, clock = cluster()
    state = DerivationState(TH)
    part, families, result = judged(BucketPoll(), buckets, clock, state)
    read = len(buckets.stats_read)
    assert 0 < read < BUCKETS  # the budget cannot read 100,000 buckets at once
    assert result.last_reads <= result.budget_reads == BUDGET.max_reads
    assert result.unread == BUCKETS - read == value(families, "ceph_scale_rgw_bucket_stats_unread")
    # A bucket never read is a first start's backlog, not a promise broken.
    assert result.overdue == 0 == value(families, "ceph_scale_rgw_bucket_stats_overdue")
    assert value(families, "ceph_scale_rgw_bucket_poll_last_reads") == result.last_reads
    assert value(families, "ceph_scale_rgw_bucket_poll_budget_reads") == result.budget_reads
    assert sum(samples(families, "ceph_scale_rgw_bucket_stats_reads").values()) == read


def test_the_sweep_reads_every_bucket_within_its_budget_and_then_its_oldest_read_ages():
    buckets, clock = cluster()
    state, poll = DerivationState(TH), BucketPoll()
    polls = 0
    while True:
        part, families, result = judged(poll, buckets, clock, state, SWEEP)
        polls += 1
        assert result.last_reads <= result.budget_reads
        if not result.unread:
            break
        clock.t += 60
        assert polls < 10, "the sweep never finished"
    assert polls > 1  # 100,000 buckets take more than one poll of this budget
    assert len(set(buckets.stats_read)) == BUCKETS
    clock.t += 600  # ten minutes on, the same stats served again (a poll that could read nothing)
    families = derive(Snapshot(taken_at=clock(), buckets=part), state, TH)
    age = value(families, "ceph_scale_rgw_bucket_stats_oldest_age_seconds")
    oldest = min(b.stats_at for b in part.buckets)
    assert age == clock() - oldest >= 600
    assert state.results.get(BucketPollResult).oldest_stats_age_seconds == age


def test_a_bucket_that_must_be_read_and_cannot_be_is_overdue():
    buckets, clock = cluster()
    state, poll = DerivationState(TH), BucketPoll()
    while judged(poll, buckets, clock, state, SWEEP)[2].unread:
        clock.t += 60
    # Every bucket resharded at once (new instance ids) with the poll's budget spent: each must be
    # read again, and most cannot be this poll.
    for i in range(BUCKETS):
        buckets.reshard(f"b{i:06d}", 23, new_instance=True)
    poll.tokens = 0.0
    clock.t += 1
    _, families, result = judged(poll, buckets, clock, state, SWEEP)
    assert result.overdue > BUCKETS / 2
    assert value(families, "ceph_scale_rgw_bucket_stats_overdue") == result.overdue


def test_no_bucket_poll_no_families_and_no_result():
    state = DerivationState(TH)
    families = derive(Snapshot(taken_at=1.0), state, TH)
    assert samples(families, "ceph_scale_rgw_bucket_poll_last_reads") is None
    assert state.results.get(BucketPollResult) is None
