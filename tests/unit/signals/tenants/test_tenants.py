"""Usage per tenant and per bucket (signals/tenants) at study scale, through the real bucket poll."""

from __future__ import annotations

import math
import random

import pytest

from ceph_scale.core.bucket_poll import BucketPoll
from ceph_scale.core.bucket_poll_limits import PollLimits
from ceph_scale.core.config import ConfigError, Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.signal_input import SignalInput
from ceph_scale.core.signals.tenants import derive as tenants
from ceph_scale.core.signals.tenants.derive import series_budget, usage_family
from ceph_scale.core.snapshot import Bucket, BucketsPart, Snapshot, UserQuota
from tests.unit.bucket_reader import Clock, MemoryBuckets
from tests.unit.signals.derived import samples

# A budget that reads every bucket in one poll: the sums are then over every bucket.
EVERYTHING = PollLimits(reads_per_second=1e9, max_reads=10**8, growth_floor=1.0, growth_safety=2.0,
                        max_age=86_400.0, warn_ratio=0.8, shard_limit=100_000)  # fmt: skip
TH = Thresholds()


def skewed_cluster(buckets: int, tenants_: int, seed: int = 7) -> tuple[MemoryBuckets, Clock]:
    """A few tenants own most buckets (owner index ~ u^3), bucket sizes log-normal."""
    rng = random.Random(seed)
    clock = Clock()
    cluster = MemoryBuckets(clock, "reef")
    for i in range(buckets):
        owner = int(tenants_ * rng.random() ** 3)
        objects = int(rng.lognormvariate(8, 2.5))
        tenant = "acme" if owner % 7 == 0 else ""
        key = f"{tenant}/b{i:06d}" if tenant else f"b{i:06d}"
        cluster.create(key, 11, objects, owner=f"{tenant}$u{owner}" if tenant else f"u{owner}",
                       size=objects * rng.choice((4096, 65_536, 1 << 20)))  # fmt: skip
    return cluster, clock


def read_counts(p: BucketPoll, cluster: MemoryBuckets) -> tuple:
    return (dict(p.reads_total), len(cluster.stats_read), len(cluster.meta_read), cluster.probes, cluster.listings)


def usage_series(families) -> int:
    return sum(len(f.samples) for f in families if usage_family(f.name))


def values(families, name) -> dict:
    return samples(families, name) or {}


def poll_and_derive(buckets: int, tenants_: int):
    cluster, clock = skewed_cluster(buckets, tenants_)
    p = BucketPoll()
    part = p.poll(clock(), cluster, EVERYTHING, frozenset(), lambda: 60.0, cluster.exists)
    before = read_counts(p, cluster)
    state = DerivationState(TH)
    families = derive(Snapshot(taken_at=clock(), buckets=part), state, TH)
    assert read_counts(p, cluster) == before  # the derivation reads nothing
    return cluster, part, families, state.signals["tenants"].summary


@pytest.fixture(scope="module")
def study():
    return poll_and_derive(100_000, 2_000)


def test_the_sums_over_tenants_and_over_buckets_are_the_clusters_exactly(study):
    cluster, part, families, _ = study
    assert len(part.buckets) == 100_000 and not part.unread
    total_bytes = sum(b["usage"]["rgw.main"]["size_actual"] for b in cluster.buckets.values() if b["usage"])
    total_objects = sum(cluster.objects(k) for k in cluster.buckets)
    for name, total in (
        ("ceph_scale_rgw_tenant_bytes", total_bytes),
        ("ceph_scale_rgw_tenant_objects", total_objects),
        ("ceph_scale_rgw_tenant_buckets", 100_000),
        ("ceph_scale_rgw_bucket_usage_bytes", total_bytes),
        ("ceph_scale_rgw_bucket_usage_objects", total_objects),
    ):
        assert sum(values(families, name).values()) == total, name
    owners = {b["owner"] for b in cluster.buckets.values()}
    assert values(families, "ceph_scale_rgw_tenants") == {(): len(owners)}
    # The tenants past the cap are one series: exactly the total less the exposed tenants.
    assert values(families, "ceph_scale_rgw_tenants_summed") == {(): len(owners) - TH.rgw_tenant_series}
    tenant_bytes = values(families, "ceph_scale_rgw_tenant_bytes")
    others = tenant_bytes.pop((("tenant", ""), ("user", "(others)")))
    assert len(tenant_bytes) == TH.rgw_tenant_series
    assert others == total_bytes - sum(tenant_bytes.values())
    # The exposed tenants are the largest, labelled as RGW's per-user counters label them.
    by_owner: dict[tuple[str, str], int] = {}
    for b in cluster.buckets.values():
        tenant, _, user = b["owner"].rpartition("$")
        by_owner[(tenant, user)] = (
            by_owner.get((tenant, user), 0)
            + (b["usage"] or {"rgw.main": {"size_actual": 0}})["rgw.main"]["size_actual"]
        )
    largest = sorted(by_owner.items(), key=lambda kv: -kv[1])[: TH.rgw_tenant_series]
    assert {(("tenant", t), ("user", u)): v for (t, u), v in largest} == tenant_bytes


