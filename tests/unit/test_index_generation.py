"""Exact reshard counts from index generations (Reef+), and Pacific's observed changes.

The object names are the ones seen in the real index pools: Reef's `.dir.<id>.<gen>.<shard>`
(tests/fixtures/reef) and Pacific's `.dir.<id>.<shard>`.
"""

from __future__ import annotations

import dataclasses

import pytest

from ceph_scale.core.index_generation import GenerationProber, index_generation, shard0_oid
from ceph_scale.core.signals.reshard.derive import ReshardState
from ceph_scale.core.snapshot import Bucket

ID = "33c4a9af-a769-4f96-a3a6-30d2b9113c39.4161.1"


def bucket(name="b", bucket_id=ID, shards=1, objects=0, marker=None, created="2026-11-24T01:40:12.477512Z", gen=None):
    return Bucket(name=name, tenant="", bucket_id=bucket_id, num_shards=shards, num_objects=objects,
                  marker=bucket_id if marker is None else marker, created=created, index_gen=gen)  # fmt: skip


def pool(*oids: str):
    reads: list[str] = []

    def exists(oid: str) -> bool:
        reads.append(oid)
        return oid in oids

    exists.reads = reads  # type: ignore[attr-defined]
    return exists


def test_object_names_of_each_generation():
    assert shard0_oid(ID, 0) == f".dir.{ID}.0"
    assert shard0_oid(ID, 3) == f".dir.{ID}.3.0"


def test_the_generation_is_the_newest_index_that_exists():
    assert index_generation(pool(f".dir.{ID}.0"), ID) == 0  # Pacific, or never resharded
    assert index_generation(pool(f".dir.{ID}.2.0"), ID) == 2  # older generations removed
    # multisite keeps old generations a while: the newest counts
    assert index_generation(pool(f".dir.{ID}.0", f".dir.{ID}.1.0", f".dir.{ID}.2.0"), ID) == 2
    assert index_generation(pool(), ID) is None
    walk = pool(f".dir.{ID}.5.0")
    assert index_generation(walk, ID, known=4) == 5
    assert walk.reads == [f".dir.{ID}.4.0", f".dir.{ID}.5.0", f".dir.{ID}.6.0"]  # from the known one, not 0


def test_the_prober_counts_its_reads_and_says_what_it_could_not_read():
    prober = GenerationProber()
    assert prober.start_poll()
    assert prober.probe(pool(f".dir.{ID}.1.0"), ID) == (1, 3)  # gen 0 absent, 1 there, 2 absent
    assert prober.probe(pool(f".dir.{ID}.3.0"), ID, known=2) == (3, 3)

    def refused(oid: str) -> bool:
        raise PermissionError("EACCES")

    assert prober.probe(refused, ID) == (None, 1)
    assert prober.error.startswith("PermissionError")
    assert prober.probe(pool(f".dir.{ID}.0"), ID) == (None, 0)  # no more this poll


def observe(state: ReshardState, t: float, *buckets: Bucket) -> int:
    state.observe(t, tuple(buckets))
    return state.events


WATCH = 1_795_000_000.0  # 2026-11-18, before the buckets' creation time
LATER = 1_796_000_000.0  # 2026-11-29, after it


def test_several_reshards_between_two_polls_count_each():
    s = ReshardState()
    assert observe(s, WATCH, bucket(gen=0)) == 0
    assert observe(s, WATCH + 1, bucket(shards=7, gen=3)) == 3
    assert observe(s, WATCH + 2, bucket(shards=7)) == 3  # unchanged, not probed: keeps gen 3
    assert observe(s, WATCH + 3, bucket(shards=3, gen=4)) == 4  # a reshard down is a reshard


def test_a_bucket_resharded_before_its_first_poll_counts_if_created_while_watched():
    s = ReshardState()
    observe(s, WATCH, bucket("old", gen=0))
    assert observe(s, WATCH + 1, bucket("old"), bucket("new", shards=29, gen=2)) == 2
    # Pacific: no generations, a new instance id with the first one as marker: one reshard
    pacific = bucket("p", bucket_id="x.2", marker="x.1", shards=13, gen=0)
    assert observe(s, WATCH + 2, bucket("old"), bucket("new", shards=29), pacific) == 3
    assert s.resharded_buckets() == 2


