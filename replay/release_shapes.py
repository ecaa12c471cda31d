"""The simulator's answers in the shapes of a newer release.

The simulator builds Pacific's shapes (bench.synth, checked against the Pacific captures). A
cluster of a scenario may be `release: reef` or `release: tentacle`: its answers then differ
from Pacific's as the captures of that release do (tests/fixtures/<release>/, differences in
tests/fixtures/README.md), so that the replay runs the parsers' paths of that release:

- every record keeps the keys its release's capture has and no other: the keys a release adds
  are filled from its capture's first record, the ones it drops are removed (OSD map and its
  pools, OSD metadata, bucket stats, the reshard queue, the PG stats);
- the version strings are the release's;
- from Reef on, a reshard keeps the bucket's instance id (the signals count it from its shard
  count, or from the index generation where one is read); Tentacle's bucket stats carry the
  `index_generation` (one per reshard done) and, while a reshard is processed, its
  `reshard_status`;
- Tentacle's RGWs count S3 object ops in the `rgw_op` set (`ceph_rgw_op_put_obj_ops`, ...), no
  longer as `ceph_rgw_put`.
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
# The releases whose answers were captured from a real cluster (Squid has no Debian package here).
RELEASES = tuple(sorted(p.name for p in FIXTURES.iterdir() if (p / "CAPTURED.md").is_file()))
# Each answer's records whose keys differ by release, as (capture, path to a record list or
# None for the document itself).
RECORDS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "osd dump": (("osd_dump.json", None), ("osd_dump.json", "osds"), ("osd_dump.json", "pools")),
    "osd metadata": (("osd_metadata.json", ""),),
    "bucket stats": (("bucket_stats.json", ""),),
    "reshard list": (("reshard_list_queued.json", ""),),
    "pg dump": (("pg_dump_pgs.json", "pg_stats"),),
}
TENTACLE_RGW_OPS = {
    "put": "op_put_obj_ops",
    "get": "op_get_obj_ops",
    "put_b": "op_put_obj_bytes",
    "get_b": "op_get_obj_bytes",
    "put_initial_lat_sum": "op_put_obj_lat_sum",
    "put_initial_lat_count": "op_put_obj_lat_count",
    "get_initial_lat_sum": "op_get_obj_lat_sum",
    "get_initial_lat_count": "op_get_obj_lat_count",
}
RGW_OP_LINE = re.compile(r"^(# HELP )?ceph_rgw_(" + "|".join(sorted(TENTACLE_RGW_OPS, key=len, reverse=True)) + r")\b")


@cache
def captured(release: str, name: str) -> Any:
    return json.loads((FIXTURES / release / name).read_text())


def _first_record(doc: Any, path: str | None) -> dict:
    if path is None:
        return doc
    records = doc if path == "" else doc[path]
    return records[0]


@cache
def key_changes(release: str, capture: str, path: str | None) -> tuple[dict[str, Any], frozenset[str]]:
    """(the keys `release` adds to such a record, with its capture's values; the keys it drops)."""
    ours, theirs = _first_record(captured("pacific", capture), path), _first_record(captured(release, capture), path)
    added = {k: v for k, v in theirs.items() if k not in ours}
    return added, frozenset(k for k in ours if k not in theirs)


@cache
def version(release: str) -> tuple[str, str]:
    """(`ceph version ...`, the short version) of the release's capture."""
    meta = captured(release, "osd_metadata.json")[0]
    return meta["ceph_version"], meta["ceph_version_short"]


def _reshape(record: dict, added: dict[str, Any], dropped: frozenset[str]) -> None:
    for key in dropped:
        record.pop(key, None)
    for key, value in added.items():
        record.setdefault(key, copy.deepcopy(value))


def shaped(answers: dict[str, Any], release: str, generations: list[int]) -> dict[str, Any]:
    """`answers` (Pacific's shapes) as `release` gives them; `generations`: each bucket's reshards
    done, in the order of the bucket stats."""
    if release == "pacific":
        return answers
    # Being processed: Pacific's entry says it, Tentacle's bucket stats do (most of the copy as
    # InLogrecord: tests/fixtures/tentacle/timeline_reshard_running.json).
    processed = {e["bucket_name"] for e in answers["reshard list"] if e.get("new_instance_id")}
    for name, records in RECORDS.items():
        if name not in answers:  # the pg dump: only at its own interval
            continue
        for capture, path in records:
            added, dropped = key_changes(release, capture, path)
            doc = answers[name]
            for record in [doc] if path is None else doc if path == "" else doc[path]:
                _reshape(record, added, dropped)
    long, short = version(release)
    answers["osd dump"]["require_osd_release"] = release
    for meta in answers["osd metadata"]:
        meta.update(ceph_release=release, ceph_version=long, ceph_version_short=short)
    instance = {}
    for bucket, generation in zip(answers["bucket stats"], generations):
        bucket["id"] = bucket["marker"]  # a reshard keeps the instance id from Reef on
        instance[bucket["bucket"]] = bucket["id"]
        if release == "tentacle":
            bucket["index_generation"] = generation
            bucket["reshard_status"] = "InLogrecord" if bucket["bucket"] in processed else "None"
    for entry in answers["reshard list"]:
        entry["bucket_id"] = instance.get(entry["bucket_name"], entry["bucket_id"])
    text = answers["perf counters"].replace(version("pacific")[0], long)
    if release == "tentacle":
        text = "\n".join(RGW_OP_LINE.sub(_tentacle_rgw_op, line) for line in text.split("\n"))
    answers["perf counters"] = text
    return answers


def _tentacle_rgw_op(m: re.Match) -> str:
    return f"{m.group(1) or ''}ceph_rgw_{TENTACLE_RGW_OPS[m.group(2)]}"
