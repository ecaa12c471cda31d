"""The inputs of a cluster not yet built, from one `key=value,key=value` text (docs/sizing.md).

The sidecar's `--size-for` and the module's `ceph scale plan --size-for` both pass their text
here, so both take the same keys and refuse a bad one with the same line naming it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..config import SETTINGS, ConfigError, Thresholds

# Pacific's bluestore_min_alloc_size_hdd (16.2.0 lowered it from 64 KiB, the studies' value [000]).
MIN_ALLOC_PACIFIC = 4096
# RocksDB bytes per stored chunk (onode, extents, the object's RGW attributes and its share of the
# bucket index): the 10B cluster's DB use over its 10 B x 6 / 318 chunks per OSD [004], as the
# runway tests' study clusters take it (docs/runway.md).
DB_BYTES_PER_CHUNK = 1700.0
HDD_BYTES_DEFAULT = 16e12  # the 10B cluster's drives [004]
# The farthest target the live plan takes (runway_target_seconds' maximum: ten years).
MAX_DAYS = int(next(s.maximum or 0 for s in SETTINGS if s.name == "runway_target_seconds") // 86400)
S3_MAX_OBJECT = 5 * 2**40  # S3's largest object (multipart): 5 TiB

UNITS = {"": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12}
UNITS.update({"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "pb": 1e15, "pib": 2**50})
SIZE = re.compile(r"([0-9.]+(?:e[+-]?[0-9]+)?)\s*([a-z]*)")
PROFILE = re.compile(r"([0-9]+)\+([0-9]+)")


@dataclass(frozen=True)
class SizeSpec:
    objects: float  # stored now (or at the start)
    object_size: float  # mean bytes per object
    data_chunks: int  # k (1 for replication)
    width: int  # k+m, or the replica count
    put_ops: float = 0.0  # S3 PUT/s at the target date
    get_ops: float = 0.0
    growth: float = 0.0  # objects added per day
    days: float = 180.0  # the target date
    hdd_bytes: float = HDD_BYTES_DEFAULT
    hdds_per_host: int = 0  # the failure domain; 0: none lost
    alternating: bool = False  # PUT and GET phases in turn (the studies' rounds), not at once
    min_alloc: int = MIN_ALLOC_PACIFIC
    db_per_chunk: float = DB_BYTES_PER_CHUNK
    objects_per_bucket: float = 100_000.0
    pg_per_osd: int = 100  # mon_target_pg_per_osd

    @property
    def profile(self) -> str:
        if self.data_chunks == 1:
            return f"{self.width}x replication"
        return f"EC {self.data_chunks}+{self.width - self.data_chunks}"

    @property
    def objects_at_target(self) -> float:
        return self.objects + self.growth * self.days


def size_bytes(key: str, text: str) -> float:
    """`64KiB`, `64KB` (1000), `16TB`, `4096`: bytes."""
    m = SIZE.fullmatch(text.strip().lower())
    if m is None or m.group(2) not in UNITS:
        raise ConfigError(f"{key}: expected a size such as 64KiB, 64KB or 16TB, got {text!r}")
    return positive(key, float(m.group(1)) * UNITS[m.group(2)], text)


def number(key: str, text: str, whole: bool = False, zero: bool = True) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{key}: expected a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
        raise ConfigError(f"{key}: expected a finite number {'>= 0' if zero else '> 0'}, got {text!r}")
    if whole and value != int(value):
        raise ConfigError(f"{key}: expected a whole number, got {text!r}")
    return value


def positive(key: str, value: float, text: str) -> float:
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{key}: expected a size > 0, got {text!r}")
    return value


KEYS = (
    "objects", "object_size", "ec", "replicas", "put_ops", "get_ops", "growth", "days", "hdd_size",
    "hdds_per_host", "mix", "min_alloc", "db_per_chunk", "objects_per_bucket", "pg_per_osd",
)  # fmt: skip


def parse(text: str, th: Thresholds) -> SizeSpec:
    """The spec from `objects=1e9,object_size=64KiB,ec=4+2,put_ops=...`; ConfigError names the key."""
    given: dict[str, str] = {}
    for item in (i.strip() for i in text.split(",")):
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not value.strip():
            raise ConfigError(f"--size-for: expected key=value, got {item!r}")
        if key not in KEYS:
            raise ConfigError(f"--size-for: unknown key {key!r}; known: {', '.join(KEYS)}")
        if key in given:
            raise ConfigError(f"--size-for: {key} given twice")
        given[key] = value.strip()
    for key in ("objects", "object_size"):
        if key not in given:
            raise ConfigError(f"--size-for: {key} is required")
    if ("ec" in given) == ("replicas" in given):
        raise ConfigError("--size-for: give one of ec=k+m or replicas=n")
    if "ec" in given:
        m = PROFILE.fullmatch(given["ec"])
        if m is None or int(m.group(1)) < 1 or int(m.group(2)) < 1:
            raise ConfigError(f"ec: expected k+m such as 4+2, got {given['ec']!r}")
        k, width = int(m.group(1)), int(m.group(1)) + int(m.group(2))
    else:
        k, width = 1, int(number("replicas", given["replicas"], whole=True, zero=False))
    mix = given.get("mix", "concurrent")
    if mix not in ("concurrent", "alternating"):
        raise ConfigError(f"mix: expected concurrent or alternating, got {mix!r}")
    object_size = size_bytes("object_size", given["object_size"])
    if object_size > S3_MAX_OBJECT:
        raise ConfigError(f"object_size: at most 5TiB, S3's largest object, got {given['object_size']!r}")
    get = given.get
    days = number("days", get("days", str(th.runway_target_seconds / 86400)))
    if days > MAX_DAYS:
        raise ConfigError(f"days: at most {MAX_DAYS} (runway_target_seconds' range), got {given['days']!r}")
    return SizeSpec(
        objects=number("objects", given["objects"]),
        object_size=object_size,
        data_chunks=k,
        width=width,
        put_ops=number("put_ops", get("put_ops", "0")),
        get_ops=number("get_ops", get("get_ops", "0")),
        growth=number("growth", get("growth", "0")),
        days=days,
        hdd_bytes=size_bytes("hdd_size", get("hdd_size", str(HDD_BYTES_DEFAULT))),
        hdds_per_host=int(number("hdds_per_host", get("hdds_per_host", "0"), whole=True)),
        alternating=mix == "alternating",
        min_alloc=int(size_bytes("min_alloc", get("min_alloc", str(MIN_ALLOC_PACIFIC)))),
        db_per_chunk=number("db_per_chunk", get("db_per_chunk", str(DB_BYTES_PER_CHUNK))),
        objects_per_bucket=number(
            "objects_per_bucket", get("objects_per_bucket", str(th.rgw_bucket_objects_advised)), zero=False
        ),
        pg_per_osd=int(number("pg_per_osd", get("pg_per_osd", "100"), whole=True, zero=False)),
    )