def test_the_buckets_past_the_advised_objects_are_counted_and_the_largest_named(study):
    cluster, _, families, summary = study
    past = sorted(((cluster.objects(k), k) for k in cluster.buckets if cluster.objects(k) > 100_000), reverse=True)
    assert past, "the skewed sizes put some buckets past 100 K objects"
    assert values(families, "ceph_scale_rgw_buckets_past_objects_advised") == {(): len(past)}
    named = values(families, "ceph_scale_rgw_bucket_past_objects_advised_objects")
    assert sorted(named.values(), reverse=True) == [n for n, _ in past[: TH.rgw_bucket_usage_top]]
    # What `ceph scale status` and the health checks read: the same, by bucket key.
    assert summary.past_advised == len(past)
    assert [(k, n) for n, k in past[: TH.rgw_bucket_usage_top]] == list(summary.past_advised_top)


def test_the_series_count_does_not_grow_with_buckets_or_tenants(study):
    _, _, families, _ = study
    _, _, tenth, _ = poll_and_derive(10_000, 200)
    assert usage_series(families) == usage_series(tenth) <= series_budget(TH)
    th = Thresholds.from_mapping({"rgw_tenant_series": 5, "rgw_bucket_usage_top": 3})
    assert series_budget(th) == 13 * 5 + 4 * 3 + 10 + 2 + 5  # its families, its signal's 2, its 5 options


def test_not_one_read_beyond_todays_poll():
    """The same cluster polled with the usage signal and without it: the same reads, each bucket once."""
    counts = []
    for with_usage in (False, True):
        cluster, clock = skewed_cluster(3_000, 100, seed=3)
        p = BucketPoll()
        for _ in range(3):
            part = p.poll(clock(), cluster, EVERYTHING, frozenset(), lambda: 60.0, cluster.exists)
            if with_usage:
                derive(Snapshot(taken_at=clock(), buckets=part), DerivationState(TH), TH)
            clock.t += 120.0
        counts.append(read_counts(p, cluster))
    assert counts[0] == counts[1]
    assert counts[1][0]["stats"] > 0


def test_each_tenants_age_is_that_of_the_oldest_read_of_its_buckets():
    """A budget of one bucket's stats a poll: the sweep reads the oldest first, so the tenants'
    figures age differently, as the reads left them."""
    clock = Clock()
    cluster = MemoryBuckets(clock, "pacific")
    for key, owner in (("a1", "alice"), ("a2", "alice"), ("b1", "bob"), ("b2", "bob")):
        cluster.create(key, 11, 10, owner=owner)
    p = BucketPoll()
    lim = PollLimits(1e9, 10**6, 1.0, 2.0, 86_400.0, 0.8, 100_000)
    p.poll(clock(), cluster, lim, frozenset(), lambda: 60.0, None)
    t0 = clock()
    one = PollLimits(1.0, 24 + 16 + 5, 0.0, 1.0, 86_400.0, 0.8, 100_000)  # the listing and one bucket's stats
    state = tenants.TenantsState()
    for step in (1, 2):
        clock.t = t0 + 120.0 * step
        cluster.stats_read.clear()
        part = p.poll(clock(), cluster, one, frozenset(), lambda: 60.0, None)
        assert cluster.stats_read == [("a1", "a2")[step - 1]]
        families = tenants.derive(SignalInput(Snapshot(taken_at=clock(), buckets=part), TH, 100_000), state)
    ages = values(families, "ceph_scale_rgw_tenant_stats_age_seconds")
    assert ages == {(("tenant", ""), ("user", "alice")): 120.0, (("tenant", ""), ("user", "bob")): 240.0}


def grown(t: float, objects: int, quota_objects: int, owner: str = "q") -> BucketsPart:
    return BucketsPart(t, (Bucket("b", "", "id", 11, objects, owner, size_bytes=objects * 100, stats_at=t,
                                  quota_objects=quota_objects, quota_bytes=-1),))  # fmt: skip


