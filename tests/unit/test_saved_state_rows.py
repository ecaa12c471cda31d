"""A saved state edited by hand, by a disk or by another version, at the 10B study's scale.

The state is the derivation's own after three polls of the synthetic study cluster with 100,000
buckets (reshard's bucket table, 20 tenants' trends, the runway's trends), and the bucket poll's
table of 100,000 buckets read, with 1,000 owners' user quotas. One value or row is made hostile:
a number past any float (valid JSON), infinity, NaN, a string, null, a wrong shape. The outcome
is the right value or that row alone dropped with one line saying so: never another row lost,
never another signal's history, never a silent zero, never an exception.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import logging
import math
from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from ceph_scale.core.bucket_entries import Entry, to_table
from ceph_scale.core.bucket_poll import BucketPoll
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.reshard.derive import UNREAD_ROW
from ceph_scale.core.snapshot import UserQuota
from tests.unit.study_snapshot import study_snapshot

TH = Thresholds(forecast_min_span_seconds=120)
ABSENT = "<absent>"  # a row that is no longer held
HOSTILE: list[Any] = [10**400, math.inf, -math.inf, math.nan, "x", "12", None, [], {"k": 1}, True]
# ... and a valid value, read as written wherever a whole number or a time may stand.
EDITS: list[Any] = [*HOSTILE, 7]
NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]  # 100,000-row states: fail at once


def plain(data: Any) -> Any:
    """What a save writes and a load reads back (tuples become lists)."""
    return json.loads(json.dumps(data, allow_nan=True))


@functools.cache
def study_state() -> dict[str, Any]:
    state = DerivationState(TH)
    for step in range(3):
        derive(study_snapshot(1000.0 + 60 * step, buckets=100_000, grow=step), state, TH, cluster="study")
    data = plain(state.durable())
    assert len(data["reshard"]["buckets"]) == 100_000 and len(data["tenants"]["trends"]) == 20
    assert all(len(data["runway"][k]["points"]) == 3 for k in ("used", "objects", "db", "s3"))
    return data


@functools.cache
def study_poll() -> dict[str, Any]:
    poll, part = BucketPoll(), study_snapshot(1000.0, buckets=100_000).buckets
    assert part is not None
    for b in part.buckets:
        e = poll.entries[b.key] = Entry(7)
        e.bucket, e.read_fp, e.rate = b, 7, 0.5
    poll.users.quotas = {f"owner-{i}": UserQuota(f"owner-{i}", 10**12, 10**7, 900.0) for i in range(1000)}
    poll.users.read_at = {f"owner-{i}": 900.0 for i in range(1000)}
    data = plain(poll.to_dict())
    assert len(data["buckets"]) == 100_000 and len(data["users"]["quotas"]) == 1000
    return data


def held(durable: dict[str, Any]) -> dict[str, Any]:
    """`plain(durable)`, with the 100,000 rows of reshard's buckets made lists alone (faster)."""
    reshard = durable["reshard"]
    rows = {k: list(v) for k, v in reshard["buckets"].items()}
    return {
        **plain({**durable, "reshard": {**reshard, "buckets": {}}}),
        "reshard": {**plain({**reshard, "buckets": {}}), "buckets": rows},
    }


def hostile_edit(draw: Any, row: Any) -> Any:
    """`row` with one column (or the row itself) replaced by a hostile value."""
    value = draw(st.sampled_from(EDITS))
    if isinstance(row, list) and row and draw(st.booleans()):
        i = draw(st.integers(0, len(row) - 1))
        return [*row[:i], value, *row[i + 1 :]]
    return value


def same(a: Any, b: Any) -> bool:
    """Equal as saved (a count saved as 7 reads back as 7.0); NaN is never the same as itself."""
    return bool(plain(a) == plain(b))


@functools.cache
def reshard_keys() -> list[str]:
    return sorted(study_state()["reshard"]["buckets"])


