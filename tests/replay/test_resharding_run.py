"""The page budget of the whole resharding run [000] (resharding.yml, 75 hours): 50 COSBench rounds
of an hour of PUT, 15 minutes of GET and 15 of mixed ops; the bucket under test grows from 800,000
objects past 30 M and RGW reshards it 16 -> 32 -> 64 -> 128 -> 256 -> 512 shards, each reshard
longer than the one before (the last holds its writes for 53 minutes).

Budget: nothing pages; the shard-limit, queue and storm warnings stay quiet through every reshard,
the longest included (it is in progress, not left behind); each reshard that starts within a PUT
hour is a plunge to the RGW team within PLUNGE_WITHIN of its start, the longest held to its end
as one notification; the one that starts as a GET phase begins is a plunge in the mixed phase,
whose writes it holds.
"""

from __future__ import annotations

from replay.simulate import START
from tests.replay.test_resharding import PLUNGE_WITHIN, plunges, reshards

ROUND = 90 * 60  # an hour of PUT, 15 minutes of GET, 15 of mixed ops
PUT_HOUR = 60 * 60
SHARDS = (16, 32, 64, 128, 256, 512)


def in_put_hour(t: float) -> bool:
    return (t - START) % ROUND < PUT_HOUR


def test_the_bucket_reshards_to_512_shards_each_reshard_longer(resharding_run):
    whats = [what for _, _, _, what in resharding_run.incidents]
    assert whats == [f"bucket s3bench-0000000 resharding {a} -> {b}" for a, b in zip(SHARDS, SHARDS[1:])]
    spans = [end - start for start, end in reshards(resharding_run)]
    assert spans == sorted(spans) and spans[-1] >= 45 * 60


def test_nothing_pages_and_the_shard_limit_queue_and_storm_warnings_stay_quiet(resharding_run):
    """The 53-minute reshard of the bucket, past its limit all along, is in progress: not left behind."""
    assert resharding_run.pages() == []
    quiet = ("CephScaleRgwBucketsOverShardLimit", "CephScaleRgwReshardQueueStuck", "CephScaleRgwReshardStorm")
    assert [f.alert for f in resharding_run.fired if f.alert in quiet] == []


def test_each_reshard_starting_in_a_put_hour_is_one_plunge_to_the_rgw_team(resharding_run):
    notes = plunges(resharding_run)
    held = [(start, end) for start, end in reshards(resharding_run) if in_put_hour(start)]
    assert len(held) == 4
    for start, _ in held:
        mine = [n.receiver for n in notes if start <= n.start <= start + PLUNGE_WITHIN]
        assert mine == ["ceph-scale-rgw"], resharding_run.offset(start)


def test_the_reshard_starting_as_the_get_phase_begins_is_one_plunge_in_the_mixed_phase(resharding_run):
    """The GETs ask no PUT; the mixed load after them asks a fifth of its ops as PUTs, and the
    reshard holds them. While it is in progress, the PUTs are judged against their own level
    scaled by their demand (detect.held_put): one plunge to the RGW team, in the mixed phase."""
    notes = plunges(resharding_run)
    others = [(start, end) for start, end in reshards(resharding_run) if not in_put_hour(start)]
    assert len(others) == 1
    start, end = others[0]
    mine = [n for n in notes if start <= n.start <= end]
    assert [n.receiver for n in mine] == ["ceph-scale-rgw"], resharding_run.offset(start)
    assert (mine[0].start - START) % ROUND >= PUT_HOUR + 15 * 60, resharding_run.offset(mine[0].start)


def test_the_longest_reshard_is_one_notification_held_to_its_end(resharding_run):
    """53 minutes, past the 30-minute baseline: the reshard still runs, so the plunge is held
    (plunge_cause_hold_seconds), and the latency warning it inhibits never reaches a receiver."""
    start, end = reshards(resharding_run)[-1]
    mine = [n for n in resharding_run.tickets() if start <= n.start <= end]
    assert [n.alertname for n in mine] == ["CephScaleS3ThroughputPlunge"]
    assert mine[0].end is not None and mine[0].end >= end
