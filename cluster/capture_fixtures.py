"""Capture JSON fixtures from a real test cluster into tests/fixtures/<release>/.

Two ways:

  # the whole scenario: start a cluster, make every study condition happen, capture three
  # sets (base, _queued, _resharded), write CAPTURED.md, stop the cluster (~6-8 minutes)
  python -m cluster.capture_fixtures --scenario --out tests/fixtures/pacific
  python -m cluster.capture_fixtures --scenario --release reef --out tests/fixtures/reef

  # one set from a cluster already running (python -m cluster.testcluster start --dir D)
  python -m cluster.capture_fixtures --dir D --out /tmp/fx --condition "what the cluster was doing" \
      [--suffix _x] [--bucket B]

Every file is one command's output, JSON re-indented (indent=1, sorted keys), except
mgr_prometheus_metrics*.txt (text exposition). CAPTURED.md lists the command of each file.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from cluster import s3load  # noqa: E402
from cluster.testcluster import TestCluster, parse_stamp, wait_for  # noqa: E402

# The families the exporter's perf source reads: mgr_prometheus_metrics.txt keeps only these
# (as the first capture did); mgr_prometheus_metrics_full.txt is the whole exposition.
PROMETHEUS_KEEP = ("ceph_bluefs_", "ceph_osd_op_r", "ceph_osd_op_w", "ceph_rgw_", "# HELP ceph_rgw_put ")

CONFIG_OPTIONS = {
    "osd_scrub_max_interval": "mgr",
    "osd_deep_scrub_interval": "mgr",
    "mon_warn_pg_not_scrubbed_ratio": "mgr",
    "mon_warn_pg_not_deep_scrubbed_ratio": "mgr",
    "rgw_max_objs_per_shard": "client.rgw",
    "bluestore_min_alloc_size_hdd": "mgr",
    "osd_max_scrubs": "mgr",
    "mon_target_pg_per_osd": "mgr",
}


@dataclass
class Item:
    name: str
    how: str  # the command, as written in CAPTURED.md
    get: Callable[[TestCluster, str], Any]  # (cluster, bucket) -> JSON data or text
    every_set: bool = True  # False: only in the set without suffix


def admin_api_sigv4(c: TestCluster, path: str, **params: str) -> Any:
    """GET /admin/<path> signed with SigV4 by botocore (S3SigV4Auth: it adds the
    x-amz-content-sha256 header RGW requires; plain SigV4Auth gets 403 SignatureDoesNotMatch)."""
    from urllib.parse import urlencode

    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    url = f"{c.rgw_endpoint}/admin/{path}?{urlencode({'format': 'json', **params})}"
    req = AWSRequest(method="GET", url=url)
    S3SigV4Auth(Credentials(*c.admin_keys), "s3", "us-east-1").add_auth(req)
    prepared = req.prepare()
    with urllib.request.urlopen(urllib.request.Request(prepared.url, headers=dict(prepared.headers)), timeout=30) as r:
        return json.loads(r.read())


def prometheus_text(c: TestCluster, full: bool) -> str:
    text = c.mgr_metrics()
    if full:
        return text
    return "\n".join(line for line in text.splitlines() if line.startswith(PROMETHEUS_KEEP)) + "\n"


def config_get(c: TestCluster) -> dict:
    return {opt: c.ceph("config", "get", who, opt) for opt, who in CONFIG_OPTIONS.items()}


def rgw_gid(c: TestCluster) -> str:
    """The RGW's name in the service map (its gid), as `config show rgw.<name>` wants it."""
    daemons = c.ceph("service", "dump")["services"]["rgw"]["daemons"]
    return next(name for name in sorted(daemons) if name != "summary")


def bucket_instance(c: TestCluster, bucket: str) -> Any:
    stats = c.bucket_stats(bucket)
    return c.radosgw_admin("metadata", "get", f"bucket.instance:{bucket}:{stats['id']}")