@st.composite
def state_edits(draw: Any, data: dict[str, Any]) -> tuple[str, str, str | None, Any]:
    """(signal, field, row key or None, new value) for one place of the derivation's state."""
    place = draw(st.sampled_from(["reshard row", "tenant trend", "runway trend", "scalar"]))
    if place == "reshard row":
        key = draw(st.sampled_from(reshard_keys()))
        return "reshard", "buckets", key, hostile_edit(draw, data["reshard"]["buckets"][key])
    if place == "tenant trend":
        key = draw(st.sampled_from(sorted(data["tenants"]["trends"])))
        points = data["tenants"]["trends"][key]["points"]
        i = draw(st.integers(0, len(points) - 1))
        edited = [*points[:i], hostile_edit(draw, points[i]), *points[i + 1 :]]
        return "tenants", "trends", key, {**data["tenants"]["trends"][key], "points": edited}
    if place == "runway trend":
        field = draw(st.sampled_from(["used", "objects", "db", "s3"]))
        points = data["runway"][field]["points"]
        i = draw(st.integers(0, len(points) - 1))
        edited = [*points[:i], hostile_edit(draw, points[i]), *points[i + 1 :]]
        return "runway", field, None, {**data["runway"][field], "points": edited}
    signal, field = draw(st.sampled_from([("reshard", "events"), ("reshard", "seen_at"), ("tenants", "seen_at")]))
    return signal, field, None, draw(st.sampled_from(EDITS))


@settings(max_examples=30, deadline=None, phases=NO_SHRINK)
@given(data=st.data())
def test_a_hostile_value_in_the_saved_state_costs_its_own_row_alone(data):
    saved = study_state()
    signal, field, key, value = data.draw(state_edits(saved))
    edited = copy.copy(saved)
    edited[signal] = {**saved[signal]}
    if key is None:
        edited[signal][field] = value
    else:
        edited[signal][field] = {**saved[signal][field], key: value}
    state = DerivationState(TH)
    problems = state.restore(edited)
    back = held(state.durable())
    for other in set(saved) - {signal}:
        assert back[other] == saved[other], other  # never another signal's history
    for f in set(saved[signal]) - {field}:
        if (field, f) == ("s3", "s3_last") and not back["runway"]["s3"]["points"]:
            assert back["runway"]["s3_last"] == {}  # the last counters, of no use without the trend
            continue
        assert back[signal][f] == saved[signal][f], f
    if key is not None:
        rows, before = dict(back[signal][field]), dict(saved[signal][field])
        kept = rows.pop(key, ABSENT)
        before.pop(key)
        assert rows == before  # never another row
    else:
        kept = back[signal][field]
    if same(kept, value):
        assert problems == []  # read as written: the right value
    else:
        assert len(problems) == 1 and len(problems[0].splitlines()) == 1, problems
        # Dropped: absent, an empty history, the value a state starts with, or a bucket's row
        # that counts nothing when the bucket is seen again.
        fresh = plain(DerivationState(TH).durable())[signal]
        assert kept in (ABSENT, list(UNREAD_ROW)) or same(kept, fresh[field]), kept
        assert (kept == list(UNREAD_ROW)) == (field == "buckets")


@functools.cache
def study_poll_read() -> tuple[dict[str, Any], list[str], list[str]]:
    """The saved bucket poll as read back whole (the reference), its bucket keys and owners, sorted."""
    poll = BucketPoll.from_dict(study_poll())
    part = study_snapshot(1000.0, buckets=100_000).buckets
    assert part is not None and {k: e.bucket for k, e in poll.entries.items()} == {b.key: b for b in part.buckets}
    return {k: e.bucket for k, e in poll.entries.items()}, sorted(poll.entries), sorted(poll.users.quotas)


