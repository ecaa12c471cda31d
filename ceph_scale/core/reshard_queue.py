"""The RGW reshard queue read straight from RADOS, without radosgw-admin.

The queue is the omap of objects `reshard.0000000000`..`reshard.<N-1>` in the
zone's log pool, namespace `reshard`; each value is a `cls_rgw_reshard_entry`
in Ceph's encoding (src/cls/rgw/cls_rgw_types.h):

    ENCODE_START(v, compat, len)            u8, u8, u32
    time        real_time                   u32 seconds, u32 nanoseconds
    tenant, bucket_name, bucket_id          u32 length + bytes each
    new_instance_id                         u32 length + bytes; v1 only (Reef's v2 drops it)
    old_num_shards, new_num_shards          u32 each

Reading it needs only `osd 'allow r pool=<zone>.rgw.log namespace=reshard'`,
where radosgw-admin needs write and watch rights on several pools to start.
"""

from __future__ import annotations

import struct
from typing import Any, Callable

from .parse_base import InputError, _int
from .snapshot import ReshardEntry


class _Reader:
    def __init__(self, raw: bytes) -> None:
        self.raw, self.pos = raw, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.raw):
            raise InputError(f"reshard entry: truncated at byte {self.pos} (need {n} more of {len(self.raw)})")
        out = self.raw[self.pos : self.pos + n]
        self.pos += n
        return out

    def u8(self) -> int:
        return self.take(1)[0]

    def u32(self) -> int:
        value: int = struct.unpack("<I", self.take(4))[0]
        return value

    def string(self) -> str:
        n = self.u32()
        if n > 4096:
            raise InputError(f"reshard entry: string of {n} bytes at byte {self.pos - 4}")
        try:
            return self.take(n).decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"reshard entry: string at byte {self.pos - n} is not UTF-8") from None


def decode_entry(raw: bytes) -> ReshardEntry:
    r = _Reader(bytes(raw))
    version, compat = r.u8(), r.u8()
    if compat > 2:
        raise InputError(f"reshard entry: encoding compat {compat} is newer than this reader (v{version})")
    length = r.u32()
    end = r.pos + length
    if end > len(r.raw):
        raise InputError(f"reshard entry: declares {length} bytes, has {len(r.raw) - r.pos}")
    r.u32(), r.u32()  # time: when it was queued
    tenant, bucket, bucket_id = r.string(), r.string(), r.string()
    new_instance_id = r.string() if version < 2 else ""
    old_shards, new_shards = r.u32(), r.u32()
    if r.pos > end:
        raise InputError(f"reshard entry: fields run past the encoded length {length}")
    # Later versions append fields within `length`: skipped, as Ceph's DECODE_FINISH does.
    return ReshardEntry(
        bucket=bucket,
        tenant=tenant,
        bucket_id=bucket_id,
        old_num_shards=old_shards,
        new_num_shards=new_shards,
        in_progress=bool(new_instance_id),
    )


RESHARD_NAMESPACE = "reshard"
OMAP_PAGE = 1000


DEFAULT_NUM_LOGS = 16


def queue_log_count(settings: Any, configured: Callable[[], Any]) -> int:
    """How many queue objects to read: the largest `rgw_reshard_num_logs` a running RGW holds
    (`settings`: the settings source's last part), else the config database's value
    (`configured()`, asked only then), else Ceph's default. An RGW queues a bucket in object
    hash % its own count, so one running with more logs than the config database says writes to
    objects a reader of the database's count would never see; reading more objects than exist
    costs one not-found read each."""
    running: list[int] = [r.value for r in getattr(settings, "rgw_running", ()) if r.option == "rgw_reshard_num_logs"]
    if running:
        return max(running)
    value = configured()
    if value in (None, ""):
        return DEFAULT_NUM_LOGS
    # 0 would read no queue object at all: an empty queue that is not.
    count = _int(value, "rgw_reshard_num_logs")
    if count < 1:
        raise InputError(f"rgw_reshard_num_logs: expected at least 1, got {count}")
    return count


def reshard_log_oids(num_logs: int) -> list[str]:
    """The queue's objects, as RGW names them (rgw_reshard_num_logs of them, 16 by default)."""
    return [f"reshard.{i:010d}" for i in range(num_logs)]


def read_queue(
    read_omap: Callable[[str, str, str], list[tuple[str, bytes]]], pools: list[str], num_logs: int
) -> list[ReshardEntry]:
    """Every entry of the queue: read_omap(pool, oid, start_after) -> [(key, value)] in key
    order, at most OMAP_PAGE of them, [] when the object does not exist (an empty log).

    The objects are read by name, never listed: python-rados ends an object listing
    quietly on any error, so a listing refused for lack of caps would read as an empty
    queue. A refused read raises, and the source is reported failed."""
    entries = []
    for pool in pools:
        for oid in reshard_log_oids(num_logs):
            after = ""
            while True:
                page = read_omap(pool, oid, after)
                for key, value in page:
                    try:
                        entries.append(decode_entry(value))
                    except InputError as e:
                        raise InputError(f"{pool}/{RESHARD_NAMESPACE}/{oid}[{key!r}]: {e}") from None
                if len(page) < OMAP_PAGE:
                    break
                after = page[-1][0]
    return entries
