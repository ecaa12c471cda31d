"""The sidecar's orjson decode of `pg dump` (exporter/sidecar/fast_json.py) makes the same part.

The chunks of `pg dump` go to orjson first where the sidecar's Python has it; the part made
must be the standard library's, or the standard library's error where the chunked path gives
up. Held on every `pg dump` captured from the three releases, on the study's (21,760 PGs), and
on mutations of them that put in what orjson reads apart from json.loads: integers past 64 bits
(in the acting set and elsewhere), NaN, lone surrogates, bad bytes, broken structure.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import synth
from ceph_scale.core import json_bound
from ceph_scale.core.parse_pgs import pg_part_from_json
from exporter.sidecar import fast_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DUMPS = sorted(p for p in FIXTURES.glob("*/pg_dump*.json"))
SMALL_CHUNKS = 2048  # the captures are small: many chunks each, as the study's dump has


def part_or_error(raw: bytes, first):
    from ceph_scale.core import json_stream

    chunk = json_stream._CHUNK_BYTES
    json_stream._CHUNK_BYTES = SMALL_CHUNKS
    try:
        return "part", pg_part_from_json(raw, 0.0, json.loads, first).pgs
    except Exception as e:  # the outcome compared: which error, with which words
        return "error", f"{type(e).__name__}: {e}"
    finally:
        json_stream._CHUNK_BYTES = chunk


def assert_same(raw: bytes) -> None:
    assert part_or_error(raw, fast_json.PG_CHUNKS) == part_or_error(raw, None)


def test_orjson_is_there_to_be_used():
    """The test environment has it (requirements-dev.txt): the tests below compare two decoders."""
    assert fast_json.PG_CHUNKS is not None


@pytest.mark.parametrize("path", DUMPS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_captured_pg_dump_makes_the_same_part(path):
    raw = path.read_bytes()
    kind, pgs = part_or_error(raw, fast_json.PG_CHUNKS)
    assert_same(raw)
    assert kind == "part" and pgs or "pg_map" in json.loads(raw), path  # the whole dump's shape is read whole


def test_the_study_pg_dump_makes_the_same_part():
    s = synth.Synth(seed=1, **synth.STUDY)
    raw = json.dumps({"pg_ready": True, "pg_stats": list(s.iter_pgs())}).encode()
    fast = pg_part_from_json(raw, 0.0, json.loads, fast_json.PG_CHUNKS)
    assert fast.pgs == pg_part_from_json(raw, 0.0, json.loads).pgs and len(fast.pgs) == 21_760


# What orjson reads apart from json.loads, put where a PG record holds numbers and strings.
ODD = [
    b"18446744073709551616", b"-9223372036854775809", b"123456789012345678901234567890", b"NaN", b"Infinity",
    b"1e400", b'"\\ud800"', b'"\\udc00x"', b"-0", b"1.5", b"[]", b"{}", b"null", b'"\xff"', b"\xc3",
]  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_pg_dumps_make_the_same_part_or_the_same_error(data):
    raw = bytearray(data.draw(st.sampled_from(DUMPS)).read_bytes())
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(st.sampled_from(["acting", "value", "flip", "insert"]))
        if op == "acting" and (at := raw.find(b'"acting": [', data.draw(st.integers(0, len(raw))))) >= 0:
            start = at + len(b'"acting": [')
            raw[start:start] = data.draw(st.sampled_from(ODD)) + b", "
        elif op == "value":
            colons = [i for i in range(len(raw)) if raw[i : i + 2] == b": "]
            if colons:
                at = data.draw(st.sampled_from(colons)) + 2
                end = at
                while end < len(raw) and raw[end : end + 1] not in (b",", b"}", b"\n"):
                    end += 1
                raw[at:end] = data.draw(st.sampled_from(ODD))
        elif op == "flip" and raw:
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
        else:
            at = data.draw(st.integers(0, len(raw)))
            raw[at:at] = data.draw(st.sampled_from([b"{", b"}", b"[", b"]", b",", b'"', b"\\", b"\\u00e9"]))
    assert_same(bytes(raw))


NUMBERS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
)
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, st.text()),
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)),
    max_leaves=30,
)


def same(a, b) -> bool:
    """Equal values of the same types all the way down (json.loads' 1 is not 1.0 nor True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES, ascii_only=st.booleans())
def test_within_64_bits_orjson_reads_any_json_as_json_loads_does(value, ascii_only):
    """The premise of the chunks' argument: numbers within 64 bits, floats, strings, key order and
    duplicate keys come out the same, types included."""
    raw = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert same(json_bound.loads(raw, utf8_errors="strict", first=fast_json.PG_CHUNKS), json.loads(raw))


@settings(max_examples=400, deadline=None)
@given(text=st.from_regex(r"\A-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?\Z"))
def test_any_number_within_64_bits_reads_the_same(text):
    raw = f'{{"n":[{text}],"n":{text}}}'.encode()
    assert same(json_bound.loads(raw, first=fast_json.PG_CHUNKS), json.loads(raw))


def test_the_one_difference_kept_valid_json_nested_past_the_standard_librarys_limit():
    """Outside Hypothesis (which raises the recursion limit): a PG with a valid field nested 1,000
    deep is read on the fast path, where the standard library may refuse the dump for its depth
    (exporter/sidecar/fast_json.py); its records are the dump's without that field."""
    raw = (FIXTURES / "pacific" / "pg_dump_pgs.json").read_bytes()
    at = raw.index(b'"pgid"')
    deep = raw[:at] + b'"deep": ' + b"[" * 1000 + b"]" * 1000 + b", " + raw[at:]
    fast = part_or_error(deep, fast_json.PG_CHUNKS)
    assert fast == part_or_error(raw, None)
    plain = part_or_error(deep, None)
    assert plain == fast or plain[0] == "error" and ("recursion" in plain[1] or "too deep" in plain[1]), plain
