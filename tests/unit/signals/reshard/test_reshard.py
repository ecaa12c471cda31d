"""The reshard signal (core/signals/reshard/derive.py): reshards counted once, the recommended shards,
and the buckets expected to reshard next [000]."""

from __future__ import annotations

import dataclasses

import pytest

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.reshard.derive import ReshardState, next_prime, recommended_shards
from ceph_scale.core.snapshot import BucketsPart, Snapshot
from tests.unit.signals.derived import samples
from tests.unit.signals.parts import bucket


def test_reshard_counted_once_per_new_instance_and_not_for_recreated_buckets():
    s = ReshardState()
    s.observe(1, (bucket("a", "id1", 1, 10, "ma"), bucket("b", "id2", 1, 10, "mb")))
    assert s.events == 0
    s.observe(2, (bucket("a", "id3", 7, 120, "ma"), bucket("b", "id2", 1, 10, "mb")))
    assert s.events == 1
    s.observe(2, (bucket("a", "id4", 11, 120, "ma"),))  # same collection time: ignored
    assert s.events == 1
    s.observe(3, (bucket("a", "id3", 7, 130, "ma"), bucket("b", "id9", 11, 0, "mb-new")))  # b re-created
    assert s.events == 1


def test_a_bucket_missing_from_one_poll_is_not_counted_again_when_it_is_back():
    """Pacific swaps a resharded bucket's instance under a stats read, which may answer "no such
    bucket" for a moment: the poll drops it, the next lists it again. Seen in a full run as a
    reshard counted twice (a bucket first seen already resharded)."""
    made = "2026-11-26T09:23:00.000000Z"  # after the watch began: its earlier reshards are ours
    s = ReshardState()
    s.observe(1_700_000_000, (bucket("other", "o1", 11, 0, "o1"),))
    u = dataclasses.replace(bucket("u", "u2", 7, 0, "u1"), created=made)
    s.watch_start = 0.0  # the bucket's creation stamp is after the watch began
    s.observe(1_700_000_010, (bucket("other", "o1", 11, 0, "o1"), u))
    first = s.events
    s.observe(1_700_000_020, (bucket("other", "o1", 11, 0, "o1"),))  # its stats read found it gone
    s.observe(1_700_000_030, (bucket("other", "o1", 11, 0, "o1"), u))
    assert s.events == first
    # Resharded while it was missing: counted once, as any reshard.
    s.observe(1_700_000_040, (bucket("other", "o1", 11, 0, "o1"),))
    s.observe(1_700_000_050, (bucket("other", "o1", 11, 0, "o1"), dataclasses.replace(u, bucket_id="u3", num_shards=3)))
    assert s.events == first + 1
    # Missing from one poll, then listed and not yet read, then read: still the same bucket.
    back = dataclasses.replace(u, bucket_id="u3", num_shards=3)
    s.observe(1_700_000_060, (bucket("other", "o1", 11, 0, "o1"),))
    s.observe(1_700_000_070, (bucket("other", "o1", 11, 0, "o1"),), unread=frozenset({"u"}))
    s.observe(1_700_000_080, (bucket("other", "o1", 11, 0, "o1"), back))
    assert s.events == first + 1


def test_reshard_during_a_restart_is_counted_exactly_once():
    before = ReshardState()
    before.observe(1, (bucket("a", "id1", 1, 10, "ma"),))
    saved = before.to_dict()
    import json

    after = ReshardState.from_dict(json.loads(json.dumps(saved)))
    after.observe(5, (bucket("a", "id2", 3, 200, "ma"),))
    after.observe(6, (bucket("a", "id2", 3, 210, "ma"),))
    assert after.events == 1


