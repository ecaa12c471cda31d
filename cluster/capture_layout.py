"""Capture, from a running test cluster, how a release shows a bucket's index layout and its
reshard queue at the byte level, into tests/fixtures/<release>/ (a section of CAPTURED.md):

  python -m cluster.testcluster start --dir D --release reef
  python -m cluster.capture_layout --dir D --out tests/fixtures/reef
  python -m cluster.testcluster stop --dir D

A bucket is resharded up by RGW (1 -> 7 shards: 300 objects at rgw_max_objs_per_shard 100),
then down by hand (7 -> 3, `radosgw-admin bucket reshard`: dynamic shard reduction waits for
days), and its layout, index objects and stats are captured after each. A reshard queued by
hand gives one raw queue entry (the omap value RGW wrote). From Reef on `ceph tell osd.0
counter dump` gives the labelled counters. Each file is one command's output.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from cluster.capture_fixtures import admin_api_sigv4, log, table  # noqa: E402
from cluster.testcluster import TestCluster, wait_for  # noqa: E402

BUCKET = "layout-me"
INDEX_POOL = "default.rgw.buckets.index"
LOG_POOL = "default.rgw.log"


def index_objects(c: TestCluster, bucket_id: str) -> str:
    names = sorted(n for n in c.rados("-p", INDEX_POOL, "ls").split() if n.startswith(f".dir.{bucket_id}."))
    return "\n".join(names) + "\n"


def layout_set(c: TestCluster, suffix: str, newer: bool) -> list[tuple[str, str, Any]]:
    """(file, command, data) of the bucket as it is now."""
    stats = c.bucket_stats(BUCKET)
    items: list[tuple[str, str, Any]] = [
        (f"bucket_stats_layout{suffix}.json", f"radosgw-admin bucket stats --bucket {BUCKET}", stats),
        (f"admin_api_bucket_layout{suffix}.json",
         f"GET /admin/bucket?bucket={BUCKET}&stats=true&format=json (SigV4)",
         admin_api_sigv4(c, "bucket", bucket=BUCKET, stats="true")),
        (f"index_objects{suffix}.txt", f"rados -p {INDEX_POOL} ls | grep '^.dir.<bucket id>.' | sort",
         index_objects(c, stats["id"])),
    ]  # fmt: skip
    if newer:  # Pacific has no `bucket layout`
        items.append(
            (f"bucket_layout{suffix}.json", f"radosgw-admin bucket layout --bucket {BUCKET}",
             c.radosgw_admin("bucket", "layout", "--bucket", BUCKET))
        )  # fmt: skip
    return items


def raw_queue_entry(c: TestCluster, out: Path) -> tuple[str, str, Any]:
    """Queue BUCKET by hand (RGW's reshard thread held), read the omap value RGW wrote, cancel."""
    c.hold_reshards()
    try:
        c.radosgw_admin("reshard", "add", "--bucket", BUCKET, "--num-shards", "11", fmt_json=False)
        listed = wait_for(lambda: c.radosgw_admin("reshard", "list") or None, 30, what="the queued entry")
        for oid in sorted(c.rados("-p", LOG_POOL, "-N", "reshard", "ls").split()):
            keys = c.rados("-p", LOG_POOL, "-N", "reshard", "listomapkeys", oid).split()
            if keys:
                # Written into the cluster's directory, which a release's root mounts at the same path.
                written = c.dir / "reshard_entry.bin"
                c.rados("-p", LOG_POOL, "-N", "reshard", "getomapval", oid, keys[0], str(written))
                (out / "reshard_entry.bin").write_bytes(written.read_bytes())
                with (out / "reshard_list_entry.json").open("w") as f:
                    f.write(json.dumps(listed, indent=1, sort_keys=True) + "\n")
                return ("reshard_entry.bin", f"rados -p {LOG_POOL} -N reshard getomapval {oid} {keys[0]} "
                        "reshard_entry.bin (after `radosgw-admin reshard add --bucket layout-me --num-shards 11`; "
                        "`radosgw-admin reshard list` then: reshard_list_entry.json)", None)  # fmt: skip
        raise RuntimeError("no reshard queue object holds an entry")
    finally:
        c.radosgw_admin("reshard", "cancel", "--bucket", BUCKET, fmt_json=False)
        c.release_reshards()


def capture(c: TestCluster, out: Path) -> int:
    newer = c.release.root is not None
    out.mkdir(parents=True, exist_ok=True)
    r = c.fill_bucket_until_reshard(BUCKET, objects=300, size=1024)
    up = f"{r['before']['num_shards']} -> {r['after']['num_shards']} shards"
    log(f"{BUCKET} resharded by RGW: {up}")
    rows = layout_set(c, "_up", newer)
    c.radosgw_admin("bucket", "reshard", "--bucket", BUCKET, "--num-shards", "3", "--yes-i-really-mean-it",
                    fmt_json=False, timeout=120)  # fmt: skip
    down = c.bucket_stats(BUCKET)["num_shards"]
    log(f"{BUCKET} resharded by hand to {down} shards")
    rows += layout_set(c, "_down", newer)
    if newer:
        rows.append(("osd_counter_dump_osd0.json", "ceph tell osd.0 counter dump -f json",
                     c.ceph("tell", "osd.0", "counter", "dump")))  # fmt: skip
    written = []
    for name, how, data in rows:
        text = data if name.endswith(".txt") else json.dumps(data, indent=1, sort_keys=True) + "\n"
        (out / name).write_text(text)
        written.append((name, how))
    written.append(raw_queue_entry(c, out)[:2])
    version = c.ceph("version")["version"]
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with (out / "CAPTURED.md").open("a") as f:
        f.write(
            f"\n## Index layout and queue capture {stamp}\n\n{version}. Made by `python -m cluster.capture_layout`"
            " (cluster/capture_layout.py) on a `python -m cluster.testcluster start` cluster.\n\n"
            f"Condition: bucket {BUCKET} (1 KiB objects, rgw_max_objs_per_shard 100, 1 shard at creation) filled "
            f"with 300 objects and resharded by RGW ({up}): set `_up`; then resharded down by hand to {down} shards "
            "(`radosgw-admin bucket reshard --num-shards 3 --yes-i-really-mean-it`): set `_down`. Then queued by "
            "hand with RGW's reshard thread held, for one raw queue entry, and the entry cancelled.\n\n"
            + table(written)
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", required=True, help="the directory of a running cluster")
    p.add_argument("--out", required=True, help="e.g. tests/fixtures/reef")
    args = p.parse_args(argv)
    c = TestCluster.attach(args.dir)
    c.refresh_active_mgr()
    return capture(c, Path(args.out))


if __name__ == "__main__":
    sys.exit(main())
