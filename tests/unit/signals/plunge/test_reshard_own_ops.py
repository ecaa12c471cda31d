"""A resharding bucket is the cause only if its own ops fell. RGW counts a bucket's ops with
`rgw_bucket_counters_cache` on (Tentacle 20.2.4 captured; Reef 18.2.7 has none), as labeled
counters the manager's labeled calls give (tests/unit/test_bucket_counters_captured.py); the
module's reshard source reads them for the queued buckets (core/queued_bucket_ops.py). Where they
are counted, a reshard whose bucket's ops did not fall is no cause; where they are not, it is named
and said unconfirmed, with why. At the 10B study's scale (tests/unit/signals/plunge/study.py:
318 HDD OSDs, 12 RGWs, 100,000 buckets, the 10B run's 17,800 PUT/s)."""

from __future__ import annotations

import dataclasses

from ceph_scale.core.queued_bucket_ops import ALL_BUCKETS, NOT_COUNTED
from ceph_scale.core.snapshot import BucketOps, ReshardEntry, Snapshot
from tests.unit.signals.plunge.study import SynthStudy
from tests.unit.study_rounds import POLL, PUT

SLOWER = dataclasses.replace(PUT, slowdown=1 / 0.4)
STALL = dataclasses.replace(PUT, slowdown=1 / 0.3)  # one OSD of 318 stalls the PUTs by 70 %
HOT = ("hot-0", "hot-1", "hot-2")


def queued(*names: str, processing: bool = True) -> tuple[ReshardEntry, ...]:
    return tuple(ReshardEntry(n, "", f"zone.{n}", 11, 23, processing) for n in names)


class Counted(SynthStudy):
    """The study cluster whose RGWs count each bucket's ops (`own`: bucket -> PUT/s, over the 12
    RGWs), read with the reshard queue as the module reads them."""

    def __init__(self, unread: str = "") -> None:
        super().__init__()
        self.own: dict[str, float] = {}
        self.counts: dict[tuple[str, str], float] = {}
        self.unread = unread
        self.restarted: set[str] = set()  # RGWs restarted since the last poll: their counts from 0

    def snapshot(self) -> Snapshot:
        snap = super().snapshot()
        for r in self.restarted:
            self.counts = {k: (0.0 if k[0] == r else v) for k, v in self.counts.items()}
        self.restarted = set()
        for bucket, rate in self.own.items():
            for r in self.rgws:
                self.counts[(r, bucket)] = self.counts.get((r, bucket), 0.0) + rate / len(self.rgws) * POLL
        watched = {e.bucket for e in self.resharding} | set(self.own)
        # Each RGW's own totals, read in the same pass (the bucket "" of queued_bucket_ops).
        totals = tuple(BucketOps(r, ALL_BUCKETS, int(c["put"]), int(c["get"])) for r, c in self.counters.items())
        ops = () if self.unread else totals + tuple(
            BucketOps(r, b, int(n), 0) for (r, b), n in sorted(self.counts.items()) if b in watched
        )  # fmt: skip
        assert snap.reshard is not None
        return dataclasses.replace(
            snap, reshard=dataclasses.replace(snap.reshard, bucket_ops=ops, bucket_ops_unread=self.unread)
        )


def hot_buckets_queued_then_resharding(c: Counted, put_rate: float = 300.0) -> Counted:
    """One bucket of 100,000 resharding at every poll, as usual; three written buckets queued for
    7.5 minutes, then resharded together."""
    c.own = dict.fromkeys(HOT, put_rate)
    c.resharding = queued("s3bench-0000001") + queued(*HOT, processing=False)
    c.run(450, PUT)
    c.resharding = queued(*HOT)
    return c


def named(c: SynthStudy, seconds: float = 60) -> dict[str, str]:
    """The plunge's cause and evidence after `seconds` of the cluster slower."""
    c.run(seconds, SLOWER)
    info = c.info()
    assert info is not None, "no plunge"
    return info


def test_a_reshard_whose_buckets_lost_their_writes_is_confirmed():
    c = hot_buckets_queued_then_resharding(Counted())
    c.own = dict.fromkeys(HOT, 0.0)  # the reshard holds their writes
    info = named(c)
    assert info["cause"] == "reshard", info
    assert info["evidence"] == (
        "bucket hot-0 resharding 11 -> 23 shards (3 resharding, usually 1); "
        "its share of the PUTs fell from 1.7% to 0% (and 2 more)"
    ), info


def test_buckets_resharding_whose_own_ops_held_are_no_cause():
    """Three written buckets reshard while the cluster slows for another reason: their own PUTs go
    on at their rate (RGW kept taking their writes), so the slowdown is not theirs."""
    c = hot_buckets_queued_then_resharding(Counted())
    info = named(c)
    assert info["cause"] == "none", info
    assert c.value("ceph_scale_s3_plunge_cause_score", cause="reshard") is None


def test_an_rgw_restarting_as_they_reshard_reads_as_no_fall():
    """One RGW of 12 restarts at the reshard: its counts start from 0. Counted as increases, the
    buckets' own ops held, not fell by a twelfth's total."""
    c = hot_buckets_queued_then_resharding(Counted())
    c.restarted = {c.rgws[0]}
    info = named(c)
    assert info["cause"] == "none", info


def test_buckets_of_few_ops_are_unconfirmed_not_ruled_out():
    """Half a PUT a second each, 7 in a poll: chance moves so few by more than the drop looked for."""
    c = hot_buckets_queued_then_resharding(Counted(), put_rate=0.5)
    c.own = dict.fromkeys(HOT, 0.0)
    info = named(c)
    assert info["cause"] == "reshard", info
    assert "its own ops unconfirmed: fewer than 400 to judge" in info["evidence"], info