ITEMS = [
    Item("osd_df.json", "ceph osd df -f json", lambda c, b: c.ceph("osd", "df")),
    Item("osd_dump.json", "ceph osd dump -f json", lambda c, b: c.ceph("osd", "dump")),
    Item("osd_metadata.json", "ceph osd metadata -f json", lambda c, b: c.ceph("osd", "metadata")),
    Item("osd_pool_ls_detail.json", "ceph osd pool ls detail -f json",
         lambda c, b: c.ceph("osd", "pool", "ls", "detail"), False),
    Item("df_detail.json", "ceph df detail -f json", lambda c, b: c.ceph("df", "detail")),
    Item("pg_dump_pgs.json", "ceph pg dump pgs -f json", lambda c, b: c.ceph("pg", "dump", "pgs")),
    Item("pg_dump.json", "ceph pg dump -f json", lambda c, b: c.ceph("pg", "dump"), False),
    Item("health_detail.json", "ceph health detail -f json", lambda c, b: c.ceph("health", "detail")),
    Item("status.json", "ceph status -f json", lambda c, b: c.ceph("status")),
    Item("config_dump.json", "ceph config dump -f json", lambda c, b: c.ceph("config", "dump")),
    Item("config_get.json", "ceph config get <who> <option> -f json, per option (one JSON object)",
         lambda c, b: config_get(c)),
    Item("mgr_services.json", "ceph mgr services -f json", lambda c, b: c.ceph("mgr", "services")),
    Item("service_dump.json", "ceph service dump -f json", lambda c, b: c.ceph("service", "dump"), False),
    Item("config_show_rgw_rgw_max_objs_per_shard.json", "ceph config show rgw.<gid> rgw_max_objs_per_shard -f json",
         lambda c, b: c.ceph("config", "show", f"rgw.{rgw_gid(c)}", "rgw_max_objs_per_shard"), False),
    Item("config_show_rgw_rgw_reshard_num_logs.json", "ceph config show rgw.<gid> rgw_reshard_num_logs -f json",
         lambda c, b: c.ceph("config", "show", f"rgw.{rgw_gid(c)}", "rgw_reshard_num_logs"), False),
    Item("osd_perf_dump_osd0.json", "ceph tell osd.0 perf dump -f json",
         lambda c, b: c.ceph("tell", "osd.0", "perf", "dump"), False),
    Item("osd_perf_dump_osd1.json", "ceph tell osd.1 perf dump -f json",
         lambda c, b: c.ceph("tell", "osd.1", "perf", "dump"), False),
    Item("mgr_prometheus_metrics.txt", "curl <mgr prometheus>/metrics | grep -E '^(ceph_bluefs_|ceph_osd_op_r|"
         "ceph_osd_op_w|ceph_rgw_|# HELP ceph_rgw_put )'", lambda c, b: prometheus_text(c, full=False)),
    Item("mgr_prometheus_metrics_full.txt", "curl <mgr prometheus>/metrics",
         lambda c, b: prometheus_text(c, full=True), False),
    Item("bucket_stats.json", "radosgw-admin bucket stats", lambda c, b: c.radosgw_admin("bucket", "stats")),
    Item("admin_api_bucket_stats.json", "GET /admin/bucket?stats=true&format=json (RGW Admin Ops API, SigV4)",
         lambda c, b: admin_api_sigv4(c, "bucket", stats="true")),
    Item("admin_api_bucket.json", "GET /admin/bucket?bucket=<bucket>&stats=true&format=json (one bucket, SigV4)",
         lambda c, b: admin_api_sigv4(c, "bucket", bucket=b, stats="true"), False),
    Item("admin_api_metadata_bucket_page.json", "GET /admin/metadata/bucket?max-entries=1&format=json (SigV4)",
         lambda c, b: admin_api_sigv4(c, "metadata/bucket", **{"max-entries": "1"}), False),
    Item("admin_api_metadata_bucket_instance_page.json",
         "GET /admin/metadata/bucket.instance?max-entries=3&format=json (SigV4)",
         lambda c, b: admin_api_sigv4(c, "metadata/bucket.instance", **{"max-entries": "3"}), False),
    Item("admin_api_metadata_bucket_instance.json",
         "GET /admin/metadata/bucket.instance?key=<bucket>:<id from bucket stats>&format=json (SigV4)",
         lambda c, b: admin_api_sigv4(c, "metadata/bucket.instance", key=f"{b}:{c.bucket_stats(b)['id']}"), False),
    Item("bucket_limit_check.json", "radosgw-admin bucket limit check",
         lambda c, b: c.radosgw_admin("bucket", "limit", "check")),
    Item("reshard_list.json", "radosgw-admin reshard list", lambda c, b: c.radosgw_admin("reshard", "list")),
    Item("reshard_status.json", "radosgw-admin reshard status --bucket <bucket>",
         lambda c, b: c.radosgw_admin("reshard", "status", "--bucket", b)),
    Item("metadata_bucket.json", "radosgw-admin metadata get bucket:<bucket>",
         lambda c, b: c.radosgw_admin("metadata", "get", f"bucket:{b}")),
    Item("metadata_bucket_instance.json", "radosgw-admin metadata get bucket.instance:<bucket>:<id from bucket stats>",
         lambda c, b: bucket_instance(c, b)),
    Item("metadata_list_bucket_instance.json", "radosgw-admin metadata list bucket.instance",
         lambda c, b: c.radosgw_admin("metadata", "list", "bucket.instance")),
    Item("rgw_perf_dump.json", "ceph daemon client.rgw.a perf dump (the RGW's admin socket)",
         lambda c, b: c.admin_socket("client.rgw.a", "perf", "dump")),
    Item("zonegroup.json", "radosgw-admin zonegroup get", lambda c, b: c.radosgw_admin("zonegroup", "get"), False),
    Item("zone.json", "radosgw-admin zone get", lambda c, b: c.radosgw_admin("zone", "get"), False),
]  # fmt: skip


