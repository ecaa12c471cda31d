"""Capture, from a running test cluster, how a release shows bucket quotas, bucket owners of
several users and tenants (`tenant$user`) and a user's own quota, into tests/fixtures/<release>/
(files `*_quotas*.json`, `*user_quota*.json` and a section of CAPTURED.md):

  python -m cluster.testcluster start --dir D --release reef
  python -m cluster.capture_quotas --dir D --out tests/fixtures/reef
  python -m cluster.testcluster stop --dir D

Three owners: `acme$ops` and `acme$dev` (tenant acme) and `quota-web` (no tenant). Bucket quotas
of every shape: size and objects (acme/ops-logs), objects only (acme/ops-img), set but disabled
(acme/dev-a), none (acme/dev-b), size only (quota-web's web-1), none (web-2); user quotas on
acme$ops and quota-web. Each file is one command's output, re-indented (indent 1, sorted keys).

It also measures what a user's quota costs to read (`GET /admin/user?uid=U`): the RGW's RADOS
ops (its `perf dump objecter` op count) for each of PROBE_USERS users read once after an RGW
restart (cold: not in RGW's caches) and once more (warm), less the RGW's background rate.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from cluster import s3load  # noqa: E402
from cluster.capture_fixtures import admin_api_sigv4, log, table  # noqa: E402
from cluster.helpers import RGW_NAME, CephError  # noqa: E402
from cluster.testcluster import TestCluster, wait_for  # noqa: E402

MiB = 1 << 20
# owner (tenant$user or user) -> {bucket: (max size bytes, max objects, enabled, objects put)}; None: no quota set
OWNERS: dict[str, dict[str, tuple[int, int, bool, int] | None]] = {
    "acme$ops": {"ops-logs": (10 * MiB, 1000, True, 40), "ops-img": (-1, 500, True, 12)},
    "acme$dev": {"dev-a": (5 * MiB, 100, False, 3), "dev-b": None},
    "quota-web": {"web-1": (20 * MiB, -1, True, 25), "web-2": None},
}
USER_QUOTAS = {"acme$ops": (1 << 30, 100_000), "quota-web": (2 << 30, -1)}
# The bucket read the way our sources read it, per quota shape (file suffix -> bucket key)
SHAPES = {
    "both": "acme/ops-logs",
    "objects": "acme/ops-img",
    "disabled": "acme/dev-a",
    "none": "acme/dev-b",
    "size": "web-1",
}
PROBE_USERS = 40
ADMIN_PROBE = "quota-web"
QUOTA_SYNC = ("rgw_bucket_quota_ttl", "rgw_user_quota_bucket_sync_interval", "rgw_user_quota_sync_interval")
OBJECT_SIZE = 4096


def split(owner: str) -> tuple[str, str]:
    tenant, sep, user = owner.partition("$")
    return (tenant, user) if sep else ("", owner)


def bucket_key(owner: str, bucket: str) -> str:
    tenant = split(owner)[0]
    return f"{tenant}/{bucket}" if tenant else bucket


def make_owners(c: TestCluster) -> None:
    for owner, buckets in OWNERS.items():
        tenant, user = split(owner)
        try:  # made by an earlier run on this cluster
            made = c.radosgw_admin("user", "info", "--uid", owner)
        except CephError:
            args = ["user", "create", "--uid", user, "--display-name", f"quota capture {owner}"]
            made = c.radosgw_admin(*args, *(["--tenant", tenant] if tenant else []))
        s3 = s3load.client(c.rgw_endpoint, made["keys"][0]["access_key"], made["keys"][0]["secret_key"])
        for bucket, quota in buckets.items():
            s3.create_bucket(Bucket=bucket)
            if quota is None:
                continue
            size, objects, enabled, puts = quota
            for i in range(puts):
                s3.put_object(Bucket=bucket, Key=f"o{i}", Body=b"q" * OBJECT_SIZE)
            which = [f"--bucket={bucket_key(owner, bucket)}"]  # as the runbook has operators write it
            c.radosgw_admin("quota", "set", "--quota-scope=bucket", *which, f"--max-size={size}",
                            f"--max-objects={objects}", fmt_json=False)  # fmt: skip
            if enabled:
                c.radosgw_admin("quota", "enable", "--quota-scope=bucket", *which, fmt_json=False)
    for owner, (size, objects) in USER_QUOTAS.items():
        c.radosgw_admin("quota", "set", "--quota-scope=user", f"--uid={owner}", f"--max-size={size}",
                        f"--max-objects={objects}", fmt_json=False)  # fmt: skip
        c.radosgw_admin("quota", "enable", "--quota-scope=user", f"--uid={owner}", fmt_json=False)


def captures(c: TestCluster) -> list[tuple[str, str, Any]]:
    rows: list[tuple[str, str, Any]] = [
        ("bucket_stats_quotas.json", "radosgw-admin bucket stats", c.radosgw_admin("bucket", "stats")),
        ("admin_api_bucket_stats_quotas.json", "GET /admin/bucket?stats=true&format=json (SigV4)",
         admin_api_sigv4(c, "bucket", stats="true")),
        ("admin_api_metadata_bucket_quotas_page.json",
         "GET /admin/metadata/bucket?max-entries=1000&format=json (SigV4)",
         admin_api_sigv4(c, "metadata/bucket", **{"max-entries": "1000"})),
    ]  # fmt: skip
    for shape, key in SHAPES.items():
        rows.append((f"bucket_stats_quota_{shape}.json", f"radosgw-admin bucket stats --bucket {key}",
                     c.radosgw_admin("bucket", "stats", "--bucket", key)))  # fmt: skip
        rows.append((f"admin_api_bucket_quota_{shape}.json",
                     f"GET /admin/bucket?bucket={key}&stats=true&format=json (SigV4)",
                     admin_api_sigv4(c, "bucket", bucket=key, stats="true")))  # fmt: skip
    both = SHAPES["both"]
    instance = f"{both}:{c.radosgw_admin('bucket', 'stats', '--bucket', both)['id']}"
    rows.append(("admin_api_metadata_bucket_instance_quota.json",
                 f"GET /admin/metadata/bucket.instance?key={instance}&format=json (SigV4)",
                 admin_api_sigv4(c, "metadata/bucket.instance", key=instance)))  # fmt: skip
    for owner in USER_QUOTAS:
        name = owner.replace("$", "_")
        rows += [
            (f"user_info_quota_{name}.json", f"radosgw-admin user info --uid {owner}",
             redacted(c.radosgw_admin("user", "info", "--uid", owner))),
            (f"admin_api_user_quota_{name}.json", f"GET /admin/user?uid={owner}&format=json (SigV4)",
             redacted(admin_api_sigv4(c, "user", uid=owner))),
            (f"admin_api_user_quota_only_{name}.json",
             f"GET /admin/user?quota&uid={owner}&quota-type=user&format=json (SigV4)",
             admin_api_sigv4(c, "user", quota="", uid=owner, **{"quota-type": "user"})),
        ]  # fmt: skip
    return rows


def rgw_ops(c: TestCluster) -> int:
    dump = c.admin_socket(RGW_NAME, "perf", "dump")
    return sum(int(v["op"]) for k, v in dump.items() if k == "objecter" or k.startswith("objecter-"))


def background_rate(c: TestCluster, seconds: float = 10.0) -> float:
    a, t = rgw_ops(c), time.monotonic()
    time.sleep(seconds)
    return (rgw_ops(c) - a) / (time.monotonic() - t)


def batch_ops(c: TestCluster, reads: list[Callable[[], Any]]) -> tuple[float, float]:
    """(RADOS ops the RGW sent for the reads, in all, the RGW's background included; seconds)."""
    before, start = rgw_ops(c), time.monotonic()
    for read in reads:
        read()
    return rgw_ops(c) - before, time.monotonic() - start


def measure_user_reads(c: TestCluster) -> dict[str, Any]:
    """RADOS ops the RGW sends for one `GET /admin/user?uid=U`, cold (after an RGW restart) and
    warm, and for one bucket's stats (the poll's own read) beside it: each a batch of
    PROBE_USERS reads, less the RGW's background rate measured before and after."""
    users = [f"quota-probe-{i:02d}" for i in range(PROBE_USERS)]
    for u in users:
        c.radosgw_admin("user", "create", "--uid", u, "--display-name", u, fmt_json=False)
    # The test cluster's RGW syncs its users' stats every second: Ceph's defaults meanwhile, so
    # its background is quiet enough to see a few ops per read.
    for option in QUOTA_SYNC:
        c.ceph("config", "rm", "client.rgw", option, fmt_json=False)
    try:
        c.restart_daemon(RGW_NAME)
        wait_for(c.rgw_answers, 60, interval=0.5, what="the RGW after restart")
        admin_api_sigv4(c, "user", uid=ADMIN_PROBE)  # the admin user's own lookup (auth), then cached
        background = background_rate(c)
        info: list[Callable[[], Any]] = [partial(admin_api_sigv4, c, "user", uid=u) for u in users]
        quota_only: list[Callable[[], Any]] = [
            partial(admin_api_sigv4, c, "user", quota="", uid=u, **{"quota-type": "user"}) for u in users
        ]
        stats: list[Callable[[], Any]] = [
            partial(admin_api_sigv4, c, "bucket", bucket=SHAPES["both"], stats="true") for _ in users
        ]
        batches: dict[str, list[Callable[[], Any]]] = {
            "user_info_cold": info,
            "user_info_warm": info,
            "user_quota_only_warm": quota_only,
            "bucket_stats_1_shard_warm": stats,
        }
        spent = {name: batch_ops(c, reads) for name, reads in batches.items()}
        background = (background + background_rate(c)) / 2
    finally:
        for option in QUOTA_SYNC:
            c.ceph("config", "set", "client.rgw", option, "1", fmt_json=False)
        for u in users:
            c.radosgw_admin("user", "rm", "--uid", u, fmt_json=False)
    out: dict[str, Any] = {"reads_per_batch": len(users), "background_ops_per_second": round(background, 2)}
    for name, (ops, seconds) in spent.items():
        out[name] = round((ops - background * seconds) / len(users), 2)
        out[name + "_raw_ops"] = ops
        out[name + "_seconds"] = round(seconds, 2)
    return out


def redacted(doc: Any) -> Any:
    """A user's answer without its secret keys (a throwaway cluster's, still not to be committed)."""
    if isinstance(doc, dict):
        return {k: "(redacted)" if k == "secret_key" and v else redacted(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [redacted(v) for v in doc]
    return doc


def describe(bucket: str, quota: tuple[int, int, bool, int] | None) -> str:
    if quota is None:
        return f"{bucket} (no quota)"
    size, objects, enabled, puts = quota
    state = "enabled" if enabled else "disabled"
    return f"{bucket} (max_size {size}, max_objects {objects}, {state}, {puts} objects of 4 KiB)"


def capture(c: TestCluster, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    make_owners(c)
    log("owners, buckets and quotas made")
    # RGW syncs a bucket's stats into its index headers as it writes them: read them settled.
    wait_for(lambda: c.bucket_stats(SHAPES["both"])["usage"].get("rgw.main", {}).get("num_objects") == 40, 30,
             what="the stats of acme/ops-logs")  # fmt: skip
    written = []
    for name, how, data in captures(c):
        (out / name).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        written.append((name, how))
    measured = measure_user_reads(c)
    log(f"measured: {measured}")
    (out / "user_quota_read_cost.json").write_text(json.dumps(measured, indent=1, sort_keys=True) + "\n")
    version = c.ceph("version")["version"]
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    owners = "; ".join(f"`{o}`: " + ", ".join(describe(b, q) for b, q in bs.items()) for o, bs in OWNERS.items())
    users = "; ".join(f"`{o}` max_size {s}, max_objects {n}" for o, (s, n) in USER_QUOTAS.items())
    with (out / "CAPTURED.md").open("a") as f:
        f.write(
            f"\n## Quotas and owners capture {stamp}\n\n{version}. Made by `python -m cluster.capture_quotas`"
            " (cluster/capture_quotas.py) on a `python -m cluster.testcluster start` cluster.\n\n"
            f"Condition: buckets of three owners, made by each owner over S3, their quotas set with "
            f"`radosgw-admin quota set --quota-scope=bucket --bucket=<key>` (and `quota enable`, except where "
            f"disabled): {owners}. User quotas (`--quota-scope=user`, enabled): {users}. The `_quota_<shape>` "
            f"files are one bucket each: {', '.join(f'{s} {k}' for s, k in SHAPES.items())}.\n\n"
            f"Measured (`user_quota_read_cost.json`: RADOS ops the RGW sent per request, its objecter op "
            f"count over a batch of {measured['reads_per_batch']} requests less its background rate of "
            f"{measured['background_ops_per_second']}/s, with Ceph's default quota sync intervals meanwhile): "
            f"`GET /admin/user?uid=U` {measured['user_info_cold']} cold (each user read once after an RGW "
            f"restart), {measured['user_info_warm']} warm; `GET /admin/user?quota&quota-type=user` "
            f"{measured['user_quota_only_warm']} warm; beside them one bucket's stats (1 shard), warm, "
            f"{measured['bucket_stats_1_shard_warm']}. The user files' `secret_key` values are replaced by "
            '"(redacted)", nothing else.\n\n' + table(written + [("user_quota_read_cost.json", "(measured)")])
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
