"""The core's durable state in the manager's key/value store (`set_store`/`get_store`).

The store lives in the monitors' config-key database, whose entries are capped
(`mon_config_key_max_entry_size`, 64 KiB by default). The reshard bucket table holds one
entry per bucket, megabytes at 100,000+ buckets, so it is split: a small header under
`state` (version, reshard event count, ...) and the table in compressed chunks
`state/buckets/<i>/<crc of its content>`, each bucket in chunk crc32(key) % N. A reshard
changes one bucket and so writes one new chunk; N doubles when a chunk outgrows the cap.

The header names its chunks by key, and a chunk's key changes with its content, so a
changed chunk never overwrites the one the stored header names: new chunks are written
first, then the header, then the old chunks are removed. A manager that dies anywhere in
between leaves a header that matches its chunks (the event count and the bucket table of
one and the same moment): a reshard is then neither lost nor counted twice. Leftover
chunks of an interrupted write are removed by the next one.
"""

from __future__ import annotations

import base64
import json
import threading
import zlib
from typing import Any, Callable

HEADER_KEY = "state"
CHUNK_PREFIX = "state/buckets/"
MAX_VALUE_BYTES = 48 * 1024
MAX_CHUNKS = 1 << 14
# What a chunk may inflate to: a chunk of MAX_VALUE_BYTES holds ~1 MB of rows; a larger one is
# not ours (a zlib bomb would take the manager's memory).
CHUNK_TEXT_MAX = 64 << 20