def capture_set(
    c: TestCluster, out: Path, suffix: str, bucket: str, keep_existing: bool = False
) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """Capture every item (health_detail first: it is the time-sensitive one) into `out`.

    keep_existing: a file already in `out` is neither fetched nor overwritten (health_detail is
    fetched anyway, for the caller's checks). Returns ([(file written, command)], {item: data}).
    """
    out.mkdir(parents=True, exist_ok=True)
    rows, data = [], {}
    for item in sorted(ITEMS, key=lambda i: i.name != "health_detail.json"):
        if suffix and not item.every_set:
            continue
        stem, _, ext = item.name.partition(".")
        name = f"{stem}{suffix}.{ext}"
        exists = keep_existing and (out / name).exists()
        if exists and item.name != "health_detail.json":
            continue
        data[item.name] = item.get(c, bucket)
        if exists:
            continue
        text = json.dumps(data[item.name], indent=1, sort_keys=True) + "\n" if ext == "json" else data[item.name]
        (out / name).write_text(text)
        rows.append((name, item.how.replace("<bucket>", bucket)))
    order = [i.name for i in ITEMS]
    return sorted(rows, key=lambda r: order.index(r[0].replace(suffix, "", 1))), data


def table(rows: list[tuple[str, str]]) -> str:
    return "| file | command |\n|---|---|\n" + "".join(f"| `{f}` | `{h}` |\n" for f, h in rows)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def scenario(out: Path, work_dir: str | None, keep: bool, keep_existing: bool, release_name: str) -> int:
    """Start a cluster, make the conditions happen, capture three sets, write CAPTURED.md."""
    notes: dict[str, Any] = {}
    c = TestCluster(
        base_dir=work_dir,
        osds=3,
        db_sizes=("256M", "1G", "1G"),
        reshard_objs_per_shard=100,
        keep=keep,
        release_name=release_name,
    )
    try:
        t = time.monotonic()
        c.start()
        notes["start"] = f"{c.started_in:.0f} s ({c.timings})"
        log(f"cluster up in {c.started_in:.0f}s")
        bluefs = c.wait_spillover(0)
        notes["spillover"] = {k: bluefs[k] for k in ("db_total_bytes", "db_used_bytes", "slow_used_bytes")}
        r = c.fill_bucket_until_reshard("reshard-me", objects=300, size=4096)
        notes["reshard"] = (
            f"300 PUTs of 4 KiB in {r['put_seconds']} s; queued seen after {r['queued_after_seconds']} s "
            f"(tentative_new_num_shards {(r['queued'] or {}).get('tentative_new_num_shards')}); resharded "
            f"{r['before']['num_shards']} -> {r['after']['num_shards']} shards after {r['resharded_after_seconds']} s, "
            f"instance {r['before']['id']} -> {r['after']['id']}, marker unchanged: "
            f"{r['before']['marker'] == r['after']['marker']}"
        )
        log(notes["reshard"])
        g = s3load.run(c.rgw_endpoint, *c.user_keys, "reshard-me", objects=300, puts=False, gets=True)
        notes["gets"] = f"{g.gets} GETs in {g.get_seconds:.1f} s, {g.errors} errors"
        if g.gets != 300:
            raise RuntimeError(f"GETs failed: {g.as_dict()}")
        t_nf = time.monotonic()
        c.make_nearfull(2)
        notes["nearfull"] = f"OSD_NEARFULL {time.monotonic() - t_nf:.1f} s after injectfull"
        # Scrub backlog: noscrub/nodeep-scrub with osd_scrub_max_interval 60 and osd_deep_scrub_interval 90
        # (warnings at 90 s and 157.5 s). 40 s later the 8 PGs of the data pool are scrubbed on request
        # (operator scrubs run despite noscrub), so at capture 41 of 49 PGs are overdue and those 8 are not.
        t0 = time.time()
        c.block_scrubs(max_interval=60, deep_interval=90)
        time.sleep(max(0.0, t0 + 40 - time.time()))
        c.ceph("osd", "pool", "scrub", "default.rgw.buckets.data", fmt_json=False)
        pool_id = next(p["pool_id"] for p in c.ceph("osd", "pool", "ls", "detail")
                       if p["pool_name"] == "default.rgw.buckets.data")  # fmt: skip

        def data_pgs_scrubbed():
            stamps = [parse_stamp(s["last_scrub_stamp"]) for s in c.scrub_stamps()
                      if s["pgid"].startswith(f"{pool_id}.")]  # fmt: skip
            return min(stamps) if all(x > t0 for x in stamps) else None

        youngest_start = wait_for(data_pgs_scrubbed, 60, what="the requested scrub of the data pool")
        total = len(c.scrub_stamps())
        expected = total - c.pg_num

        def overdue_count():
            check = c.health_checks().get("PG_NOT_SCRUBBED", {})
            return check.get("summary", {}).get("count") == expected

        wait_for(overdue_count, 150, what=f"{expected} PGs not scrubbed in time")
        left = youngest_start + 90 - time.time()
        notes["scrub"] = (
            f"PG_NOT_SCRUBBED for {expected} of {total} PGs {time.time() - t0:.0f} s after noscrub; "
            f"the data pool's PGs would be overdue {left:.0f} s later"
        )
        log(notes["scrub"])
        if left < 10:
            raise RuntimeError("too little time left to capture before the data pool's PGs go overdue")
        base = (
            "osd.0: 256 MiB DB, BlueFS spillover since its first start; osd.1, osd.2: 1 GiB DB, no spillover. "
            "Bucket reshard-me (owner loadgen): 300 objects of 4 KiB, dynamically resharded "
            f"1 -> {r['after']['num_shards']} shards "
            "(rgw_max_objs_per_shard=100, rgw_override_bucket_index_max_shards=1), then 300 GETs. "
            "osd.2: `ceph daemon osd.2 injectfull nearfull` (OSD_NEARFULL). Scrubs: noscrub + nodeep-scrub, "
            "osd_scrub_max_interval=60, osd_deep_scrub_interval=90 (PG_NOT_SCRUBBED after 90 s, "
            f"PG_NOT_DEEP_SCRUBBED after 157.5 s); {expected} of {total} PGs not scrubbed in time, the "
            f"{c.pg_num} PGs of default.rgw.buckets.data scrubbed on request 40 s after the flags were set."
        )
        sets = [("", "reshard-me", base)]
        rows, data = {}, {}
        rows[""], data[""] = capture_set(c, out, "", "reshard-me", keep_existing)
        captured = data[""]["health_detail.json"]["checks"]["PG_NOT_SCRUBBED"]["summary"]
        notes["scrub_captured"] = captured
        log(f"base set captured; PG_NOT_SCRUBBED in it: {captured}")

        t_q = time.monotonic()
        entry = c.queue_reshard("queued-reshard", objects=250, size=4096)
        notes["queued"] = (
            f"queued-reshard in `reshard list` {time.monotonic() - t_q:.0f} s after hold_reshards(): {entry}"
        )
        log(notes["queued"])
        queued = (
            "As the base set, and bucket queued-reshard just filled with 250 objects of 4 KiB in 1 shard: its "
            "reshard is queued (`reshard list` non-empty, tentative_new_num_shards 5) and held there: "
            "rgw_reshard_thread_interval raised to 600 s just before (TestCluster.hold_reshards)."
        )
        sets.append(("_queued", "queued-reshard", queued))
        rows["_queued"], data["_queued"] = capture_set(c, out, "_queued", "queued-reshard", keep_existing)

        t_r = time.monotonic()
        c.release_reshards()
        after = wait_for(lambda: (s := c.bucket_stats("queued-reshard"))["num_shards"] > 1 and s, 60,
                         what="queued-reshard resharded")  # fmt: skip
        notes["released"] = (
            f"RGW restarted with rgw_reshard_thread_interval 10: queued-reshard resharded to "
            f"{after['num_shards']} shards {time.monotonic() - t_r:.0f} s later"
        )
        log(notes["released"])
        resharded = (
            "As above, after the RGW (restarted with rgw_reshard_thread_interval back at 10 s) processed the "
            f"queue: queued-reshard has {'a new instance id' if c.release.root is None else KEPT_ID}, "
            f"the same marker and {after['num_shards']} shards; "
            "`reshard list` is empty again."
        )
        sets.append(("_resharded", "queued-reshard", resharded))
        rows["_resharded"], data["_resharded"] = capture_set(c, out, "_resharded", "queued-reshard", keep_existing)
        notes["total"] = f"{time.monotonic() - t:.0f} s from start to the last capture"
        version = c.ceph("version")["version"]
        origin = "Debian 12 packages" if c.release.root is None else f"Debian packages in {c.release.root}"
        write_captured_md(out, sets, rows, notes, append=keep_existing, version=f"{version}, {origin}")
        c.clear_nearfull(2)
        c.unblock_scrubs()
        log(f"done: {json.dumps(notes, default=str)}")
    finally:
        c.stop()
    return 0


