"""Memory for any RGW or Ceph response stays under the bound core/json_bound.py documents:
the raw body plus BUDGET_RATIO x the byte cap, whatever the body's shape.

Each hostile body is 8 MB, and the cap scaled down to it (rgw.max_response_mb = 8, a bound
of 48 MB): unbounded, each would decode to 9 to 33 times its size, 72 to 260 MB. The peak
is traced (tracemalloc) around the decode, the raw body made before.
"""

from __future__ import annotations

import json
import re
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from ceph_scale.core import inputs, json_bound
from ceph_scale.core.json_stream import iter_json_array
from ceph_scale.io.admin_ops import AdminOps, AdminOpsError, instances_by_bucket
from ceph_scale.io.radosgw_admin import RadosgwAdminBuckets, RadosgwAdminError
from exporter.sidecar.ceph_client import CephCommandError, _decode

MB = 1 << 20
SIZE = 8 * MB
BOUND = json_bound.BUDGET_RATIO * SIZE


def repeat(unit: bytes, size: int = SIZE) -> bytes:
    n = (size - 2) // (len(unit) + 1)
    return b"[" + (unit + b",") * (n - 1) + unit + b"]"


HOSTILE: dict[str, Callable[[int], bytes]] = {
    "empty dicts": lambda size: repeat(b"{}", size),
    "empty lists": lambda size: repeat(b"[]", size),
    "dicts of a dict": lambda size: repeat(b'{"":{}}', size),
    "deep nesting": lambda size: b"[" * (size // 2) + b"]" * (size // 2),
    "tiny floats": lambda size: repeat(b"0.0", size),
    "tiny strings": lambda size: repeat(b'"ab"', size),
    "a million keys": lambda size: b"{" + b",".join(b'"%x":0' % i for i in range(size // 9)) + b"}",
}


def traced_peak(call: Callable[[], Any]) -> tuple[int, Any]:
    """The traced peak of call() in bytes, and what it returned or raised."""
    tracemalloc.start()
    try:
        outcome: Any = call()
    except Exception as e:  # noqa: BLE001 - the outcome is asserted by the caller
        outcome = e
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak, outcome


@pytest.mark.parametrize("shape", HOSTILE)
def test_an_admin_ops_body_of_any_shape_stays_within_the_decode_bound(shape):
    raw = HOSTILE[shape](SIZE)
    ops = AdminOps("http://rgw.invalid", "a", "b", max_response_mb=SIZE // MB)
    peak, outcome = traced_peak(lambda: ops.decode("/admin/metadata/bucket", raw))
    assert peak <= BOUND, f"{shape}: decoding took {peak / MB:.0f} MB, over the {BOUND / MB:.0f} MB bound"
    assert isinstance(outcome, AdminOpsError), outcome
    assert len(str(outcome).splitlines()) == 1
    assert str(outcome).startswith("RGW Admin Ops /admin/metadata/bucket: ")
    assert f"over the {BOUND // MB} MB bound" in str(outcome)


@pytest.mark.parametrize("shape", ["empty dicts", "tiny strings", "a million keys"])
def test_a_ceph_command_or_radosgw_admin_output_stays_within_the_decode_bound(shape, monkeypatch, tmp_path):
    monkeypatch.setattr(json_bound, "DEFAULT_BUDGET", BOUND)
    raw = HOSTILE[shape](SIZE)
    peak, outcome = traced_peak(lambda: _decode("pg dump", raw))
    assert peak <= BOUND and isinstance(outcome, CephCommandError), (peak, outcome)
    assert re.match(r"`ceph pg dump`: \d+ MB of JSON would decode to ~\d+ MB, over the 48 MB bound$", str(outcome))

    out = tmp_path / "listing.json"
    out.write_bytes(raw)
    reader = RadosgwAdminBuckets(lambda args: ["sh", "-c", 'cat "$0"', str(out)])
    peak, outcome = traced_peak(lambda: reader.list_instances(lambda: 30.0))
    assert peak <= BOUND + 2 * SIZE, peak  # the tool's output, read whole, and the decode
    assert isinstance(outcome, RadosgwAdminError) and "over the 48 MB bound" in str(outcome), outcome


def test_a_pg_dump_whose_pieces_are_hostile_is_refused_within_the_bound(monkeypatch):
    """A piece the chunked decode cuts is bounded too: `}, {` after 8 MB of `[[],...]` inside an element."""
    monkeypatch.setattr(json_bound, "DEFAULT_BUDGET", BOUND)
    raw = b'{"pg_ready":true,"pg_stats":[{"a":' + repeat(b"[]") + b'},{"a":0}]}'
    peak, outcome = traced_peak(lambda: inputs.pg_part_from_json(raw, 0.0, lambda r: _decode("pg dump", r)))
    assert peak <= BOUND + 2 * SIZE, peak  # a piece is cut from the body: a copy of it
    assert isinstance(outcome, CephCommandError) and "over the 48 MB bound" in str(outcome), outcome


def test_nesting_too_deep_for_the_decoder_is_one_line_not_a_traceback():
    raw = b"[" * 200_000 + b"]" * 200_000  # within the budget, past the interpreter's recursion limit
    with pytest.raises(AdminOpsError, match=r"^RGW Admin Ops /x: invalid JSON: JSON nested too deep to decode$"):
        AdminOps("http://rgw.invalid", "a", "b").decode("/x", raw)
    with pytest.raises(CephCommandError, match=r"^`ceph osd dump` returned invalid JSON: JSON nested too deep"):
        _decode("osd dump", raw)


def test_an_integer_too_long_is_one_line():
    with pytest.raises(AdminOpsError, match=r"^RGW Admin Ops /x: invalid JSON: .*4300"):
        AdminOps("http://rgw.invalid", "a", "b").decode("/x", b"[" + b"1" * 5000 + b"]")


SHAPES_FOR_PROJECTION: dict[str, Callable[[int], bytes]] = {
    **{name: make for name, make in HOSTILE.items() if name != "deep nesting"},
    "deep nesting": lambda size: b"[" * 900 + b"]" * 900,
    "dicts of six lists": lambda size: repeat(b'{"a":[],"b":[],"c":[],"d":[],"e":[],"f":[]}', size),
    "singleton lists": lambda size: repeat(b"[0]", size),
    "ints": lambda size: repeat(b"1000", size),
    "a wide string": lambda size: b'["' + b"a" * (size - 10) + "\U0001f600".encode() + b'"]',
    "wide strings": lambda size: repeat('"a\U0001f600"'.encode(), size),
    "an escape widening a long string": lambda size: b'["' + b"a" * (size - 30) + b'\\ud83d\\ude00"]',
    "escaped newlines": lambda size: b'["' + b"\\n" * (size // 2 - 10) + b'"]',
    "escaped wide characters": lambda size: repeat(b'"\\u0100"', size),
}


@pytest.mark.parametrize("shape", SHAPES_FOR_PROJECTION)
def test_the_projection_is_never_below_what_the_decode_takes(shape):
    """The per-item costs hold on this interpreter (CPython 3.11 and 3.13 measured)."""
    raw = SHAPES_FOR_PROJECTION[shape](MB)
    peak, value = traced_peak(lambda: json.loads(raw))
    assert not isinstance(value, Exception), value
    # Without the fixed allowance, but for 64 KiB: the per-item costs alone must hold.
    assert peak <= json_bound.projected_bytes(raw) - json_bound.BASE + 64 * 1024, f"{shape} on {sys.version_info[:2]}"


def synthetic_listings(buckets: int) -> tuple[bytes, bytes]:
    """The bucket poll's two listings as bench/synth/writer.py writes them (its names and ids)."""
    zone = "2c7f9a10-6d3e-4b8a-a1f2-7e5d4c3b2a19"
    names = [f"s3bench-{b:07d}" for b in range(buckets)]
    instances = [f"{n}:{zone}.{4100 + b}.{b + 1}" for b, n in enumerate(names)]
    return json.dumps(names).encode(), json.dumps(instances).encode()


def test_the_study_scale_listings_decode_as_before():
    """100,000 buckets' listings, whole as radosgw-admin prints them, are far under the bound."""
    ops = AdminOps("http://rgw.invalid", "a", "b")
    for raw in synthetic_listings(100_000):
        assert ops.decode("/admin/metadata/bucket", raw) == json.loads(raw)
        assert _decode("metadata list", raw) == json.loads(raw)
        assert json_bound.projected_bytes(raw) < json_bound.DEFAULT_BUDGET / 10


def test_a_listing_at_the_cap_decodes():
    """Bucket names project to under BUDGET_RATIO times their size: a listing up to the cap decodes."""
    names, instances = synthetic_listings(300_000)
    for raw in (names, instances):
        assert json_bound.projected_bytes(raw) - json_bound.BASE < json_bound.BUDGET_RATIO * len(raw)


def test_a_chunked_pg_dump_is_the_full_decode():
    stats = [{"pgid": f"1.{i:x}", "state": "active+clean", "n": [i, {"x": "é"}]} for i in range(3000)]
    raw = json.dumps({"pg_ready": True, "pg_stats": stats}).encode()
    assert list(iter_json_array(raw, "pg_stats", 4096) or []) == stats


def test_instances_by_bucket_joins_the_listings_a_page_at_a_time():
    buckets = [["a", "t/b"], ["c", "a"]]
    instances = [["a:2", "t/b:1", "gone:9"], ["a:1", "a:2"]]
    assert instances_by_bucket(buckets, instances) == {"a": ("1", "2", "2"), "t/b": ("1",), "c": ()}
    with pytest.raises(inputs.InputError, match="expected"):
        instances_by_bucket([["a"]], [["no-instance"]])


def test_the_counters_text_of_short_lines_is_read_without_a_list_of_every_line():
    """The mgr module's and ceph-exporter's text: a body of short lines made a list of every
    line first, 20x the body."""
    from ceph_scale.core.parse_perf import counters_from_prometheus_text

    text = "ab\n" * (SIZE // 3)
    peak, counters = traced_peak(lambda: counters_from_prometheus_text(text))
    assert counters == {}
    assert peak < 3 * len(text), f"{peak / len(text):.1f}x the body"


def test_the_counters_text_naming_too_many_daemons_is_one_line(monkeypatch):
    from ceph_scale.core import parse_perf

    monkeypatch.setattr(parse_perf, "MAX_DAEMONS", 3)
    lines = "".join(f'ceph_bluefs_db_used_bytes{{ceph_daemon="osd.{i}"}} 1.0\n' for i in range(5))
    with pytest.raises(inputs.InputError, match=r"line 4: more than 3 daemons"):
        parse_perf.counters_from_prometheus_text(lines)


def test_the_counters_text_is_read_in_pieces_as_one():
    from ceph_scale.core import parse_perf

    text = "".join(f'ceph_bluefs_db_used_bytes{{ceph_daemon="osd.{i}"}} {i}.0\r\n\n' for i in range(2000))
    whole = parse_perf.counters_from_prometheus_text(text)
    original = parse_perf._LINES_CHUNK
    try:
        parse_perf._LINES_CHUNK = 7  # a piece every line or so, cut anywhere but within a line
        assert list(parse_perf._lines(text)) == text.splitlines()
        assert parse_perf.counters_from_prometheus_text(text) == whole
    finally:
        parse_perf._LINES_CHUNK = original
