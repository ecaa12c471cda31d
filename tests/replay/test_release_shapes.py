"""The simulator in each captured release's shapes (replay/release_shapes.py): its answers keep
the keys of that release's captures, and the real parsers and signals, taking each release's
own paths (Pacific's new instance per reshard, Reef's shard count and index pool, Tentacle's index
generation and `rgw_op` counters), derive the same signals from the same cluster's life, read
either way a scenario may read its buckets (replay/bucket_reader.py)."""

from __future__ import annotations

import functools
import json
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from replay import release_shapes, scenario
from replay.cluster import SimCluster
from replay.simulate import START, Exporter

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NEWER = [r for r in release_shapes.RELEASES if r != "pacific"]
LIFE = """span: 3h
step: 2m
clusters:
  - name: a
    nodes: 3
    osds_per_node: 4
    db_gb: 700
    pgs: 256
    rgws: 2
    buckets: 2
    bucket_objects: 200000
    shards: 11
    workload: [{for: 1h, put: 300, get: 100}]
    events:
      - {kind: reshard, at: 1h, for: 10m, bucket: 1, shards: 23, running: 3m}
      - {kind: node_down, at: 2h, for: 12m, node: 1}
"""
# What names a release in the exposition: its version strings.
VERSIONED = ("ceph_scale_ceph_versions", "ceph_scale_rgw_info")
# Read from Pacific's queue entries (`new_instance_id`, dropped from Reef on) and Tentacle's bucket
# stats (`reshard_status`), and the plunge's reshard evidence that reads them; Reef's sign is in
# its index pool, which only the bucket poll probes: with `buckets_read: stats` Reef does not see it.
IN_PROGRESS = "ceph_scale_rgw_reshard_in_progress"
FROM_IN_PROGRESS = {(IN_PROGRESS, None), ("ceph_scale_s3_plunge_cause_score", "reshard")}
# The bucket poll's own reads take each release's path: Pacific's reshard is a new instance (a
# bucket read as changed), Reef's a queued bucket's probes, Tentacle's stats say its generation.
POLL_READS = ("ceph_scale_rgw_bucket_poll_last_reads", "ceph_scale_rgw_bucket_poll_reads_total",
              "ceph_scale_rgw_bucket_stats_reads_total")  # fmt: skip


def cluster(release: str, buckets_read: str = "stats") -> scenario.Cluster:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "life.yml"
        path.write_text(LIFE)
        return replace(scenario.load(path).clusters[0], release=release, buckets_read=buckets_read)


def test_reef_reads_its_buckets_through_the_bucket_poll_unless_told():
    """Reef says a reshard is processed only in its index pool, which only the bucket poll probes."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "life.yml"
        for release, told, want in [("reef", None, "poll"), ("tentacle", None, "stats"), ("reef", "stats", "stats")]:
            text = LIFE.replace("  - name: a\n", f"  - name: a\n    release: {release}\n")
            if told:
                text = text.replace("    rgws: 2\n", f"    rgws: 2\n    buckets_read: {told}\n")
            path.write_text(text)
            assert scenario.load(path).clusters[0].buckets_read == want
        path.write_text(LIFE.replace("    rgws: 2\n", "    rgws: 2\n    buckets_read: all\n"))
        with pytest.raises(scenario.ScenarioError, match=r"clusters\[0\].*buckets_read: 'all': one of stats, poll"):
            scenario.load(path)


def test_releases_are_those_captured():
    assert release_shapes.RELEASES == ("pacific", "reef", "tentacle")


@pytest.mark.parametrize("release", NEWER)
def test_each_record_has_the_keys_of_its_releases_capture(release):
    sim = SimCluster(cluster(release), START, 3 * 3600)
    # Mid-reshard: a queue entry exists (the reshard is queued from 1 h, done at 1 h 10 min).
    answers = sim.answers(START + 3600 + 8 * 60, pgs=True)
    for name, records in release_shapes.RECORDS.items():
        for capture, path in records:
            want = release_shapes._first_record(json.loads((FIXTURES / release / capture).read_text()), path)
            doc = answers[name]
            got = [doc] if path is None else doc if path == "" else doc[path]
            assert got, (name, path)
            for record in got:
                assert set(record) == set(want), (name, path, set(record) ^ set(want))
    assert answers["osd metadata"][0]["ceph_release"] == release
    text = answers["perf counters"]
    assert ("ceph_rgw_op_put_obj_ops{" in text) == (release == "tentacle")
    assert ("ceph_rgw_put{" in text) == (release != "tentacle")
    buckets = answers["bucket stats"]
    assert all(b["id"] == b["marker"] for b in buckets)  # a reshard keeps the instance id
    if release == "tentacle":
        assert [b["index_generation"] for b in buckets] == [0, 0]


@functools.cache
def polls(release: str, buckets_read: str = "stats") -> list[dict]:
    """Each poll's samples, every 2 minutes over the 3 hours, but the version strings."""
    spec = cluster(release, buckets_read)
    ex = Exporter(spec, SimCluster(spec, START, 3 * 3600), "a-sidecar:9283")
    out = []
    for step in range(0, 3 * 3600 + 1, 120):
        samples = ex.poll(START + step, 120)
        out.append({(n, tuple(sorted(lb.items()))): v for n, lb, v in samples if not n.startswith(VERSIONED)})
    return out


