"""The performance changes made for the scale benchmark give exactly what the slow paths gave.

- parse_stamp's fast path for Pacific's fixed stamp format == strptime's value;
- pg_part / buckets_part's fast record paths == the checked ones (values and errors);
- the chunked decode of `pg dump` and bucket stats == decoding them whole (values and errors);
- the pgs and buckets sources read raw bytes and give the parts they gave before;
- /metrics: gzip when asked (cached per exposition), the same bytes otherwise, no Nagle delay.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import urllib.request
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ceph_scale.core import inputs
from ceph_scale.core.json_stream import iter_json_array
from ceph_scale.io.admin_ops import AdminOps
from exporter.sidecar.ceph_client import CephClient, CephCommandError, _decode
from exporter.sidecar.http_server import accepts_gzip, make_handler, serve
from exporter.sidecar.sources import BucketsSource, Deadline, PgsSource, SourceContext

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "pacific"
VARIANTS = ("", "_queued", "_resharded")


def slow_stamp(value, path="x"):
    """parse_stamp without the fast path: strptime over the four formats."""
    return inputs.stamp_by_formats(inputs._str(value, path).strip(), path)


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as e:
        return ("error", type(e).__name__, str(e))


# --- stamps -------------------------------------------------------------------------


def fixture_stamps() -> set[str]:
    out = set()
    for v in VARIANTS:
        for pg in json.loads((FIX / f"pg_dump_pgs{v}.json").read_text())["pg_stats"]:
            out |= {value for key, value in pg.items() if key.endswith("_stamp") or key.startswith("last_")}
    return {s for s in out if isinstance(s, str) and "T" in s}


def test_fast_stamp_equals_strptime_on_every_fixture_stamp():
    stamps = fixture_stamps()
    assert len(stamps) > 50
    for s in stamps:
        fast = inputs._pacific_stamp(s)
        assert fast is not None and fast == slow_stamp(s), s
        assert inputs.parse_stamp(s, "x") == slow_stamp(s)


@pytest.mark.parametrize(
    "s",
    [
        "2026-11-22T21:13:27.243640+0000",
        "1970-01-01T00:00:00.000000+0000",
        "2024-02-29T23:59:59.999999-0130",
        "2026-11-22T21:13:27.243640+2359",
        "0001-01-01T00:00:00.000000+0000",
        "9999-12-31T23:59:59.999999+0000",
        "2026-11-22t21:13:27.243640+0000",  # strptime matches literals case-insensitively
        "2026-11-22T24:00:00.000000+0000",
        "2026-11-22T23:60:00.000000+0000",
        "2026-11-22T23:59:60.000000+0000",
        "2026-11-22T23:59:61.000000+0000",
        "2026-11-22T21:13:27.243640+2400",
        "2026-W47-1T21:13:27.243640+0000",  # fromisoformat reads ISO week dates
        "2026-11-22x21:13:27.243640+0000",  # ... and any separator
        "2026-11-22T21:13:27.243640+00:0",
        "2026-11-22T21:13:27.243640+00,0",
        "2026-11-22T21:13:27.243640+0,00",
        "2026-11-22T21:13:27.243640+0 00",
        "2026-11-22T21:13:27.243640Z0000",
        "2026-11-22T21:13:27.2436+000000",
        "2026-11-31T21:13:27.243640+0000",
        "2026-11-22T21:13:27.243640+0060",
        "2023-02-29T00:00:00.000000+0000",
        "2026-13-01T00:00:00.000000+0000",
        "2026-00-01T00:00:00.000000+0000",
        "0000-01-01T00:00:00.000000+0000",
        "2026-11-22T21:13:27.24364a+0000",
        "2026-11-22T21:13:27.２43640+0000",
        "2026-11-22T21:13:27+0000",
        "2026-11-22 21:13:27.243640",
        "2026-11-22 21:13:27",
        "  2026-11-22T21:13:27.243640+0000 ",
        "0.000000",
        "",
    ],
)
def test_parse_stamp_keeps_its_values_and_errors_at_the_edges(s):
    assert outcome(inputs.parse_stamp, s, "x") == outcome(slow_stamp, s, "x")


STAMPISH = st.builds(
    lambda y, mo, d, h, mi, se, us, sign, oh, om: (
        f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{se:02d}.{us:06d}{sign}{oh:02d}{om:02d}"
    ),
    st.integers(0, 9999),
    st.integers(0, 13),
    st.integers(0, 32),
    st.integers(0, 25),
    st.integers(0, 61),
    st.integers(0, 62),
    st.integers(0, 999999),
    st.sampled_from("+-"),
    st.integers(0, 25),
    st.integers(0, 61),
)


@given(STAMPISH)
@settings(max_examples=600, deadline=None)
def test_parse_stamp_equals_strptime_on_any_pacific_shaped_stamp(s):
    assert outcome(inputs.parse_stamp, s, "x") == outcome(slow_stamp, s, "x")


@given(st.text(alphabet="0123456789-:T.+ Zt", max_size=34))
@settings(max_examples=600, deadline=None)
def test_parse_stamp_equals_strptime_on_near_miss_text(s):
    assert outcome(inputs.parse_stamp, s, "x") == outcome(slow_stamp, s, "x")


@given(
    st.sampled_from(sorted(fixture_stamps())),
    st.lists(
        st.tuples(st.integers(0, 30), st.sampled_from(list("0123456789-:T.+ZtWx,２ ") + ["5", "6", "9"])),
        min_size=1,
        max_size=3,
    ),
)
@settings(max_examples=800, deadline=None)
def test_parse_stamp_equals_strptime_on_real_stamps_with_characters_changed(stamp, changes):
    """The captured stamps with one to three characters replaced: separators, digits, ISO's week
    and zone letters, a wide digit. Whatever takes the fast path must give strptime's value, and
    whatever strptime refuses must stay refused."""
    chars = list(stamp)
    for at, c in changes:
        chars[at % len(chars)] = c
    s = "".join(chars)
    assert outcome(inputs.parse_stamp, s, "x") == outcome(slow_stamp, s, "x")


# --- record fast paths ----------------------------------------------------------------


def checked_pg_part(pg_dump, t):
    stats = pg_dump["pg_stats"] if isinstance(pg_dump, dict) else pg_dump
    return inputs.PgPart(collected_at=t, pgs=tuple(inputs._pg_checked(s, i) for i, s in enumerate(stats)))


def checked_buckets_part(stats, t):
    records = tuple(inputs._bucket_checked(b, i, stats_at=t) for i, b in enumerate(stats))
    return inputs.BucketsPart(collected_at=t, buckets=records)


@pytest.mark.parametrize("v", VARIANTS)
def test_fast_record_paths_equal_the_checked_ones_on_the_fixtures(v):
    pg = json.loads((FIX / f"pg_dump_pgs{v}.json").read_text())
    assert inputs.pg_part(pg, 5.0) == checked_pg_part(pg, 5.0)
    assert all(inputs._pg_fast(s) is not None for s in pg["pg_stats"])  # the fast path is the one taken
    for name in (f"admin_api_bucket_stats{v}.json", f"bucket_stats{v}.json"):
        buckets = json.loads((FIX / name).read_text())
        assert inputs.buckets_part(buckets, 5.0) == checked_buckets_part(buckets, 5.0)
        assert all(inputs._bucket_fast(b, 5.0) is not None for b in buckets)


ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**12),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.just("12"),
    st.just(" 7 "),
    st.just("2026-11-22T21:13:27.243640+0000"),
    st.just("2020-02-04 10:20:30.123456"),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["num_objects", "rgw.main", "x"]), st.integers(0, 5), max_size=2),
)


@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["pgid", "state", "last_scrub_stamp", "last_deep_scrub_stamp"]), ODD_VALUES, max_size=4
        ).map(
            lambda d: {
                "pgid": "3.1f",
                "state": "active+clean",
                "last_scrub_stamp": "2026-11-22T21:13:27.243640+0000",
                "last_deep_scrub_stamp": "2026-11-20T01:02:03.000001+0100",
                **d,
            }
        ),
        max_size=4,
    )
)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_pg_part_values_and_errors_unchanged_on_odd_records(stats):
    assert outcome(inputs.pg_part, {"pg_stats": stats}, 1.0) == outcome(checked_pg_part, {"pg_stats": stats}, 1.0)


@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["bucket", "id", "num_shards", "usage", "tenant", "owner", "marker"]),
            ODD_VALUES,
            max_size=4,
        ).map(lambda d: {"bucket": "b", "id": "z.1", "num_shards": 11, "marker": "z.1", **d}),
        max_size=4,
    )
)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_buckets_part_values_and_errors_unchanged_on_odd_records(stats):
    # buckets_part turns unforeseen errors into InputError; compare through the same wrapper.
    wrapped = inputs.refuses_bad_shapes(checked_buckets_part)
    assert outcome(inputs.buckets_part, stats, 1.0) == outcome(wrapped, stats, 1.0)


# --- chunked decode -------------------------------------------------------------------


def fixture_bytes(name: str) -> list[bytes]:
    return [(FIX / name.replace(".json", f"{v}.json")).read_bytes() for v in VARIANTS]


@pytest.mark.parametrize("chunk", [1, 7, 300, 1 << 20])
def test_chunked_decode_equals_whole_decode_on_the_fixtures(chunk):
    for raw in fixture_bytes("pg_dump_pgs.json"):
        compact = json.dumps(json.loads(raw), separators=(",", ":")).encode()
        for text in (raw, compact):  # indented as captured, compact as `ceph -f json` sends it
            assert list(iter_json_array(text, "pg_stats", chunk)) == json.loads(text)["pg_stats"]
            assert inputs.pg_part_from_json(text, 2.0) == inputs.pg_part(json.loads(text), 2.0)
    for raw in fixture_bytes("admin_api_bucket_stats.json") + fixture_bytes("bucket_stats.json"):
        assert list(iter_json_array(raw, None, chunk)) == json.loads(raw)


JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(alphabet='{}[],:"\\ab é\n', max_size=8)
)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(alphabet='{},"ab', max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(
    st.lists(st.dictionaries(st.text(alphabet='{},"ab', max_size=3), JSON_VALUE, max_size=4), max_size=8),
    st.integers(1, 64),
    st.sampled_from([(",", ":"), (", ", ": "), None]),
)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_chunked_decode_equals_whole_decode_on_any_array_of_objects(items, chunk, separators):
    indent = 1 if separators is None else None
    raw = json.dumps(items, separators=separators or (",", ": "), indent=indent, ensure_ascii=False).encode()
    try:
        got = list(iter_json_array(raw, None, chunk))
    except ValueError:
        return  # refused (e.g. too many "}" "," "{" inside an element): the caller decodes whole
    assert got == items
    wrapped = json.dumps({"pg_ready": True, "pg_stats": items}, separators=separators, indent=indent).encode()
    try:
        got = list(iter_json_array(wrapped, "pg_stats", chunk))
    except ValueError:
        return
    assert got == items


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"   ",
        b"null",
        b"[]",
        b"{}",
        b'{"pg_stats":[]}',
        b'{"pg_map":{"pg_stats":[]},"pg_stats":[]}',
        b'{"pg_stats":[{"pgid":"1.0"}],"pg_stats":[]}',
        b'{"x":{"pg_stats":[{"pgid":"1.0"}]},"pg_stats":"slot"}',
        b'{"pg_stats":[{"pgid":"1.0","state":"active","last_scrub_stamp":"0.000000","last_deep_scrub_stamp":"x"}]}',
        b'{"pg_stats":[{"pgid":"1.0"},{"pgid":',
        b'{"pg_stats":[{"pgid":"1.0"}],"extra":[1]}',
        b'\xef\xbb\xbf{"pg_stats":[]}',
        b'{"pg_stats":[{"pgid":"\xff"}]}',
        b'{"pg_stats":[{"pgid":"\xed\xa0\x80"}]}',
        b"[1,2,3]",
        b'{"pg_stats":[1,2]}',
        b'{"pg_stats":[{}],"pg_ready":true}',
    ],
)
def test_chunked_pg_part_gives_the_same_part_or_the_same_error(raw):
    def decode(b):
        return _decode("pg dump", b)

    assert outcome(inputs.pg_part_from_json, raw, 1.0, decode) == outcome(
        lambda r, t, d: inputs.pg_part(d(r), t), raw, 1.0, decode
    )


# --- the sources --------------------------------------------------------------------


class FixtureCeph(CephClient):
    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.calls: list[tuple] = []

    def command_raw(self, prefix, timeout, **args):
        self.calls.append((prefix, args))
        return self.raw


class FixtureRgw(AdminOps):
    """The bucket poll's requests answered from a captured bucket-stats list: the listings, and
    each bucket's record as `GET /admin/bucket?bucket=B&stats=true` answers it."""

    def __init__(self, raw: bytes) -> None:
        super().__init__("http://rgw.invalid", "a", "b")
        self.records = {b["bucket"]: json.dumps(b).encode() for b in json.loads(raw)}
        self.calls: list[str] = []
        self.broken: set[str] = set()  # buckets whose stats come back cut short

    def get_raw(self, path, params, timeout):
        self.calls.append(path)
        if path == "/admin/metadata/bucket.instance" and "key" in params:
            record = json.loads(self.records[params["key"].rsplit(":", 1)[0]])
            return json.dumps({"data": {"bucket_info": {"num_shards": record["num_shards"]}}}).encode()
        if path == "/admin/metadata/bucket":
            return json.dumps(list(self.records)).encode()
        if path == "/admin/metadata/bucket.instance":
            return json.dumps([f"{k}:{json.loads(v)['id']}" for k, v in self.records.items()]).encode()
        if path == "/admin/user" and params["quota-type"] == "user":  # each owner's user quota: none set
            return b'{"check_on_raw": false, "enabled": false, "max_objects": -1, "max_size": -1, "max_size_kb": 0}'
        assert path == "/admin/bucket" and params["stats"] == "true"
        return b"[{" if params["bucket"] in self.broken else self.records[params["bucket"]]


