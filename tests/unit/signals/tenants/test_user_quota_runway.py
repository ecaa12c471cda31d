"""The tenants' user quotas: read by the real bucket poll at most once per owner per
`rgw_bucket_stats_max_age_seconds` within its read budget, at study scale (100,000 buckets over
2,000 tenants), and judged as the bucket quotas are."""

from __future__ import annotations

import dataclasses

import pytest

from ceph_scale.core.bucket_poll import BucketPoll
from ceph_scale.core.bucket_poll_limits import PollLimits
from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.judging import Judged
from ceph_scale.core.signals.results import SignalResults
from ceph_scale.core.signals.signal_input import SignalInput
from ceph_scale.core.signals.tenants import derive as tenants
from ceph_scale.core.signals.tenants.check import check_tenant_quota_runway
from ceph_scale.core.signals.tenants.status import SECTION
from ceph_scale.core.snapshot import Snapshot
from ceph_scale.core.user_quotas import QUOTA_SHARE
from ceph_scale.io.admin_ops import USER_QUOTA_READS
from tests.unit.bucket_reader import Clock, MemoryBuckets
from tests.unit.signals.derived import samples
from tests.unit.signals.tenants.test_tenants import EVERYTHING, TH, skewed_cluster

HOUR, DAY = 3600.0, 86400.0
RUNWAY = "ceph_scale_rgw_tenant_quota_runway_seconds"
FIT = Thresholds.from_mapping({"forecast_min_span_seconds": 3600, "plan_max_extrapolation": 1000})


def owners(cluster: MemoryBuckets) -> set[str]:
    return {b["owner"] for b in cluster.buckets.values()}


def test_at_study_scale_each_owner_is_read_once_per_max_age_within_the_budget():
    cluster, clock = skewed_cluster(100_000, 2_000)
    tenants_ = owners(cluster)
    assert 1_000 < len(tenants_) <= 2_000
    p = BucketPoll()
    p.poll(clock(), cluster, EVERYTHING, frozenset(), lambda: 60.0, cluster.exists)
    # The quotas come after the reads that keep the poll's guarantee and before the buckets never
    # read: at a first start no owner is known yet.
    assert cluster.quota_read == []
    lim = PollLimits.of(TH, 100_000)

    def polls(n: int) -> int:
        """n polls 120 s apart at the default budget; the most quotas one of them read."""
        most = 0
        for _ in range(n):
            clock.t += 120.0
            before = len(cluster.quota_read)
            part = p.poll(clock(), cluster, lim, frozenset(), lambda: 60.0, cluster.exists)
            assert part.poll is not None and part.poll.reads <= part.poll.budget
            this_poll = len(cluster.quota_read) - before
            assert this_poll * USER_QUOTA_READS <= QUOTA_SHARE * part.poll.budget  # their share at most
            most = max(most, this_poll)
        return most

    # Every owner once, over a few polls (a read the budget refuses waits for the next poll),
    # charged to the poll's budget as its other reads.
    first_read = clock.t + 120.0
    assert 1 < polls(5) < len(tenants_)
    assert sorted(cluster.quota_read) == sorted(tenants_)
    assert p.reads_total["quota"] == USER_QUOTA_READS * len(tenants_)
    cluster.quota_read.clear()
    polls(10)  # then not one more read until an owner's quota is max_age old
    assert cluster.quota_read == []
    # Just before the owners' quotas are a day old, every bucket read again (as the sweep keeps
    # them): the polls' must-reads then leave the budget to the quotas and the sweep.
    clock.t = first_read + TH.rgw_bucket_stats_max_age_seconds - 1.0
    p.poll(clock(), cluster, EVERYTHING, frozenset(), lambda: 60.0, cluster.exists)
    assert cluster.quota_read == []
    polls(10)
    assert sorted(cluster.quota_read) == sorted(tenants_)  # each once more, a day after
    assert p.reads_total["quota"] == 2 * USER_QUOTA_READS * len(tenants_)
    # A restart goes on from the saved read times.
    restored = BucketPoll.from_dict(p.to_dict())
    cluster.quota_read.clear()
    restored.poll(clock(), cluster, EVERYTHING, frozenset(), lambda: 60.0, cluster.exists)
    assert cluster.quota_read == []  # none due: the saved read times hold


