"""The shard runway's interval at the study's scale: 100,000 buckets, 1,000 of them taking the 1B
run's 6,500 PUT/s [002] in its COSBench rounds (an hour of PUT, 15 minutes of GET, 15 minutes of
mixed ops at half the writes [000]), read by a bucket poll every 20 minutes. A bucket's rate over
a span that is not whole rounds is off the rounds' mean; the interval (BucketGrowth.halves and
shards.outlook) says how far, through the real derivation's exported series."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import Bucket, BucketsPart, ClusterSettings, Snapshot
from tests.unit.signals.runway.test_runway import samples

BUCKETS = 100_000
GROWING = 1_000  # every 100th bucket
PUT = 6_500.0 / GROWING  # objects per second of a growing bucket in the PUT hour, on average [002]
ROUND, PUT_HOUR, GET_END = 5400.0, 3600.0, 4500.0
POLL = 1200.0
SHARDS, LIMIT = 11, 100_000
T0 = 1.7e9


def written(t: float) -> float:
    """Seconds of full-rate PUT in the first `t` seconds of the rounds (the mixed quarter hour at
    half the writes, none while reading)."""
    rounds, into = divmod(t, ROUND)
    per_round = PUT_HOUR + (ROUND - GET_END) / 2
    return rounds * per_round + min(into, PUT_HOUR) + max(0.0, into - GET_END) / 2


def mean_rate(share: float) -> float:
    return share * PUT * (PUT_HOUR + (ROUND - GET_END) / 2) / ROUND


def share_of(i: int) -> float:
    return 0.5 + i / BUCKETS  # half to one and a half times the average


def start_objects(i: int) -> int:
    return 100_000 + (i * 7919) % 300_000


def bucket(i: int, t: float, steady: bool) -> Bucket:
    grown = (mean_rate(share_of(i)) * t) if steady else share_of(i) * PUT * written(t)
    return Bucket(f"b{i:06d}", "", f"z.{i}", SHARDS, start_objects(i) + round(grown), stats_at=T0 + t)


def truth(t: float, steady: bool) -> float:
    """The runway at each growing bucket's mean growth over the rounds."""
    return min(
        (SHARDS * LIMIT - bucket(i, t, steady).num_objects) / mean_rate(share_of(i)) for i in range(0, BUCKETS, 100)
    )


def polls(hours: float, steady: bool = False):
    th = Thresholds()
    state = DerivationState(th)
    idle = [Bucket(f"b{i:06d}", "", f"z.{i}", SHARDS, start_objects(i)) for i in range(BUCKETS)]
    for k in range(round(hours * 3600 / POLL) + 1):
        t = k * POLL
        buckets = list(idle)
        for i in range(0, BUCKETS, 100):
            buckets[i] = bucket(i, t, steady)
        at = T0 + t
        snap = Snapshot(
            taken_at=at,
            fsid="study",
            buckets=BucketsPart(at, tuple(buckets)),
            settings=ClusterSettings(at, rgw_max_objs_per_shard=LIMIT),
        )
        fams = derive(snap, state, th, cluster="study")
        yield t, *(samples(fams, f"ceph_scale_runway_{n}seconds").get(("shard",)) for n in ("", "lower_", "upper_"))


def test_under_the_rounds_the_interval_holds_the_runway_at_their_mean_growth_once_the_window_is_full():
    """Before the older reference (half the 6-hour window) the runway has no interval; from a full
    window on, at every poll, the interval holds the runway at the rounds' mean growth, where the
    runway alone is off it by several per cent at some phase of the rounds."""
    off = []
    for t, runway, lower, upper in polls(9):
        if t <= 3 * 3600:  # the older reference is taken at this poll, after its rates
            assert lower is None and upper is None, (t, lower, upper)
            continue
        assert runway is not None and lower is not None and upper is not None, t
        assert lower <= runway <= upper, (t, lower, runway, upper)
        if t >= 6 * 3600:
            true = truth(t, steady=False)
            # A bucket's count is whole objects: a part in 10,000 of rounding.
            assert lower <= true * 1.0001 and upper >= true * 0.9999, (t / 3600, lower, true, upper)
            off.append(abs(runway / true - 1))
    assert max(off) > 0.02, off  # the interval is needed: the runway alone missed the mean by 2 % and more


def test_steady_ingest_gives_a_narrow_interval():
    """The quiet twin: the same mean growth, written evenly, gives halves that agree."""
    for t, runway, lower, upper in polls(6, steady=True):
        if t > 3 * 3600:
            assert runway is not None and lower is not None and upper is not None, t
            assert upper / lower < 1.001, (t, lower, runway, upper)
            assert abs(runway / truth(t, steady=True) - 1) < 0.001, t