@settings(max_examples=15, deadline=None, phases=NO_SHRINK)
@given(data=st.data())
def test_a_hostile_row_of_the_saved_bucket_poll_reads_its_bucket_again_and_keeps_the_rest(data):
    saved_poll, (reference, keys, owners) = study_poll(), study_poll_read()
    table = data.draw(st.sampled_from(["buckets", "quotas", "read_at"]))
    rows = saved_poll["buckets"] if table == "buckets" else saved_poll["users"][table]
    key = (keys if table == "buckets" else owners)[data.draw(st.integers(0, len(rows) - 1))]
    value = hostile_edit(data.draw, rows[key])
    edited = {**saved_poll, "users": {**saved_poll["users"]}}
    if table == "buckets":
        edited["buckets"] = {**rows, key: value}
    else:
        edited["users"][table] = {**rows, key: value}
    problems: list[str] = []
    poll = BucketPoll.from_dict(edited, problems)
    assert set(poll.entries) == set(reference)  # every bucket still known
    kept = {k: e.bucket for k, e in poll.entries.items()}
    users = plain(poll.users.to_dict())
    if table == "buckets":
        back = plain(to_table({key: poll.entries[key]})).get(key, ABSENT)
        assert kept.pop(key) is None or same(back, value)
        assert kept == {k: b for k, b in reference.items() if k != key}  # never another row
        assert users == saved_poll["users"]
        if same(back, value):
            assert problems == []  # read as written: the right value
        else:
            # Listed and not read: read again within the budget, never shown as 0 meanwhile.
            assert poll.entries[key].bucket is None and not poll.entries[key].fresh
            assert len(problems) == 1 and problems[0].startswith("bucket poll rows: 1 of 100,000"), problems
        return
    assert kept == reference
    assert set(users["quotas"]) - {key} == set(saved_poll["users"]["quotas"]) - {key}
    if same(users[table].get(key, ABSENT), value):
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith("user quotas: 1 of 2,000"), problems
        if table == "quotas":  # its owner is read again, as one never read: its quota never taken for none
            assert key not in users["quotas"] and key not in users["read_at"]
        else:
            assert key not in users["read_at"] and key in users["quotas"]


def test_a_state_that_is_not_a_table_is_one_error_and_a_signal_not_a_table_starts_afresh():
    saved = study_state()
    for broken in ([], "x", None, 10**400):
        with pytest.raises(ValueError, match="unsupported state version"):
            DerivationState(TH).restore(broken)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="unsupported bucket poll state version"):
            BucketPoll.from_dict(broken)  # type: ignore[arg-type]
    state = DerivationState(TH)
    problems = state.restore({**saved, "reshard": [1, 2]})
    assert problems == [
        "signal reshard: saved state unreadable (TypeError: a table was expected, not list); it starts afresh"
    ]
    assert same(plain(state.durable())["tenants"], saved["tenants"])


@pytest.mark.parametrize(
    "text, logged",
    [
        ("[]", "unsupported state version 'none: a list'"),
        ("[" * 100_000 + "]" * 100_000, "RecursionError"),  # nested past Python's limit
        ('{"version": 1, "reshard": {"events": 1e400, "buckets": {"b": ["m", "i", 11, 0, 5.0]}}}', "'events'"),
    ],
)
def test_the_sidecar_starts_on_any_state_file_and_logs_what_it_dropped(tmp_path, caplog, text, logged):
    """Before, a state file holding a JSON list, or a number past any float, stopped the sidecar
    at its start (AttributeError, OverflowError); now the rest is kept, with one line."""
    from exporter.sidecar.collector import Collector
    from exporter.sidecar.sources import BucketsSource, SourceContext
    from tests.bench.test_fast_paths import FixtureCeph

    path = tmp_path / "state.json"
    path.write_text(text)
    (tmp_path / "state.json.buckets").write_text(text.replace('"reshard": {', '"buckets": {"t/b": 1e400}, "x": {'))
    with caplog.at_level(logging.INFO):
        collector = Collector([], TH, fsid="11111111-2222-3333-4444-555555555555", state_file=str(path))
        BucketsSource(SourceContext(ceph=FixtureCeph(b""), rgw=None, state_file=str(path)))
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 2 and logged in lines[0] and "bucket poll state" in lines[1], lines
    if text.startswith("{"):  # the bucket row read, the events counted afresh
        assert collector.state.signals["reshard"].buckets == {"b": ("m", "i", 11, 0, 5.0)}
        assert collector.state.signals["reshard"].events == 0


