"""The durable state in the manager's store: small entries, one chunk rewritten per change."""

from __future__ import annotations

import base64
import json
import zlib

import pytest
from scale import statestore

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState
from ceph_scale.core.signals.reshard.derive import ReshardState


def durable(buckets: int, events: int = 3, seen_at: float = 100.0) -> dict:
    table = {f"tenant/bucket-{i:06d}": [f"zone-1.{i}.1", f"zone-1.{i}.7", 11] for i in range(buckets)}
    return {"version": 1, "reshard": {"events": events, "seen_at": seen_at, "buckets": table}}


def roundtrip(entries: dict) -> dict:
    data, problems = statestore.decode(entries.get)
    assert problems == []
    return data


def test_small_state_roundtrips():
    d = durable(3)
    assert roundtrip(statestore.encode(d)) == d


def test_100k_buckets_fit_under_the_config_key_limit():
    d = durable(100_000)
    entries = statestore.encode(d)
    assert all(len(v) <= statestore.MAX_VALUE_BYTES for v in entries.values())
    assert len(entries) > 2
    assert roundtrip(entries) == d
    # The restored state counts the next reshard once
    state = DerivationState(Thresholds())
    state.restore(roundtrip(entries))
    assert state.of(ReshardState).events == 3 and len(state.of(ReshardState).buckets) == 100_000


def test_one_reshard_rewrites_one_chunk_and_the_header():
    before = durable(50_000)
    after = json.loads(json.dumps(before))
    after["reshard"]["buckets"]["tenant/bucket-000042"][1] = "zone-1.42.9"
    after["reshard"]["events"] = 4
    old, new = statestore.encode(before), statestore.encode(after)
    writes = statestore.plan_writes(old, new)
    sets = [k for k, v in writes if v is not None]
    assert len(sets) == 2 and sets[-1] == statestore.HEADER_KEY  # one new chunk, then the header
    removed = [k for k, v in writes if v is None]
    assert len(removed) == 1 and removed[0] in old and writes[-1] == (removed[0], None)  # the old chunk, after


def test_shrinking_removes_stale_chunks():
    old = statestore.encode(durable(50_000))
    new = statestore.encode(durable(10))
    writes = statestore.plan_writes(old, new)
    removed = [k for k, v in writes if v is None]
    assert removed and all(k.startswith(statestore.CHUNK_PREFIX) for k in removed)
    store = dict(old)
    for k, v in writes:
        if v is None:
            store.pop(k)
        else:
            store[k] = v
    assert roundtrip(store) == durable(10)


def test_missing_chunk_keeps_the_count_and_the_rest():
    entries = statestore.encode(durable(50_000))
    chunk = sorted(k for k in entries if k.startswith(statestore.CHUNK_PREFIX))[0]
    del entries[chunk]
    data, problems = statestore.decode(entries.get)
    assert problems and "missing" in problems[0]
    assert data["reshard"]["events"] == 3 and 0 < len(data["reshard"]["buckets"]) < 50_000


def test_nothing_stored():
    assert statestore.decode({}.get) == (None, [])


def test_only_the_clock_moving_is_not_a_change():
    assert statestore.without_clock(durable(5, seen_at=1.0)) == statestore.without_clock(durable(5, seen_at=2.0))
    assert statestore.without_clock(durable(5, events=3)) != statestore.without_clock(durable(5, events=4))


def test_the_hours_busiest_reading_rising_alone_is_not_a_change():
    """The busiest reading of the hour rises with every poll of a rising load; written with each,
    the header went to the monitors at every poll (180 of 180 polls, a review measured, where 7
    without it). It is written with the next change that counts: a runway trend's point."""

    def with_runway(busiest: float, points: int) -> dict:
        trend = {"points": [[float(t), 1.0] for t in range(points)], "step": 60.0}
        return durable(5) | {"runway": {"used": trend, "busiest": [[busiest, 3600.0, 1.0, 2.0, 3.0, 4.0]]}}

    assert statestore.without_clock(with_runway(0.5, 3)) == statestore.without_clock(with_runway(0.6, 3))
    assert statestore.without_clock(with_runway(0.5, 3)) != statestore.without_clock(with_runway(0.6, 4))


def apply(store: dict, writes, upto: int | None = None) -> dict:
    store = dict(store)
    for k, v in writes[:upto]:
        if v is None:
            store.pop(k, None)
        else:
            store[k] = v
    return store