def test_an_old_resharded_bucket_at_the_first_start_counts_no_event_but_shows_in_the_gauge():
    s = ReshardState()
    assert observe(s, LATER, bucket("a", shards=7, gen=2), bucket("p", bucket_id="x.2", marker="x.1")) == 0
    assert s.resharded_buckets() == 2
    s2 = ReshardState()
    observe(s2, LATER, bucket("z"))
    # created before the watch began, first seen later (say a tenant's listing was off): none
    assert observe(s2, LATER + 1, bucket("late", shards=7, gen=2, created="2026-01-01T00:00:00Z")) == 0


def test_reshards_while_the_producer_was_down_count_from_the_durable_generation():
    s = ReshardState()
    observe(s, WATCH, bucket(gen=1, shards=7))
    restored = ReshardState.from_dict(s.to_dict())
    assert restored.watch_start == WATCH and restored.buckets == s.buckets
    assert observe(restored, WATCH + 600, bucket(gen=3, shards=29)) == 2


def test_without_readable_generations_a_change_counts_once():
    s = ReshardState()
    observe(s, WATCH, bucket())
    assert observe(s, WATCH + 1, bucket(shards=7)) == 1  # gen unknown: the observed change
    assert observe(s, WATCH + 2, bucket(bucket_id="x.2", marker=ID, shards=11)) == 2  # Pacific: new id


def test_pacifics_instance_switch_seen_before_its_shard_count_is_one_reshard():
    """Pacific switches a resharding bucket to its new instance, then its shard count: a poll in
    between sees the new id with the old count. The count that follows is the same reshard."""
    s = ReshardState()
    observe(s, WATCH, bucket(bucket_id="x.3", marker=ID, shards=11, gen=0))
    assert observe(s, WATCH + 1, bucket(bucket_id="x.4", marker=ID, shards=11, gen=0)) == 1
    assert observe(s, WATCH + 2, bucket(bucket_id="x.4", marker=ID, shards=3, gen=0)) == 1
    # Reef on, generations unreadable: the id stays the marker, a shard change is a reshard
    assert observe(s, WATCH + 3, bucket("r", shards=11), bucket(bucket_id="x.4", marker=ID, shards=3)) == 1
    assert observe(s, WATCH + 4, bucket("r", shards=3), bucket(bucket_id="x.4", marker=ID, shards=3)) == 2


def test_a_deleted_and_recreated_bucket_is_not_a_reshard():
    s = ReshardState()
    observe(s, WATCH, bucket(gen=0))
    assert observe(s, WATCH + 1, bucket(bucket_id="new.1", gen=0)) == 0


def test_a_state_from_before_generations_still_loads():
    old = {"events": 4, "seen_at": WATCH, "buckets": {"b": [ID, ID, 7]}}
    s = ReshardState.from_dict(old)
    assert s.buckets == {"b": (ID, ID, 7, -1, 0.0)} and s.watch_start == WATCH
    assert observe(s, WATCH + 1, bucket(shards=7, gen=2)) == 4  # unknown before: nothing to diff
    assert observe(s, WATCH + 2, bucket(shards=13, gen=3)) == 5


@pytest.mark.parametrize("field", ["index_gen", "created"])
def test_new_fields_default_so_old_parts_still_build(field):
    assert dataclasses.fields(Bucket)[[f.name for f in dataclasses.fields(Bucket)].index(field)].default in (None, "")


def test_a_failed_probe_ends_the_poll_and_backs_off():
    calls: list[str] = []

    def unanswered(oid: str) -> bool:
        calls.append(oid)
        raise TimeoutError("no answer in 2s")

    prober = GenerationProber()
    probed = []
    for _ in range(8):
        if prober.start_poll():
            for i in range(5):
                prober.probe(unanswered, f"id.{i}")
        prober.end_poll()
        assert prober.error.startswith("TimeoutError")
        probed.append(len(calls))
    # one read per probing poll, then 1, 2, 4 polls skipped: probing polls 1, 3, 6
    assert probed == [1, 1, 2, 2, 2, 3, 3, 3]
    prober.skip = 0
    assert prober.start_poll() and prober.probe(pool(".dir.id.0.0"), "id.0") == (0, 2)
    prober.end_poll()
    assert prober.error == "" and prober.failures == 0