def test_a_saved_state_of_another_cluster_is_dropped_when_the_fsid_is_first_seen():
    """Two sidecars given one --state-file path, or a file copied along with a configuration:
    before, the second cluster took the first one's reshard table, trends and busiest load as
    its own (its runways and plan from another cluster's growth). The saved state names its
    cluster now; a derivation that sees another fsid drops it before it forecasts or counts."""
    saved = study_state()  # the study cluster's, fsid f00
    assert saved["fsid"] == "f00"
    snap = study_snapshot(1200.0, buckets=100_000, grow=3)
    for fsid, ours in (("f00", True), ("", True), ("0b5e...other", False)):
        state = DerivationState(TH)
        assert state.restore(saved) == []
        if not fsid:  # unknown at the start (no fsid in ceph.conf), then read from the OSD map
            derive(dataclasses.replace(snap, fsid="", osd_map=None), state, TH)
            assert state.take_notices() == [] and state.fsid == "f00"
            fsid = "f00"
        derive(dataclasses.replace(snap, fsid=fsid), state, TH)
        notices = state.take_notices()
        reshard = state.signals["reshard"]
        if ours:
            assert notices == [] and reshard.events >= saved["reshard"]["events"]
            assert len(reshard.buckets) == 100_000 and len(state.signals["runway"].used.points) > 1
        else:
            assert len(notices) == 1 and "cluster f00's, not this cluster's (0b5e...other)" in notices[0]
            assert reshard.events == 0 and not state.signals["runway"].used.points[:-1]
            assert state.durable()["fsid"] == "0b5e...other"  # saved as this cluster's from now on


def test_the_sidecar_says_once_that_its_state_file_was_another_clusters(tmp_path, caplog):
    from exporter.sidecar.collector import Collector

    path = tmp_path / "state.json"
    path.write_text(json.dumps(study_state()))
    other = "11111111-2222-3333-4444-555555555555"
    with caplog.at_level(logging.INFO):
        collector = Collector([], TH, fsid=other, state_file=str(path))
        for _ in range(3):
            collector.derive_now()
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and f"not this cluster's ({other})" in lines[0], lines
    assert json.loads(path.read_text())["fsid"] == other and collector.state.signals["reshard"].buckets == {}


def test_reshard_rows_that_do_not_read_count_no_reshard_when_their_buckets_are_seen_again():
    """A dropped row made its bucket new to the count: a bucket created after the watch began,
    first seen with generation 3, added 3 reshards that were counted long before (the review's
    case). 1,000 of the study's 100,000 rows broken: the next poll counts what the intact state
    counts at most, and the rows are whole again after it."""
    saved = study_state()
    snap = study_snapshot(1200.0, buckets=100_000, grow=3)
    broken = dict(saved["reshard"]["buckets"])
    for key in reshard_keys()[::100]:
        broken[key] = [*broken[key][:4], "x"]
    counted = []
    for rows in (saved["reshard"]["buckets"], broken):
        state = DerivationState(TH)
        problems = state.restore({**saved, "reshard": {**saved["reshard"], "buckets": rows}})
        derive(snap, state, TH)
        counted.append((state.signals["reshard"].events, len(problems)))
        whole = {k: list(v) for k, v in state.signals["reshard"].buckets.items()}
    # Never more than the intact state counts; less by what the broken rows' buckets did since.
    assert counted[0][1] == 0 and counted[1][1] == 1 and counted[0][0] - 1000 <= counted[1][0] <= counted[0][0]
    intact = DerivationState(TH)
    intact.restore(saved)
    derive(snap, intact, TH)
    assert whole == {k: list(v) for k, v in intact.signals["reshard"].buckets.items()}
    # The review's case itself: a bucket created after the watch began, at generation 3.
    b = dataclasses.replace(snap.buckets.buckets[0], index_gen=3, created="2026-01-01T00:00:00.000000Z")
    for row in (["id", "id", 11, 3, 1900.0], ["id", "id", 11, 3, "1900"]):
        state = DerivationState(TH)
        state.restore(
            {"version": 1, "reshard": {"events": 3, "seen_at": 1.95e9, "watch_start": 1e9, "buckets": {b.key: row}}}
        )
        state.signals["reshard"].observe(2e9, (dataclasses.replace(b, bucket_id="id", marker="id"),))
        assert state.signals["reshard"].events == 3, row


