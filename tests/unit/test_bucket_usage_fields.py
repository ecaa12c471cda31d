"""The owner, size and quota fields of every release's captured bucket stats, each mutated every
way: the parser gives the value the oracle reads, or one InputError line naming the field;
never a silent zero or a silent "no quota". The durable bucket table keeps them across a restart."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from ceph_scale.core import inputs
from ceph_scale.core.bucket_entries import OLD_ROW, Entry, from_table, to_table
from ceph_scale.core.snapshot import Bucket
from tests.unit.test_parser_oracles import RELEASES, Broken, bucket, dotted, load, names
from tests.unit.test_parser_properties import edited, names_field

FIELDS = (
    ("owner",),
    ("tenant",),
    ("bucket_quota",),
    ("bucket_quota", "enabled"),
    ("bucket_quota", "max_size"),
    ("bucket_quota", "max_objects"),
    ("usage", "rgw.main", "size_actual"),
    ("usage", "rgw.main"),
)
VALUES: tuple[object, ...] = (0, 1, 7, -1, -5, 2**40, 1.0, 1.5, True, False, "12", "x", "", None, {}, [],
                              {"enabled": True})  # fmt: skip
DELETE = object()


def enabled(doc: dict, max_size: int, max_objects: int) -> dict:
    return {**doc, "bucket_quota": {**doc["bucket_quota"], "enabled": True, "max_size": max_size,
                                    "max_objects": max_objects}}  # fmt: skip


def captured(release: str) -> dict:
    return load(release, "admin_api_bucket_stats.json")[0]


def bases(release: str) -> list[dict]:
    """The capture without quota, the same with one set here, and every quota shape and owner
    (`tenant$user`) the release itself wrote (cluster/capture_quotas.py)."""
    doc = captured(release)
    real = [load(release, n) for n in names(release, "admin_api_bucket_quota_*.json")]
    real += [load(release, n) for n in names(release, "bucket_stats_quota_*.json")]
    return [doc, enabled(doc, 10**9, 5000), *real]


def reachable(doc: dict, path: tuple) -> bool:
    """Whether the field's parent is there to change (an empty bucket has no `rgw.main`)."""
    for key in path[:-1]:
        if not isinstance(doc, dict) or key not in doc:
            return False
        doc = doc[key]
    return isinstance(doc, dict)


def cases():
    for release in RELEASES:
        for base in bases(release):
            fields = [f for f in FIELDS if reachable(base, f)]
            for path, value in itertools.product(fields, (*VALUES, DELETE)):
                yield release, base, path, value


def mutated(doc: dict, path: tuple, value):
    def change(container, key):
        if value is DELETE:
            container.pop(key, None)
        else:
            container[key] = value

    return edited(doc, path, change)


@pytest.mark.parametrize("release", RELEASES)
def test_a_mutated_owner_size_or_quota_is_read_right_or_refused_naming_it(release):
    checked = 0
    for rel, base, path, value in cases():
        if rel != release:
            continue
        doc = mutated(base, path, value)
        try:
            expected, broken = bucket(doc, (), 0.0), None
        except Broken as e:
            expected, broken = None, e.path
        try:
            got = inputs.bucket_record(doc, 0.0)
        except inputs.InputError as e:
            assert broken is not None, f"{path}={value!r}: refused valid input: {e}"
            assert "\n" not in str(e)
            assert names_field(str(e), dotted("bucket_stats", broken)), f"{path}={value!r}: {e}"
        else:
            assert broken is None, f"{path}={value!r}: accepted though {broken} is broken: {got}"
            assert got == expected, f"{path}={value!r}"
        fast = inputs._bucket_fast(doc, 0.0)
        assert fast is None or fast == got
        checked += 1
    fields = sum(reachable(base, f) for base in bases(release) for f in FIELDS)
    assert checked == fields * (len(VALUES) + 1) and len(bases(release)) >= 2 + 2 * 5


@pytest.mark.parametrize("release", RELEASES)
def test_the_captured_records_give_their_bytes_owner_and_quota(release):
    doc = captured(release)
    b = inputs.bucket_record(doc, 0.0)
    assert (b.owner, b.size_bytes, b.quota_bytes, b.quota_objects) == (
        doc["owner"], doc["usage"]["rgw.main"]["size_actual"], -1, -1)  # fmt: skip
    assert b.size_bytes > 0  # the capture holds 300 objects: a silent zero would show here
    q = inputs.bucket_record(enabled(doc, 10**9, 5000), 0.0)
    assert (q.quota_bytes, q.quota_objects) == (10**9, 5000)
    # Set and disabled: RGW applies none, and neither does the signal.
    assert inputs.bucket_record({**doc, "bucket_quota": {**doc["bucket_quota"], "max_size": 5}}, 0.0).quota_bytes == -1


def test_the_bucket_table_keeps_bytes_and_quotas_and_reads_an_older_row_again():
    e = Entry(42)
    e.bucket = Bucket("b", "t", "id", 11, 300, "t$u", "id", "2026-01-01T00:00:00Z", 2, 100.0, 1_228_800, 10**9, -1)
    e.read_fp = 42
    table = to_table({"t/b": e})
    assert from_table(table)["t/b"].bucket == e.bucket
    old = {"t/b": table["t/b"][:OLD_ROW]}  # saved before the bytes and quotas were kept
    restored = from_table(old)["t/b"]
    assert restored.bucket is None and restored.read_fp == -1 and restored.listed_fp == 42
    # A row that does not read (bytes below 0) is its bucket listed and not read, and one line.
    problems: list[str] = []
    unread = from_table({"t/b": [*table["t/b"][:-3], -3, -1, -1], "t/c": table["t/b"]}, problems)
    assert unread["t/b"].bucket is None and unread["t/b"].read_fp == -1 and not unread["t/b"].fresh
    assert unread["t/c"].bucket == dataclasses.replace(e.bucket, name="c")
    assert problems == [
        "bucket poll rows: 1 of 2 saved rows unreadable, dropped (first 't/b': ValueError: not a count from 0: -3)"
    ]