KEPT_ID = "the same instance id (a new index generation)"


def write_captured_md(out: Path, sets: list, rows: dict, notes: dict, append: bool, version: str) -> None:
    """CAPTURED.md: what was captured, how, and in which condition (append=True: one more section)."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    h1, h2 = ("##", "###") if append else ("#", "##")
    parts = [
        f"{h1} Capture session {stamp}\n\n{version}. Made by `python -m cluster.capture_fixtures --scenario`\n"
        "(cluster/capture_fixtures.py): a `cluster.testcluster.TestCluster` (1 mon, 1 mgr, 3 BlueStore OSDs on\n"
        "4 GiB files with separate DB files of 256 MiB / 1 GiB / 1 GiB, pool size 1, 8 PGs per pool, 1 RGW) with\n"
        "each condition made to happen for real. Nothing is edited by hand; `.json` files are the command's JSON\n"
        "re-indented (indent 1, sorted keys). Field paths and version differences: tests/fixtures/README.md.\n"
        + ("Files that already existed were kept; the tables list the files this session wrote.\n" if append else "")
        + "\nMeasured during this capture:\n\n"
        + "".join(f"- {k}: {v}\n" for k, v in notes.items())
    ]
    for suffix, _bucket, condition in sets:
        title = {"": "Base set (no suffix)", "_queued": "Set `_queued`", "_resharded": "Set `_resharded`"}[suffix]
        parts.append(f"\n{h2} {title}\n\nCondition: {condition}\n\n" + table(rows[suffix]))
    doc = out / "CAPTURED.md"
    if append and doc.exists():
        with doc.open("a") as f:
            f.write("\n" + "".join(parts))
    else:
        doc.write_text("".join(parts))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="e.g. tests/fixtures/pacific")
    p.add_argument("--scenario", action="store_true", help="start a cluster and run the whole scenario")
    p.add_argument("--work-dir", help="with --scenario: the cluster's directory (default: a temp dir)")
    p.add_argument("--keep", action="store_true", help="with --scenario: keep the cluster's directory")
    p.add_argument(
        "--keep-existing",
        action="store_true",
        help="do not overwrite files already in --out (tests pin values of earlier captures); append to CAPTURED.md",
    )
    p.add_argument("--dir", help="the directory of a running cluster (python -m cluster.testcluster start --dir)")
    p.add_argument("--suffix", default="", help="added to every file name (then the base-only files are skipped)")
    p.add_argument("--bucket", default="reshard-me", help="bucket for reshard status / metadata get")
    p.add_argument("--condition", default="", help="what the cluster was doing (for CAPTURED.md)")
    p.add_argument("--release", default="pacific", help="with --scenario: pacific (the host's), reef or tentacle")
    args = p.parse_args(argv)
    out = Path(args.out)
    if args.scenario:
        return scenario(out, args.work_dir, args.keep, args.keep_existing, args.release)
    if not args.dir:
        p.error("--dir or --scenario")
    c = TestCluster.attach(args.dir)
    c.refresh_active_mgr()
    rows, _ = capture_set(c, out, args.suffix, args.bucket, args.keep_existing)
    with (out / "CAPTURED.md").open("a") as f:
        f.write(f"\n## Set `{args.suffix or '(no suffix)'}` from {args.dir}\n\nCondition: {args.condition}\n\n")
        f.write(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