def test_user_quotas_saved_as_anything_but_a_table_read_every_owner_again():
    from ceph_scale.core.user_quotas import UserQuotaReads

    for quotas in (None, [], "x"):
        problems: list[str] = []
        reads = UserQuotaReads.from_dict({"read_at": {"u": 5.0, "v": 6.0}, "quotas": quotas}, problems)
        assert reads.read_at == {} and reads.quotas == {}, quotas  # every owner read again, none taken for none
        assert len(problems) == 1 and "a table was expected" in problems[0], problems
    # Saved with no quota table at all (nothing writes that): every owner read again, too.
    assert UserQuotaReads.from_dict({"read_at": {"u": 5.0}}, problems := []).read_at == {} and not problems


DAY = 86_400.0
JAN_1 = 1_767_225_600.0  # 2026-01-01T00:00:00Z


def lost_table_case() -> tuple[dict[str, Any], tuple[Any, ...], int]:
    """(a reshard state saved on Jan 3 of a watch begun on Jan 1, where 5 buckets created on Jan 2
    reshard to generation 3 among 200 older ones; the next poll's buckets; the events counted)."""
    from ceph_scale.core.signals.reshard.derive import ReshardState
    from ceph_scale.core.snapshot import Bucket

    def bucket(i: int, gen: int, created: str = "2026-01-02T00:00:00.000000Z") -> Bucket:
        return Bucket(f"b{i}", "", f"id{i}", 11, 1, marker=f"id{i}", created=created, index_gen=gen)

    old = [bucket(i, 0, "2020-01-01T00:00:00Z") for i in range(200)]
    state = ReshardState()
    state.observe(JAN_1, tuple(old))
    state.observe(JAN_1 + 1.5 * DAY, (*old, *(bucket(1000 + i, 0) for i in range(5))))
    now = (*old, *(bucket(1000 + i, 3) for i in range(5)))
    state.observe(JAN_1 + 2 * DAY, now)
    assert state.events == 15
    return plain(state.to_dict()), now, state.events


def test_a_reshard_table_lost_whole_counts_none_of_its_buckets_again():
    """`"buckets": null` made all 205 buckets new to the next poll, and the 5 created since the
    watch began added their 3 reshards each again: 30 counted for 15 (the second review's case).
    The third review's: the loss must hold through a save before the next poll, a poll that holds
    the 5 as unread, and an empty one."""
    from ceph_scale.core.signals.reshard.derive import ReshardState

    saved, now, counted = lost_table_case()
    later = (*now[:200], *(dataclasses.replace(b, index_gen=4) for b in now[200:]))  # one reshard each
    unread = frozenset(b.key for b in now[200:])
    for buckets in (saved["buckets"], None, "x"):
        for between in ("nothing", "a save", "an unread poll", "an empty poll"):
            problems: list[str] = []
            state = ReshardState.from_dict({**saved, "buckets": buckets}, problems)
            t = JAN_1 + 3 * DAY
            if between == "a save":
                state = ReshardState.from_dict(plain(state.to_dict()))
            elif between != "nothing":
                state.observe(t, now[:200], unread if between == "an unread poll" else frozenset())
                t += DAY
            state.observe(t, now)
            assert state.events == counted, (buckets, between)
            assert len(problems) == (buckets is not saved["buckets"]), problems
            state.observe(t + DAY, later)  # the next reshards count again
            assert state.events == counted + 5, (buckets, between)
    # A bucket created while no one watched, after the last poll seen, counts its reshards.
    state = ReshardState.from_dict({**saved, "buckets": None})
    made = dataclasses.replace(now[0], name="new", bucket_id="idn", marker="idn", created="2026-01-04T00:00:00Z")
    state.observe(JAN_1 + 4 * DAY, (*now, dataclasses.replace(made, index_gen=2)))
    assert state.events == counted + 2