def test_pgs_source_reads_raw_bytes_and_gives_the_part_it_gave_before():
    raw = (FIX / "pg_dump_pgs.json").read_bytes()
    ceph = FixtureCeph(raw)
    part = PgsSource(SourceContext(ceph=ceph)).collect(Deadline(10))
    assert ceph.calls == [("pg dump", {"dumpcontents": ["pgs"]})]
    assert part.pgs == inputs.pg_part(ceph.command("pg dump", 1.0), 0).pgs
    ceph.raw = b'{"pg_stats": [{"pgid": '
    with pytest.raises(CephCommandError, match="invalid JSON"):
        PgsSource(SourceContext(ceph=ceph)).collect(Deadline(10))


def test_buckets_source_polls_and_gives_the_buckets_one_full_read_gave():
    raw = (FIX / "admin_api_bucket_stats_resharded.json").read_bytes()
    rgw = FixtureRgw(raw)
    part = BucketsSource(SourceContext(ceph=FixtureCeph(b""), rgw=rgw)).collect(Deadline(10))
    whole = inputs.buckets_part(json.loads(raw), 0)
    assert [dataclasses.replace(b, stats_at=0, index_gen=None) for b in part.buckets] == list(whole.buckets)
    assert "/admin/bucket" in rgw.calls and part.poll.unread == 0
    rgw.broken.add("reshard-me")
    source = BucketsSource(SourceContext(ceph=FixtureCeph(b""), rgw=rgw))
    with pytest.raises(Exception, match="invalid JSON"):
        source.collect(Deadline(10))


