"""orjson for the chunks of `pg dump`, where the sidecar's Python has it.

At the 10B study's 21,760 PGs `pg dump` is ~50 MB of JSON every pg poll; the standard library's
decoder took ~0.3 s of it and orjson takes about half (docs/benchmark.md). Debian ships it from
trixie on (python3-orjson, which the image installs where its suite has it), and the wheel's
`fast` extra; without it the standard library decodes, as before.

Only for the chunks of `pg dump` (core/parse_pgs.pg_part_from_json), where its few differences
from json.loads cannot change the part:
- what orjson refuses and json.loads takes (NaN, Infinity, lone surrogates, numbers past a
  float's range) raises, and json.loads decodes that chunk (core/json_bound.loads);
- an integer past 64 bits is a float to orjson, an int to json.loads. A PG record is kept only
  with its id, state and stamps as strings, and its acting set as OSD ids, which stop at
  2^31 - 1 (parse_pgs._acting, which now leaves out an acting set past that on every path, as
  it does any other it cannot read): such a number there makes the same part either way, and
  any error sends the whole dump to the standard library's full decode, whose outcome stands.

One difference is kept: valid JSON nested deeper than json.loads' recursion limit lets it go
(on Python 3.11 from about 940 to 990 levels, less the deeper the caller's stack) and at most
1,024 deep (orjson's limit). A PG with such a field is then read, where the standard library
refuses the whole dump; tests/unit/test_fast_json.py shows it.
tests/unit/test_fast_json.py holds the two paths to the same part on the captured dumps, the
study's, and mutations of them. The ceph-mgr module never imports this: a Rust extension fails
in the manager's sub-interpreters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    import orjson as _orjson
except ImportError:  # the bookworm image: the standard library decodes
    _orjson = None  # type: ignore[assignment]

# core/json_bound.loads' `first` decoder for the chunks of `pg dump`, or None.
PG_CHUNKS: Callable[[bytes], Any] | None = _orjson.loads if _orjson is not None else None