def test_a_write_cut_off_anywhere_leaves_a_consistent_state():
    """The manager may die between any two set_store calls: the restored count and table
    must always be of the same moment, or a reshard is lost or counted twice."""
    before = durable(50_000, events=3)
    after = json.loads(json.dumps(before))
    after["reshard"]["buckets"]["tenant/bucket-000042"][1] = "zone-1.42.9"
    after["reshard"]["buckets"]["tenant/bucket-049999"][1] = "zone-1.49999.9"
    after["reshard"]["events"] = 5
    old = statestore.encode(before)
    new = statestore.encode(after)
    writes = statestore.plan_writes(old, new)
    sets = [k for k, v in writes if v is not None]
    assert len(sets) >= 2 and sets[-1] == statestore.HEADER_KEY
    for cut in range(len(writes) + 1):
        store = apply(old, writes, cut)
        restored = roundtrip(store)
        assert restored in (before, after), cut
        # The next write from the restored store cleans up whatever was left over.
        assert apply(store, statestore.plan_writes(store, new)) == new, cut


def test_the_first_format_still_restores():
    d = durable(3)
    header = json.loads(json.dumps(d))
    table = header["reshard"].pop("buckets")
    header["reshard"]["bucket_chunks"] = 1
    import base64
    import zlib

    chunk = base64.b64encode(zlib.compress(json.dumps(table).encode())).decode()
    entries = {statestore.HEADER_KEY: json.dumps(header), statestore.CHUNK_PREFIX + "0": chunk}
    assert roundtrip(entries) == d


def test_a_stored_header_or_chunk_that_is_not_a_table_costs_itself_alone():
    """A chunk holding a JSON list raised TypeError out of the restore, and the whole state went
    with it; a header holding one raised AttributeError, which the module did not catch."""
    buckets = {f"b{i}": ["m", f"i{i}", 11, 0, 5.0] for i in range(2000)}
    stored = statestore.encode({"version": 1, "reshard": {"events": 7, "seen_at": 9.0, "buckets": buckets}}, 4096)
    chunks = sorted(k for k in stored if k.startswith(statestore.CHUNK_PREFIX))
    assert len(chunks) > 2
    broken = {**stored, chunks[0]: base64.b64encode(zlib.compress(b"[1, 2]")).decode()}
    data, problems = statestore.decode(broken.get)
    assert data is not None and len(problems) == 1 and "chunk 0 of" in problems[0] and "not list" in problems[0]
    state = DerivationState(Thresholds())
    assert state.restore(data) == []
    kept = state.signals["reshard"]
    assert kept.events == 7 and 0 < len(buckets) - len(kept.buckets) < len(buckets) / 2
    with pytest.raises(ValueError, match="not a table but a list"):
        statestore.decode({**stored, statestore.HEADER_KEY: "[]"}.get)
    with pytest.raises(ValueError, match="not a table but a str"):
        statestore.decode_poll({statestore.POLL_HEADER_KEY: '"x"'}.get)


def cut(chunk: str) -> str:
    """The chunk without its last 4 bytes: zlib's checksum, the rows themselves whole."""
    return base64.b64encode(base64.b64decode(chunk)[:-4]).decode()


def test_a_lost_chunk_loses_reshards_and_never_counts_one_twice():
    """Its buckets are new to the next poll; a bucket created since the watch began then added
    its whole generation again (18 counted for 15 with one chunk of 8 lost, the second review's
    case). A chunk cut short was taken whole, with no problem said."""
    from ceph_scale.core.signals.reshard.derive import ReshardState
    from tests.unit.test_saved_state_rows import DAY, JAN_1, lost_table_case

    saved, now, counted = lost_table_case()
    stored = statestore.encode({"version": 1, "reshard": saved}, 400)
    chunks = sorted(k for k in stored if k.startswith(statestore.CHUNK_PREFIX))
    assert len(chunks) >= 4
    for chunk in chunks:
        for broken in ({k: v for k, v in stored.items() if k != chunk}, {**stored, chunk: cut(stored[chunk])}):
            data, problems = statestore.decode(broken.get)
            assert data is not None and len(problems) == 1, problems
            state = ReshardState.from_dict(data["reshard"])
            # Saved again before the next poll (the module saves after every derivation): the
            # store then says nothing of the lost chunk, and the loss must hold all the same.
            data, problems = statestore.decode(statestore.encode({"version": 1, "reshard": state.to_dict()}).get)
            assert data is not None and problems == []
            state = ReshardState.from_dict(data["reshard"])
            state.observe(JAN_1 + 3 * DAY, now)
            assert state.events == counted, (chunk, problems)
    data, problems = statestore.decode(stored.get)
    assert problems == [] and "buckets_lost" not in data["reshard"]