@pytest.mark.parametrize("buckets_read", scenario.BUCKETS_READS)
def test_the_same_life_in_each_releases_shapes_derives_the_same_signals(buckets_read):
    """Every sample of every poll, releases side by side, but the version strings, the bucket
    poll's own reads (and, read by `stats`, Reef's reshard in progress); the reshard is counted
    once in each (by a new instance, a shard count or index generation, an index generation)."""
    series = {release: polls(release, buckets_read) for release in release_shapes.RELEASES}
    last = series["pacific"][-1]
    reshards = next(v for (n, _), v in last.items() if n == "ceph_scale_rgw_reshard_events_total")
    assert reshards == 1
    assert any(n == "ceph_scale_s3_ops_per_second" and v > 0 for (n, _), v in last.items())
    blind = buckets_read == "stats"
    for release in NEWER:
        for t, (ours, theirs) in enumerate(zip(series["pacific"], series[release])):
            assert ours.keys() == theirs.keys(), (release, t * 120, set(ours) ^ set(theirs))
            differ = {
                k: (ours[k], theirs[k])
                for k in ours
                if not (blind and release == "reef" and (k[0], dict(k[1]).get("cause")) in FROM_IN_PROGRESS)
                and k[0] not in POLL_READS
                and ours[k] != pytest.approx(theirs[k], nan_ok=True)
            }
            assert not differ, (release, t * 120, dict(list(differ.items())[:5]))


@pytest.mark.parametrize(("release", "buckets_read"), [("reef", "poll"), ("tentacle", "stats"), ("tentacle", "poll")])
def test_a_reshard_in_progress_is_seen_in_each_releases_shapes(release, buckets_read):
    """The reshard runs its last 3 minutes from 1 h 7 min: Pacific's queue shows it in progress,
    Reef's index pool to the bucket poll, Tentacle's bucket stats."""
    running = [t for t in range(0, 3 * 3600 + 1, 120) if 3600 + 7 * 60 <= t < 3600 + 10 * 60]

    def seen(release: str, buckets_read: str) -> list[float]:
        series = polls(release, buckets_read)
        return [v for t in running for (n, _), v in series[t // 120].items() if n == IN_PROGRESS]

    assert seen("pacific", buckets_read) == [1.0] * len(running)
    assert seen(release, buckets_read) == [1.0] * len(running)
    quiet = [t for t in range(0, 3 * 3600 + 1, 120) if not 3600 + 7 * 60 <= t < 3600 + 10 * 60]
    assert [v for t in quiet for (n, _), v in polls(release, buckets_read)[t // 120].items() if n == IN_PROGRESS] == [
        0.0
    ] * len(quiet)


def test_reef_read_by_stats_does_not_see_the_reshard_in_progress():
    """What `buckets_read: stats` costs on Reef (docs/replay.md): the same poll, 0."""
    t = 3600 + 8 * 60
    assert [v for (n, _), v in polls("reef", "stats")[t // 120].items() if n == IN_PROGRESS] == [0.0]


def test_reef_sees_the_reshard_in_progress_after_an_exporter_restart():
    """The bucket poll's state, saved at the stop, comes back with the process (as the sidecar's
    `<state_file>.buckets`): the queued bucket's next generation is still probed."""
    spec = cluster("reef", "poll")
    ex = Exporter(spec, SimCluster(spec, START, 3 * 3600), "a-sidecar:9283")
    for step in range(0, 3600 + 8 * 60 + 1, 120):
        if step == 3600 + 6 * 60:
            before = len(ex.bucket_poll.entries)
            ex.restart(START + step)
            assert len(ex.bucket_poll.entries) == before == 2
        samples = ex.poll(START + step, 120)
    assert [v for n, _, v in samples if n == IN_PROGRESS] == [1.0]


def test_a_power_loss_brings_the_bucket_poll_back_as_last_saved_a_stop_as_it_was():
    """The sidecar saves the poll's state every SAVE_EVERY (600 s) from its start and at a stop; a
    host that loses power never stops it."""
    spec = cluster("reef", "poll")
    ex = Exporter(spec, SimCluster(spec, START, 3 * 3600), "a-sidecar:9283")
    for step in range(0, 900 + 1, 120):
        ex.poll(START + step, 120)
    assert ex.bucket_poll_saved_at == START + 600
    saved = ex.bucket_poll_saved
    assert saved is not None and saved != ex.bucket_poll.to_dict()  # polled since
    ex.restart(START + 960, stopped=False)
    assert ex.bucket_poll.to_dict() == saved
    ex.poll(START + 1080, 120)
    now = ex.bucket_poll.to_dict()
    ex.restart(START + 1100)
    assert ex.bucket_poll.to_dict() == now
