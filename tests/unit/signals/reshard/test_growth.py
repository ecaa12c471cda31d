"""Bucket growth from two reference reads (signals/reshard/growth.py): the rates a record handed
again keeps from the last call must be exactly the rates worked out afresh."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ceph_scale.core.signals.reshard.growth import BucketGrowth, object_rate
from ceph_scale.core.signals.tenants.state import BucketRefs, byte_rate
from ceph_scale.core.snapshot import Bucket


class Plain(BucketGrowth):
    """The growth as plain loops: observe looks at every bucket, rates at every pair."""

    def observe(self, t, buckets):
        if self.newer is not None and t <= self.newer[0]:
            return
        if self.newer is None or t - self.newer[0] >= self.window / 2:
            self.older, self.newer = self.newer, (t, {b.key: b for b in buckets})
            return
        for b in buckets:
            if b.key not in self.newer[1]:
                self.newer[1][b.key] = b if b.stats_at else dataclasses.replace(b, stats_at=t)

    def kept_rates(self, t, buckets, rate_of):
        return {b.key: r for b, ref, span in self.pairs(t, buckets) if (r := rate_of(b, ref, span)) is not None}


def polls(seed: int, n_buckets: int, rounds: int):
    """The parts of a bucket poll over `rounds` polls 120 s apart: the same record handed again
    for a bucket not read, in the poll's order; reads that grow, shrink or keep a bucket; a read
    without a read time; buckets deleted (in the middle: out of step) and created (last), and one
    of each in the same poll."""
    rnd = random.Random(seed)
    live = {
        f"b{i:04d}": Bucket(
            f"b{i:04d}", "", f"i{i}", 11, rnd.randrange(1000), size_bytes=rnd.randrange(10**6), stats_at=1000.0
        )  # fmt: skip
        for i in range(n_buckets)
    }
    t = 1000.0
    for n in range(rounds):
        t += 120.0
        for key in rnd.sample(sorted(live), max(1, len(live) // 20)):
            b = live[key]
            kind = rnd.choice(("grow", "grow", "shrink", "same", "no_read_time"))
            objects = max(0, b.num_objects + {"grow": 50, "shrink": -500}.get(kind, 0))
            size = max(0, b.size_bytes + {"grow": 5000, "shrink": -(10**5)}.get(kind, 0))
            live[key] = dataclasses.replace(
                b, num_objects=objects, size_bytes=size, stats_at=0.0 if kind == "no_read_time" else t
            )
        if n % 5 == 3:
            del live[rnd.choice(sorted(live))]
        if n % 7 == 5:  # one near the end deleted and one created: the same length, in step, other keys
            del live[list(live)[-3]]
            live[f"swap{n}"] = Bucket(f"swap{n}", "", f"s{n}", 11, 0, stats_at=t)
        if n % 4 == 2:
            live[f"new{n}"] = Bucket(f"new{n}", "", f"n{n}", 11, 0, stats_at=t)
        yield t, tuple(live.values())


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    window=st.sampled_from([240.0, 600.0, 3600.0]),
    kind=st.sampled_from(["objects", "bytes"]),
)
def test_rates_kept_for_records_handed_again_equal_the_rates_worked_out_afresh(seed, window, kind):
    """Over polls with the references turning every half window, each call's rates and the
    references equal those of plain loops over every bucket."""
    kept = BucketGrowth(window) if kind == "objects" else BucketRefs(window)
    plain = Plain(window)
    rate_of = object_rate if kind == "objects" else byte_rate
    seen_rates = 0
    other = byte_rate if kind == "objects" else object_rate
    for n, (t, buckets) in enumerate(polls(seed, 300, 30)):
        if n % 3 == 1:  # the other kind of rate in between: nothing kept of one serves the other
            assert kept.kept_rates(t, buckets, other) == plain.kept_rates(t, buckets, other), t
        got = kept.kept_rates(t, buckets, rate_of)
        assert got == plain.kept_rates(t, buckets, rate_of), t
        seen_rates += len(got)
        kept.observe(t, buckets)
        plain.observe(t, buckets)
        assert kept.newer is not None and plain.newer is not None
        assert kept.newer == plain.newer and kept.older == plain.older, t
    assert seen_rates > 0


def test_the_kept_rates_follow_a_turn_of_the_references_and_a_bucket_read_again():
    """A bucket read again after its rate was kept gets a new rate; at a turn of the references
    every rate is worked out again against the new ones."""
    g = BucketGrowth(600.0)
    b0 = Bucket("a", "", "i", 11, 100, stats_at=1000.0)
    g.observe(1000.0, (b0,))
    b1 = dataclasses.replace(b0, num_objects=160, stats_at=1060.0)
    assert g.rates(1060.0, (b1,)) == {"a": pytest.approx(1.0)}
    g.observe(1060.0, (b1,))
    assert g.rates(1120.0, (b1,)) == {"a": pytest.approx(1.0)}  # handed again: kept
    b2 = dataclasses.replace(b1, num_objects=400, stats_at=1120.0)
    assert g.rates(1120.0, (b2,)) == {"a": pytest.approx(2.5)}  # read again: (400 - 100) / 120
    g.observe(1300.0, (b2,))  # half a window on: the references turn, b2 is the newer one
    b3 = dataclasses.replace(b2, num_objects=700, stats_at=1400.0)
    assert g.rates(1400.0, (b3,)) == {"a": pytest.approx(1.5)}  # against b0 still: (700 - 100) / 400