def run(points: list[tuple[float, int]], quota: int, th: Thresholds):
    state = tenants.TenantsState()
    families: list = []
    for t, objects in points:
        part = grown(t, objects, quota)
        families = tenants.derive(SignalInput(Snapshot(taken_at=t, buckets=part), th, 100_000), state)
    return families


RUNWAY = "ceph_scale_rgw_tenant_quota_runway_seconds"
Q = (("tenant", ""), ("user", "q"), ("quota", "objects"))


def test_a_runway_needs_a_fitted_history_and_is_held_to_what_the_history_supports():
    th = Thresholds.from_mapping({"forecast_min_span_seconds": 3600, "plan_max_extrapolation": 30})
    hour = 3600.0
    # Growing 1 object/s, 10,000 from the quota: 10,000 s, within 30 x the 3 h history.
    steady = [(hour * i, 1000 + int(hour) * i) for i in range(4)]
    fams = run(steady, 1000 + 3 * int(hour) + 10_000, th)
    assert values(fams, RUNWAY) == {(*Q, ("bounded", "false")): pytest.approx(10_000)}
    assert values(fams, "ceph_scale_rgw_tenant_quota") == {Q: 21_800}
    # The same growth 10^7 objects from the quota: 10^7 s is far past 30 x 3 h; held there and said so.
    fams = run(steady, 1000 + 3 * int(hour) + 10**7, th)
    assert values(fams, RUNWAY) == {(*Q, ("bounded", "true")): 30 * 3 * hour}
    lower = values(fams, "ceph_scale_rgw_tenant_quota_runway_lower_seconds")
    assert list(lower.values())[0] <= 30 * 3 * hour
    # Less history than forecast_min_span_seconds: no growth, no runway, and the span says why.
    short = [(600.0 * i, 1000 + 600 * i) for i in range(4)]
    fams = run(short, 10**6, th)
    assert values(fams, RUNWAY) == {}
    assert values(fams, "ceph_scale_rgw_tenant_growth_objects_per_second") == {}
    assert values(fams, "ceph_scale_rgw_tenant_growth_span_seconds") == {(("tenant", ""), ("user", "q")): 1800.0}
    # At the quota: none left. Not growing: never.
    assert list(values(run(steady, 1000, th), RUNWAY).values()) == [0.0]
    flat = [(hour * i, 5000) for i in range(4)]
    assert list(values(run(flat, 10**6, th), RUNWAY).values()) == [math.inf]


def test_a_tenant_with_a_bucket_without_quota_has_no_quota():
    t = 1000.0
    part = BucketsPart(t, (Bucket("a", "", "1", 1, 5, "q", size_bytes=5, quota_objects=10),
                           Bucket("b", "", "2", 1, 5, "q", size_bytes=5)))  # fmt: skip
    fams = tenants.derive(SignalInput(Snapshot(taken_at=t, buckets=part), TH, 100_000), tenants.TenantsState())
    assert values(fams, "ceph_scale_rgw_tenant_quota") == {}


def test_the_growth_of_buckets_sums_exactly_and_the_history_survives_a_restart():
    th = Thresholds.from_mapping({"rgw_bucket_usage_top": 1, "rgw_growth_window_seconds": 600})
    state = tenants.TenantsState()
    fams: list = []
    for t, grow in ((0.0, 0), (300.0, 1), (600.0, 2)):
        sizes = [1000 + grow * 300 * i for i in range(4)]
        part = BucketsPart(t, tuple(Bucket(f"b{i}", "", str(i), 1, 10, "q", size_bytes=n, stats_at=t)
                                    for i, n in enumerate(sizes)))  # fmt: skip
        fams = tenants.derive(SignalInput(Snapshot(taken_at=t, buckets=part), th, 100_000), state)
    growth = values(fams, "ceph_scale_rgw_bucket_usage_growth_bytes_per_second")
    assert growth == {(("tenant", ""), ("bucket", "b3"), ("user", "q")): 3.0,
                      (("tenant", ""), ("bucket", "(others)"), ("user", "")): 1.0 + 2.0}  # fmt: skip
    restored = tenants.TenantsState.from_dict(state.to_dict())
    assert restored.trends["q"].points == state.trends["q"].points


@pytest.mark.parametrize("name, bad", [("rgw_tenant_series", -1), ("rgw_bucket_usage_top", 1.5),
                                       ("rgw_tenant_series", "many")])  # fmt: skip