def _dumps(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


# The bucket poll's state (core/bucket_poll.py): its own header and chunks, written every
# few minutes rather than on every change (its stats change at every poll).
POLL_HEADER_KEY = "bucket_poll"
POLL_CHUNK_PREFIX = "bucket_poll/"


def _chunks(table: dict, prefix: str, max_value: int) -> dict[str, str]:
    """The table in compressed chunks under `prefix`, each key in chunk crc32(key) % N."""
    n = 1
    while True:
        parts: list[dict] = [{} for _ in range(n)]
        for key, value in table.items():
            parts[zlib.crc32(key.encode()) % n][key] = value
        chunks = [base64.b64encode(zlib.compress(_dumps(p).encode(), 6)).decode() for p in parts]
        if max(len(c) for c in chunks) <= max_value or n >= MAX_CHUNKS:
            break
        n *= 2
    return {f"{prefix}{i}/{zlib.crc32(c.encode()):08x}": c for i, c in enumerate(chunks)}


def _unchunk(get: Callable[[str], str | None], keys: list[str], problems: list[str]) -> dict:
    table: dict = {}
    for i, key in enumerate(keys):
        chunk = get(key)
        if chunk is None:
            problems.append(f"state chunk {i} of {len(keys)} is missing")
            continue
        try:
            inflate = zlib.decompressobj()
            text = inflate.decompress(base64.b64decode(chunk), CHUNK_TEXT_MAX)
            if inflate.unconsumed_tail:
                raise ValueError(f"it inflates past {CHUNK_TEXT_MAX:,} bytes")
            if not inflate.eof:
                raise ValueError("incomplete or truncated stream")
            rows = json.loads(text)
            if not isinstance(rows, dict):
                raise ValueError(f"a table was expected, not {type(rows).__name__}")
            table.update(rows)
        except (ValueError, zlib.error, RecursionError) as e:  # a chunk costs its own buckets alone
            problems.append(f"state chunk {i} of {len(keys)} is unreadable: {type(e).__name__}: {str(e)[:120]}")
    return table


def encode(durable: dict, max_value: int = MAX_VALUE_BYTES) -> dict[str, str]:
    """Store entries (key -> value) for `DerivationState.durable()`."""
    header = json.loads(_dumps(durable))  # deep copy, plain JSON types
    reshard = header.get("reshard")
    table = reshard.pop("buckets", {}) if isinstance(reshard, dict) else {}
    out = _chunks(table, CHUNK_PREFIX, max_value)
    if isinstance(reshard, dict):
        reshard["bucket_chunk_keys"] = list(out)
    out[HEADER_KEY] = _dumps(header)
    return out


def encode_poll(data: dict, max_value: int = MAX_VALUE_BYTES) -> dict[str, str]:
    """Store entries for `BucketPoll.to_dict()`: its bucket table in chunks, the rest in the header."""
    header = json.loads(_dumps(data))
    out = _chunks(header.pop("buckets", {}), POLL_CHUNK_PREFIX, max_value)
    header["chunk_keys"] = list(out)
    out[POLL_HEADER_KEY] = _dumps(header)
    return out


def _stored_header(raw: str) -> dict:
    """A stored header: a JSON table, else ValueError (the caller starts afresh, with one line)."""
    header = json.loads(raw)
    if not isinstance(header, dict):
        raise ValueError(f"the stored header is not a table but a {type(header).__name__}")
    return header


def decode_poll(get: Callable[[str], str | None]) -> tuple[dict | None, list[str]]:
    """(`BucketPoll.to_dict()` as stored, or None when nothing is; problems found)."""
    raw = get(POLL_HEADER_KEY)
    if raw is None:
        return None, []
    header = _stored_header(raw)
    problems: list[str] = []
    keys = list(dict.fromkeys(str(k) for k in header.pop("chunk_keys", [])))[:MAX_CHUNKS]
    header["buckets"] = _unchunk(get, keys, problems)
    return header, problems


def decode(get: Callable[[str], str | None]) -> tuple[dict | None, list[str]]:
    """(durable state or None when nothing is stored, problems found)."""
    raw = get(HEADER_KEY)
    if raw is None:
        return None, []
    header = _stored_header(raw)
    problems: list[str] = []
    reshard = header.get("reshard")
    keys: list[str] | None = None
    if isinstance(reshard, dict) and "bucket_chunk_keys" in reshard:
        keys = [str(k) for k in reshard.pop("bucket_chunk_keys")]
    elif isinstance(reshard, dict) and "bucket_chunks" in reshard:  # the first format: state/buckets/<i>
        keys = [f"{CHUNK_PREFIX}{i}" for i in range(min(MAX_CHUNKS, int(reshard.pop("bucket_chunks"))))]
    if keys is not None and isinstance(reshard, dict):
        reshard["buckets"] = _unchunk(get, list(dict.fromkeys(keys))[:MAX_CHUNKS], problems)
        # Their buckets are new to the next poll: it must not count them as reshards seen first.
        if problems:
            reshard["buckets_lost"] = True
    return header, problems


def plan_writes(
    previous: dict[str, str], new: dict[str, str], header_key: str = HEADER_KEY
) -> list[tuple[str, str | None]]:
    """set_store calls: new chunks, then the header, then removals (value None).

    `previous` is what the store holds, leftovers of an interrupted write included."""
    writes: list[tuple[str, str | None]] = [
        (k, v) for k, v in sorted(new.items()) if k != header_key and previous.get(k) != v
    ]
    if previous.get(header_key) != new.get(header_key) and header_key in new:
        writes.append((header_key, new[header_key]))
    writes += [(k, None) for k in sorted(previous) if k not in new]
    return writes


def without_clock(durable: dict) -> str:
    """The state minus the time it was last observed: a change worth writing."""
    copy = json.loads(_dumps(durable))
    if isinstance(copy.get("reshard"), dict):
        copy["reshard"].pop("seen_at", None)
    # The hour's busiest reading rises with every poll of a rising load: it is written with the
    # next change that counts (a runway trend's point, every few minutes), not on its own.
    if isinstance(copy.get("runway"), dict):
        copy["runway"].pop("busiest", None)
    return _dumps(copy)


class StateWriter:
    """Writes the durable state off the derivation's thread, the newest state only.

    set_store is a monitor command: with the monitors away it waits for them, and a
    derivation waiting with it would serve the same exposition, sources failing unseen,
    until they are back. One write runs at a time; a state handed over meanwhile replaces
    any not yet written. A failed write leaves `stored` as it was, so the next one plans
    against what the store really holds."""

    def __init__(self, set_store: Callable[[str, str | None], Any], log: Any) -> None:
        self._set_store = set_store
        self._log = log
        self.stored: dict[str, str] = {}
        self._pending: dict[str, str] | None = None
        self._running = False
        self._idle = threading.Condition()

    def submit(self, entries: dict[str, str]) -> None:
        with self._idle:
            self._pending = entries
            if self._running:
                return
            self._running = True
        threading.Thread(target=self._write_pending, name="scale-state-writer", daemon=True).start()

    def _write_pending(self) -> None:
        while True:
            with self._idle:
                entries, self._pending = self._pending, None
                if entries is None:
                    self._running = False
                    self._idle.notify_all()
                    return
            try:
                for key, value in plan_writes(self.stored, entries):
                    self._set_store(key, value)
                self.stored = entries
            except Exception:  # a failed write must not end the writer: the next state retries
                self._log.exception("scale: writing the state to the store failed")

    def flush(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the state handed over to be written (a module that
        stops hands its last state to the next active manager); False if it was not."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._running, timeout)