# --- /metrics -------------------------------------------------------------------------


class Cached:
    exposition = b"# TYPE ceph_scale_x gauge\n" + b'ceph_scale_x{ceph_daemon="osd.1"} 1.0\n' * 200


def fetch(port: int, headers: dict) -> tuple[dict, bytes]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers=headers)
    with urllib.request.urlopen(req, timeout=5) as r:
        return {k.lower(): v for k, v in r.headers.items()}, r.read()


def test_metrics_gzipped_when_asked_and_identical_bytes_otherwise():
    cached = Cached()
    server = serve("127.0.0.1:0", "/metrics", cached, None)
    try:
        port = server.server_address[1]
        headers, body = fetch(port, {})
        assert body == cached.exposition and "content-encoding" not in headers
        headers, body = fetch(port, {"Accept-Encoding": "gzip"})
        assert headers["content-encoding"] == "gzip" and len(body) < len(cached.exposition) / 5
        assert gzip.decompress(body) == cached.exposition
        cached.exposition = b"ceph_scale_x 2.0\n"  # a new exposition: a new gzip, never a stale one
        assert gzip.decompress(fetch(port, {"Accept-Encoding": "gzip"})[1]) == cached.exposition
        assert fetch(port, {"Accept-Encoding": "gzip;q=0"})[1] == cached.exposition
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    "header, ok",
    [(None, False), ("", False), ("gzip", True), ("deflate, GZIP;q=0.5", True), ("gzip;q=0", False),
     ("gzip; q=0.000", False), ("x-gzip", False), ("identity", False)],
)  # fmt: skip
def test_accepts_gzip(header, ok):
    assert accepts_gzip(header) is ok


def test_the_handler_disables_nagle():
    """Headers and body are two writes: with Nagle's algorithm a small body waited for the client's
    delayed ACK (~40 ms a scrape). StreamRequestHandler sets TCP_NODELAY when this is true."""
    assert make_handler("/metrics", Cached(), None).disable_nagle_algorithm is True