def test_a_reshard_seen_by_its_shard_count_alone_counts_the_bucket_as_resharded_across_a_restart():
    """Reef without the index pool's read: a reshard keeps the instance id (= the marker) and no
    generation is read; the shard count's change is the reshard, and the bucket is among those
    resharded from then on, as Pacific's new instance and Tentacle's generation make it."""
    import json

    s = ReshardState()
    s.observe(1, (bucket("a", "ma", 11, 10, "ma"), bucket("b", "mb", 11, 10, "mb")))
    s.observe(2, (bucket("a", "ma", 23, 10, "ma"), bucket("b", "mb", 11, 10, "mb")))
    assert (s.events, s.resharded_buckets()) == (1, 1)
    after = ReshardState.from_dict(json.loads(json.dumps(s.to_dict())))
    after.observe(3, (bucket("a", "ma", 23, 12, "ma"), bucket("b", "mb", 11, 10, "mb")))
    assert (after.events, after.resharded_buckets()) == (1, 1)
    after.observe(4, (bucket("a", "ma", 47, 12, "ma"), bucket("b", "mb", 11, 10, "mb")))
    assert (after.events, after.resharded_buckets()) == (2, 1)
    # A generation read later (the cap granted) counts nothing again: the one before is unknown.
    gen = dataclasses.replace(bucket("a", "ma", 47, 12, "ma"), index_gen=2)
    after.observe(5, (gen, bucket("b", "mb", 11, 10, "mb")))
    assert (after.events, after.resharded_buckets()) == (2, 1)


def test_recommended_shards_keep_the_target_fill_and_are_prime():
    assert next_prime(8) == 11
    # 30 M objects at 50 % of 100 K per shard: 600 shards -> next prime 601 [000].
    assert recommended_shards(30_000_000, 100_000, 0.5) == 601


def test_buckets_expected_to_reshard_next_by_their_own_growth():
    """A slow bucket near the limit reshards after a fast one further from it [000: 16 -> 512 shards]."""
    th = Thresholds(rgw_top_buckets=2, rgw_growth_window_seconds=600)
    state = DerivationState(th)

    def at(t, fast, slow, idle, over):
        part = BucketsPart(
            t,
            (
                bucket("fast", "i1", 1, fast, "m1"),  # 1,000 objects/s, 50,000 from the limit
                bucket("slow", "i2", 1, slow, "m2"),  # 10 objects/s, 5,000 from the limit
                bucket("idle", "i3", 1, idle, "m3"),  # not growing: no prediction
                bucket("over", "i4", 1, over, "m4"),  # past the limit: due now, growing or not
            ),
        )
        return samples(derive(Snapshot(taken_at=t, buckets=part), state, th), "ceph_scale_rgw_bucket_reshard_seconds")

    # "over" is past the limit: counted and listed by fill elsewhere, never in this top-K, where
    # such buckets would hide those still ahead when resharding is widespread.
    assert not at(0.0, 0, 90_000, 95_000, 100_001)  # no family without samples
    got = at(50.0, 50_000, 95_000 - 5_000 + 500, 95_000, 100_001)
    # Top 2: "fast" (50,000 left / 1,000 per s), then "slow" (9,500 / 10 per s).
    assert got == {(("bucket", "fast"), ("tenant", "")): 50.0, (("bucket", "slow"), ("tenant", "")): 950.0}
    assert state.of(ReshardState).growth is not None
    wide = Thresholds(rgw_top_buckets=3, rgw_growth_window_seconds=600)
    state.thresholds = wide  # widen the top-K without restarting the windows
    got = samples(
        derive(
            Snapshot(
                taken_at=60.0,
                buckets=BucketsPart(
                    60.0,
                    (
                        bucket("fast", "i1", 1, 60_000, "m1"),
                        bucket("slow", "i2", 1, 90_600, "m2"),
                        bucket("idle", "i3", 1, 95_000, "m3"),
                        bucket("over", "i4", 1, 100_001, "m4"),
                    ),
                ),
            ),
            state,
            wide,
        ),
        "ceph_scale_rgw_bucket_reshard_seconds",
    )
    # Rates against the first counts (t=0): fast 1,000/s, slow 10/s.
    assert got[(("bucket", "slow"), ("tenant", ""))] == pytest.approx(9_400 / 10)
    assert got[(("bucket", "fast"), ("tenant", ""))] == pytest.approx(40_000 / 1_000)
    assert (("bucket", "idle"), ("tenant", "")) not in got