def test_a_bad_option_is_one_line_naming_it(name, bad):
    with pytest.raises(ConfigError) as e:
        Thresholds.from_mapping({name: bad})
    assert str(e.value).startswith(name) and "\n" not in str(e.value)


def test_bucket_quotas_read_by_the_poll_bound_their_tenant():
    clock = Clock()
    cluster = MemoryBuckets(clock, "tentacle")
    for i, owner in enumerate(("acme$ops", "acme$ops", "bob")):
        cluster.create(f"b{i}", 11, 100 * (i + 1), owner=owner)
    cluster.set_quota("b0", max_size=10**9)
    cluster.set_quota("b1", max_size=2 * 10**9, max_objects=5000)
    cluster.set_quota("b2", max_objects=7)  # bob's only bucket: bounded by objects, not bytes
    part = BucketPoll().poll(clock(), cluster, EVERYTHING, frozenset(), lambda: 60.0, None)
    fams = tenants.derive(SignalInput(Snapshot(taken_at=clock(), buckets=part), TH, 100_000), tenants.TenantsState())
    assert values(fams, "ceph_scale_rgw_tenant_quota") == {
        (("tenant", "acme"), ("user", "ops"), ("quota", "bytes")): 3 * 10**9,
        (("tenant", ""), ("user", "bob"), ("quota", "objects")): 7,
    }


def test_the_same_poll_derived_again_gives_the_same_figures_without_summing_again():
    t = 1000.0
    part = BucketsPart(t, (Bucket("a", "", "1", 1, 5, "q", size_bytes=5),))
    given = SignalInput(Snapshot(taken_at=t, buckets=part), TH, 100_000)
    state = tenants.TenantsState()
    first = tenants.derive(given, state)
    first[0].samples.clear()  # a reader's change to what it was given stays its own
    again = tenants.derive(SignalInput(Snapshot(taken_at=t + 15, buckets=part), TH, 100_000), state)
    assert values(again, "ceph_scale_rgw_tenant_bytes") == {(("tenant", ""), ("user", "q")): 5.0}
    assert values(again, "ceph_scale_rgw_tenants") == {(): 1.0}
    assert state.summary is not None and state.summary.buckets == 1


def test_at_full_load_the_usage_series_fill_the_declared_budget_and_no_more():
    """Every family at its most, at the defaults: more owners than rgw_tenant_series, every tenant
    with a bucket and a user quota of both kinds and growing (so its runways and their lower
    bounds), more growing buckets and buckets past the advised objects than rgw_bucket_usage_top.
    Counted as the benchmark counts (its families, its signal's two series, its options')."""
    owners, per_owner, hour = 3 * TH.rgw_tenant_series, 4, 3600.0
    state = DerivationState(TH)
    families: list = []
    for step in range(4):  # three hours of history: past forecast_min_span_seconds (1 h)
        t = 1_000_000.0 + step * hour
        buckets = tuple(
            Bucket(f"b{o}-{i}", f"t{o % 3}" if o % 2 else "", f"id{o}-{i}", 11,
                   TH.rgw_bucket_objects_advised + 1000 * (o + 1) * (step + 1) + i,
                   f"t{o % 3}$u{o}" if o % 2 else f"u{o}", size_bytes=65_536 * (o + 1) * (step + 1) * (i + 1),
                   stats_at=t - 60 * i, quota_bytes=10**15, quota_objects=10**9)
            for o in range(owners)
            for i in range(per_owner)
        )  # fmt: skip
        user_quotas = tuple(UserQuota(f"t{o % 3}$u{o}" if o % 2 else f"u{o}", 10**14, 10**8, t) for o in range(owners))
        part = BucketsPart(t, buckets, user_quotas=user_quotas)
        families = derive(Snapshot(taken_at=t, buckets=part), state, TH)
    count = tenants.usage_series(families)
    assert count == series_budget(TH) == 317, count
    # Each part of the budget at its most: 13 series for each exposed tenant, and its others' row.
    assert len(values(families, "ceph_scale_rgw_tenant_quota_runway_lower_seconds")) == 2 * TH.rgw_tenant_series
    growth = values(families, "ceph_scale_rgw_bucket_usage_growth_bytes_per_second")
    assert len(growth) == TH.rgw_bucket_usage_top + 1
    assert len(values(families, "ceph_scale_rgw_bucket_past_objects_advised_objects")) == TH.rgw_bucket_usage_top
