"""The page budget of the resharding run [000], its first five rounds (resharding_rounds.yml):
COSBench rounds of an hour of PUT, 15 minutes of GET and 15 of mixed ops into two buckets; the
one under test grows from 800,000 to 3.8 M objects and RGW reshards it dynamically, 16 -> 32 ->
64 shards, each reshard holding the writes to it while the index is copied.

Budget: each reshard that holds writes is one plunge (the one as a PUT hour starts too), to the
RGW team, within PLUNGE_WITHIN of its start, over within OVER_WITHIN of its end; the round
boundaries are none; nothing pages; the shard-limit and reshard-queue warnings stay quiet (each reshard is
done within minutes of the bucket passing its limit); the bucket nearing its limit and the
reshard predicted are tickets.
"""

from __future__ import annotations

from replay.run import Result

PLUNGE_WITHIN = 10 * 60  # two refreshes of the counters and the alert's `for: 1m`
OVER_WITHIN = 15 * 60  # two refreshes back at the level and the alert's `keep_firing_for: 5m`


def reshards(r: Result) -> list[tuple[float, float]]:
    return [(start, end) for _, start, end, what in r.incidents if "resharding" in what and end is not None]


def plunges(r: Result):
    return [n for n in r.notifications if n.alertname == "CephScaleS3ThroughputPlunge"]


def test_the_bucket_reshards_16_to_32_to_64_and_the_simulated_writes_wait(resharding_rounds):
    whats = [what for _, _, _, what in resharding_rounds.incidents]
    assert whats == ["bucket s3bench-0000000 resharding 16 -> 32", "bucket s3bench-0000000 resharding 32 -> 64"]
    assert all(0 < end - start <= 15 * 60 for start, end in reshards(resharding_rounds))


def test_each_reshard_is_one_plunge_to_the_rgw_team_over_soon_after_it(resharding_rounds):
    notes = plunges(resharding_rounds)
    for start, end in reshards(resharding_rounds):
        mine = [n for n in notes if start <= n.start <= start + PLUNGE_WITHIN]
        assert [(n.receiver, n.end is not None and n.end <= end + OVER_WITHIN) for n in mine] == [
            ("ceph-scale-rgw", True)
        ]


def test_round_boundaries_are_no_plunge(resharding_rounds):
    """Switches between PUT, GET and mixed ops every round: only the reshards' plunges fire."""
    stalls = reshards(resharding_rounds)
    others = [n for n in plunges(resharding_rounds) if not any(s <= n.start <= s + PLUNGE_WITHIN for s, _ in stalls)]
    assert others == []


def test_nothing_pages_and_the_shard_limit_and_queue_warnings_stay_quiet(resharding_rounds):
    assert resharding_rounds.pages() == []
    quiet = ("CephScaleRgwBucketsOverShardLimit", "CephScaleRgwReshardQueueStuck", "CephScaleRgwReshardStorm")
    assert [f.alert for f in resharding_rounds.fired if f.alert in quiet] == []
    assert {n.alertname for n in resharding_rounds.tickets()} == {"CephScaleS3ThroughputPlunge"}


def test_the_bucket_nearing_its_limit_is_a_ticket_before_each_reshard(resharding_rounds):
    tickets = [n for n in resharding_rounds.notifications if n.receiver == "ceph-scale-ticket"]
    for start, _ in reshards(resharding_rounds):
        near = [n for n in tickets if n.alertname == "CephScaleRgwBucketsNearShardLimit" and n.start < start]
        assert near, f"no ticket before the reshard at {resharding_rounds.offset(start)}"


def test_every_reshard_that_holds_writes_is_a_plunge(resharding_rounds):
    notes = plunges(resharding_rounds)
    for start, _ in reshards(resharding_rounds):
        assert [n for n in notes if start <= n.start <= start + PLUNGE_WITHIN], resharding_rounds.offset(start)