def test_a_bucket_created_after_the_reference_is_predicted_from_its_first_sight():
    th = Thresholds(rgw_growth_window_seconds=6 * 3600)
    state = DerivationState(th)

    def at(t, buckets):
        part = BucketsPart(t, tuple(bucket(n, f"i-{n}", 1, o, f"m-{n}") for n, o in buckets))
        return samples(derive(Snapshot(taken_at=t, buckets=part), state, th), "ceph_scale_rgw_bucket_reshard_seconds")

    assert not at(0.0, [("old", 10)])  # nothing grows, nothing at the limit: no series
    at(100.0, [("old", 10), ("new", 0)])  # created an hour after the reference: first seen here
    got = at(110.0, [("old", 10), ("new", 500)])  # 50 objects/s since it was first seen
    assert got == {(("bucket", "new"), ("tenant", "")): pytest.approx((100_000 - 500) / 50)}


@pytest.mark.parametrize("steady", [False, True])
def test_a_record_handed_again_keeps_its_result_exactly_as_a_fresh_copy_would(steady):
    """The bucket poll hands the same Bucket record again for every bucket it did not read; the
    reshard state takes those over without a second look (ReshardState.made_from). Over polls of
    2,000 buckets with reshards of every kind, deletions and re-creations, stale reads and buckets
    that leave and come back, records stamped ahead of the poll, records without a read time and
    buckets listed without their stats, the state equals the one fed fresh copies of every record.
    `steady`: two polls in three list the same buckets as the one before, in the same order (the
    parts compared place by place, the same keys: the table's keys are not looked at again)."""
    import random

    from ceph_scale.core.snapshot import Bucket

    rng = random.Random(7)
    keys = [f"b{i:04d}" for i in range(2000)]
    live = {k: Bucket(k, "", f"{k}.0", 11, 0, marker=f"{k}.0", stats_at=1000.0) for k in keys}
    same, fresh = ReshardState(), ReshardState()
    last_gone: set[str] = set()
    last_unread: frozenset[str] = frozenset()
    for poll in range(1, 25):
        t = 1000.0 + 120.0 * poll
        for k in rng.sample(keys, 150):
            b = live[k]
            change = rng.choice(
                ("grow", "shards", "gen", "instance", "recreate", "stale", "unknown_gen", "ahead", "no_read_time")
            )
            if change == "grow":
                b = dataclasses.replace(b, num_objects=b.num_objects + 10, stats_at=t)
            elif change == "shards":
                b = dataclasses.replace(b, num_shards=b.num_shards * 2 + 1, stats_at=t)
            elif change == "gen":
                b = dataclasses.replace(b, index_gen=(b.index_gen or 0) + 1, num_shards=b.num_shards + 2, stats_at=t)
            elif change == "instance":
                b = dataclasses.replace(b, bucket_id=f"{k}.{poll}", stats_at=t)
            elif change == "recreate":
                b = dataclasses.replace(b, marker=f"{k}.m{poll}", bucket_id=f"{k}.m{poll}", stats_at=t)
            elif change == "stale":
                b = dataclasses.replace(b, num_shards=b.num_shards + 1, stats_at=b.stats_at - 500.0)
            elif change == "ahead":  # a read stamped later than the poll (a skewed clock)
                b = dataclasses.replace(b, stats_at=t + 300.0)
            elif change == "no_read_time":  # read "now", whenever the poll is: it moves
                b = dataclasses.replace(b, num_shards=b.num_shards + 4, stats_at=0.0)
            else:
                b = dataclasses.replace(b, index_gen=None, stats_at=t)
            live[k] = b
        # Left out of this poll's listing, some for a second poll; of those, some listed but
        # with no stats read yet (taking back what the table knew of them, lost or not).
        if steady and poll % 3:
            gone, unread = last_gone | last_unread, last_unread  # listed as the poll before
        else:
            gone = set(rng.sample(keys, 20)) | set(rng.sample(sorted(last_gone), min(6, len(last_gone))))
            unread = frozenset(rng.sample(sorted(gone), 12))
        last_gone, last_unread = gone - unread, unread
        held = tuple(b for k, b in live.items() if k not in gone)
        before, known = set(same.buckets), set(same.buckets) | set(same.lost)
        same.observe(t, held, unread)
        # What the table holds: the listed buckets and the unread ones it knew; the rest is lost.
        assert set(same.buckets) == {b.key for b in held} | (unread & known), poll
        assert set(same.lost) == before - set(same.buckets), poll
        fresh.made_from = ()  # the reference: every bucket looked at again
        fresh.observe(t, tuple(dataclasses.replace(b) for b in held), unread)
        assert same.buckets == fresh.buckets and same.events == fresh.events, poll
        assert list(same.recent) == list(fresh.recent) and same.lost == fresh.lost
    assert same.events > 0