def grow(user_quota: tuple[int, int] | None, bucket_quota: int = -1, hours: int = 4, stale: bool = False):
    """One tenant, acme$ops, of two buckets growing 1,000 objects (4 MB) an hour, polled hourly
    by the real poll, derived and judged; `stale`: its user quota unread for three days."""
    clock = Clock()
    cluster = MemoryBuckets(clock, "reef")
    for key in ("acme/logs", "acme/img"):
        cluster.create(key, 11, 1000, owner="acme$ops")
        if bucket_quota >= 0:
            cluster.set_quota(key, max_objects=bucket_quota)
    if user_quota is not None:
        cluster.set_user_quota("acme$ops", *user_quota)
    p, state = BucketPoll(), tenants.TenantsState()
    start = clock.t
    for hour in range(hours):
        clock.t = start + hour * HOUR
        cluster.set_objects("acme/logs", 1000 + 1000 * hour)
        part = p.poll(clock(), cluster, EVERYTHING, frozenset(), lambda: 60.0, cluster.exists)
        if stale:
            part = dataclasses.replace(part, user_quotas=tuple(dataclasses.replace(q, read_at=start - 3 * DAY)
                                                               for q in part.user_quotas))  # fmt: skip
        given = SignalInput(Snapshot(taken_at=clock(), buckets=part), FIT, 100_000)
        families = tenants.derive(given, state)
    assert len(cluster.quota_read) == 1  # once in four hours: the max age is a day
    check = check_tenant_quota_runway(state.summary, FIT, CheckOptions())
    status = SECTION.build(Judged(SignalResults(state.summary), FIT, CheckOptions()), {}, 5)
    return families, check, status


def key(quota: str, bounded: str = "false"):
    return (("tenant", "acme"), ("user", "ops"), ("quota", quota), ("bounded", bounded))


def test_a_tenant_with_a_user_quota_and_no_bucket_quota_gets_a_runway():
    # 5,000 objects now (4,000 + 1,000), growing 1,000/h; the user quota at 10,000: 5 hours.
    families, check, status = grow((-1, 10_000))
    assert samples(families, RUNWAY) == {key("user_objects"): pytest.approx(5 * HOUR)}
    quota = samples(families, "ceph_scale_rgw_tenant_quota")
    assert quota == {(("tenant", "acme"), ("user", "ops"), ("quota", "user_objects")): 10_000}
    assert check is not None and check["severity"] == "error"
    assert check["detail"] == ["acme$ops: user_objects quota in 5.0 h (at least 5.0 h)"]
    runways = status["lines"].index("quota runways under 30 days, soonest first:")
    assert status["lines"][runways + 1] == "  acme$ops: user_objects quota in 5.0 h (at least 5.0 h)"


def test_per_kind_the_tighter_quota_is_exposed_so_the_series_stay_as_many():
    # Bucket quotas of 3,000 each (6,000 summed) against a user quota of 10,000: the buckets' binds.
    families, _, _ = grow((-1, 10_000), bucket_quota=3_000)
    assert set(samples(families, RUNWAY)) == {key("objects")}
    # A user quota under the buckets' sum: the user's, in the same one series.
    families, _, _ = grow((-1, 5_500), bucket_quota=3_000)
    assert set(samples(families, RUNWAY)) == {key("user_objects")}
    assert samples(families, RUNWAY)[key("user_objects")] == pytest.approx(HOUR / 2)


def test_quiet_without_a_user_quota_far_from_one_or_with_it_read_too_long_ago():
    families, check, _ = grow(None)
    assert not samples(families, RUNWAY) and check is None
    families, check, _ = grow((-1, -1))  # set and enabled, but unlimited: none
    assert not samples(families, RUNWAY) and check is None
    families, check, _ = grow((-1, 10**8))  # 100,000 hours away: not within a week
    assert check is None and samples(families, RUNWAY)
    families, check, _ = grow((-1, 10_000), stale=True)  # exposed, but not judged
    assert samples(families, RUNWAY) and check is None