def test_a_long_reshard_stays_confirmed_to_its_end_however_short_its_queue_time():
    """Queued two polls before it is processed, then held for 20 minutes: its usual share is the one
    from before it was first judged, so every poll of the reshard confirms it and the plunge holds."""
    c = Counted()
    c.own = dict.fromkeys(HOT, 300.0)
    c.resharding = queued("s3bench-0000001")
    c.run(420, PUT)
    c.resharding = queued("s3bench-0000001") + queued(*HOT, processing=False)
    c.run(30, PUT)
    c.resharding = queued(*HOT)
    c.own = dict.fromkeys(HOT, 0.0)
    info = named(c, 1200)
    assert info["cause"] == "reshard", info
    assert "its share of the PUTs fell from 1.7% to 0%" in info["evidence"], info
    assert c.value("ceph_scale_s3_plunge_active") == 1


def test_counters_the_rgws_do_not_keep_leave_the_reshard_named_and_say_why():
    c = hot_buckets_queued_then_resharding(Counted(unread=NOT_COUNTED))
    info = named(c)
    assert info["cause"] == "reshard", info
    assert info["evidence"] == (
        f"bucket hot-0 resharding 11 -> 23 shards (3 resharding, usually 1); its own ops unconfirmed: {NOT_COUNTED} "
        "(and 2 more)"
    ), info


def test_without_the_counters_the_reshard_is_named_unconfirmed():
    """The sidecar, and a manager before Tentacle, read no per-bucket counters."""
    c = SynthStudy()
    c.resharding = queued("s3bench-0000001")
    c.run(450, PUT)
    c.resharding = queued(*HOT)
    info = named(c)
    assert info["cause"] == "reshard", info
    assert info["evidence"] == (
        "bucket hot-0 resharding 11 -> 23 shards (3 resharding, usually 1); its own ops unconfirmed: "
        "per-bucket op counters not read (only the manager's labeled counter calls give them) (and 2 more)"
    ), info


def test_a_bucket_queued_only_as_it_reshards_is_unconfirmed_not_ruled_out():
    """Counted from the poll it is processed: no usual share of its own before, so nothing is known."""
    c = Counted()
    c.resharding = queued("s3bench-0000001")
    c.run(450, PUT)
    c.own = dict.fromkeys(HOT, 0.0)
    c.resharding = queued(*HOT)
    info = named(c)
    assert info["cause"] == "reshard", info
    assert "its own ops unconfirmed: not counted over the interval and a usual one before" in info["evidence"]


def test_the_one_bucket_usually_resharding_is_no_cause():
    c = SynthStudy()
    c.resharding = queued("s3bench-0000001")
    c.run(450, PUT)
    c.resharding = queued("idle")
    info = named(c)
    assert info["cause"] == "none", info


def one_bucket_then_another(c: Counted, own: float) -> Counted:
    """One bucket of 100,000 resharding at every poll, as usual; then a written bucket begins to
    reshard as that one leaves the queue: the count stays as usual. Its own PUTs go on at `own`."""
    c.own = {"hot-0": 300.0}
    c.resharding = queued("s3bench-0000001") + queued("hot-0", processing=False)
    c.run(450, PUT)
    c.resharding = queued("hot-0")
    c.own = {"hot-0": own}
    return c


def test_a_hot_bucket_whose_writes_fell_is_named_where_it_replaces_the_usual_reshard():
    info = named(one_bucket_then_another(Counted(), own=0.0))
    assert info["cause"] == "reshard", info
    assert info["evidence"] == (
        "bucket hot-0 resharding 11 -> 23 shards (1 resharding, usually 1); its share of the PUTs fell from 1.7% to 0%"
    ), info


def test_a_hot_bucket_whose_writes_held_is_no_cause_where_it_replaces_the_usual_reshard():
    c = one_bucket_then_another(Counted(), own=300.0)
    info = named(c)
    assert info["cause"] == "none", info
    assert c.value("ceph_scale_s3_plunge_cause_score", cause="reshard") is None


def test_a_bucket_not_counted_that_replaces_the_usual_reshard_is_no_cause():
    """The usual count, and nothing to confirm the bucket's reshard by: an idle bucket's turn."""
    info = named(one_bucket_then_another(Counted(unread=NOT_COUNTED), own=0.0))
    assert info["cause"] == "none", info


def test_a_reshard_in_progress_for_longer_than_half_the_baseline_is_still_named():
    """Three buckets resharding for twice the baseline before the cluster slows: their own polls
    are not their usual state (the usual count is from before they began), so the reshard is still
    named when the drop comes; it dropped out once they filled half the baseline."""
    c = SynthStudy()
    c.resharding = queued("s3bench-0000001")
    c.run(450, PUT)
    c.resharding = queued(*HOT)
    c.run(2 * c.th.plunge_baseline_seconds, PUT)
    info = named(c)
    assert info["cause"] == "reshard", info
    assert info["evidence"].startswith("bucket hot-0 resharding 11 -> 23 shards (3 resharding, usually 1); "), info


def test_buckets_that_finished_resharding_long_ago_are_the_usual_count_again():
    """The quiet case beside it: three buckets resharded for twice the baseline, then finished;
    one bucket resharding now, as three usually were over the last baseline, is no cause."""
    c = SynthStudy()
    c.resharding = queued(*HOT)
    c.run(2 * c.th.plunge_baseline_seconds, PUT)
    c.resharding = queued("idle")
    c.run(2 * c.th.plunge_baseline_seconds, PUT)
    info = named(c)
    assert info["cause"] == "none", info