def test_a_part_in_step_with_the_one_before_still_drops_the_buckets_no_longer_listed():
    """The parts are compared place by place when few places differ. A bucket deleted near the end
    and one created in the same poll keep the length and differ in two places only; one deleted
    near the start keeps it too, out of step; a bucket listed unread, then listed no more, leaves
    the held records as they were. Each must leave the table, as with fresh copies of every record."""
    from ceph_scale.core.snapshot import Bucket

    def b(k: str, t: float = 1000.0) -> Bucket:
        return Bucket(k, "", f"{k}.0", 11, 5, marker=f"{k}.0", stats_at=t)

    held = tuple(b(f"b{i:02d}") for i in range(20))
    polls = [
        (held + (b("u"),), frozenset()),  # u held once, with its record
        (held, frozenset({"u"})),  # listed, its stats not read: it keeps its record
        (held, frozenset()),  # listed no more, the held buckets handed again as they were
        (held[:18] + held[19:] + (b("new", 1300.0),), frozenset()),  # b18 deleted, `new` created
        (held[:1] + held[2:18] + held[19:] + (b("new"), b("new2", 1400.0)), frozenset()),  # out of step
    ]
    same, fresh = ReshardState(), ReshardState()
    for n, (buckets, unread) in enumerate(polls):
        t = 1100.0 + 100.0 * n
        same.observe(t, buckets, unread)
        fresh.made_from = ()
        fresh.observe(t, tuple(dataclasses.replace(x) for x in buckets), unread)
        assert same.buckets == fresh.buckets and same.lost == fresh.lost, n
    assert "b01" in same.lost and "b01" not in same.buckets and "new2" in same.buckets
    assert "u" not in same.buckets and "b18" not in same.buckets


def test_the_top_k_by_objects_per_shard_is_the_full_sort_with_its_ties():
    """The top-K is chosen among the buckets at or above the K-th largest objects per shard only;
    with many ties (equal fills, equal objects, names deciding) it must be the full sort's K."""
    import heapq
    import random

    rng = random.Random(11)
    for k in (0, 1, 3, 20):
        buckets = tuple(
            bucket(f"b{i:04d}", f"i{i}", rng.choice([1, 2, 11]), rng.choice([0, 11, 22, 50_000, 99_999]), f"m{i}")
            for i in range(rng.randint(1, 400))
        )
        th = Thresholds(rgw_top_buckets=k)
        got = samples(derive(Snapshot(taken_at=1.0, buckets=BucketsPart(1.0, buckets)), DerivationState(th), th),
                      "ceph_scale_rgw_top_bucket_objects") or {}  # fmt: skip
        full = heapq.nlargest(k, buckets, key=lambda b: (b.num_objects / max(1, b.num_shards), b.num_objects, b.key))
        assert sorted(dict(labels)["bucket"] for labels in got) == sorted(b.name for b in full), k
