"""radosgw-admin as a subprocess, bounded by a timeout: both producers' runner (the sidecar's
reshard queue without librados, the module's bucket poll and queue as the manager)."""

from __future__ import annotations

import os
import shutil
import time
from typing import Any, Callable

from ..core import inputs, json_bound
from ..core.parse_buckets import user_quota
from ..core.snapshot import Bucket, UserQuota
from . import child_output
from .admin_ops import LIST_PAGE, instances_by_bucket, listing_reads

# What the bucket poll's reads cost through radosgw-admin, measured on Pacific 16.2.15: every
# run starts a RADOS client that reads the zone and sets up its watches, about 45 RADOS ops
# (docs/cluster-cost.md), so a bucket's stats cost its shards plus 50.
PROCESS_READS = 45
# Exit statuses of a bucket or instance that does not exist: ENOENT, and RGW's
# ERR_NO_SUCH_BUCKET (2002) as the shell sees it.
GONE = (2, 2002 % 256)


class RadosgwAdminError(RuntimeError):
    """The tool missing, timed out or failed; with its last stderr line."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.returncode = returncode


def run(argv: list[str], timeout: float, max_bytes: int = child_output.MAX_OUTPUT_BYTES) -> bytes:
    """stdout of the tool (JSON text; `[]` when it printed nothing), at most `max_bytes`: the
    Admin Ops reads' cap (child_output.py), which the same listings read over HTTP are held to."""
    if shutil.which(argv[0]) is None:
        raise RadosgwAdminError(f"{argv[0]} is not installed on this host (Debian/Ubuntu: apt install radosgw)")
    what = " ".join(_subcommand(argv))
    try:
        proc = child_output.run(argv, timeout, max_bytes, env=dict(os.environ))
    except child_output.ChildTimeout:
        raise RadosgwAdminError(f"radosgw-admin {what} timed out after {timeout:g}s") from None
    except child_output.ChildOutputTooLarge:
        raise RadosgwAdminError(
            f"radosgw-admin {what}: output over the {child_output.cap_text(max_bytes)} cap, stopped"
        ) from None
    except OSError as e:
        raise RadosgwAdminError(f"radosgw-admin {what}: {e}") from None
    if proc.returncode != 0:
        raise RadosgwAdminError(
            f"radosgw-admin {what} exited {proc.returncode}: {proc.last_error_line()}", proc.returncode
        )
    return proc.stdout.strip() or b"[]"


def _subcommand(argv: list[str]) -> list[str]:
    """The command's words (`reshard list`), without the options and their values."""
    words, skip = [], False
    for arg in argv[1:]:
        if arg.startswith("-"):
            skip = "=" not in arg
        elif skip:
            skip = False
        else:
            words.append(arg)
    return words


class RadosgwAdminBuckets:
    """The bucket poll's reads through radosgw-admin (core/bucket_poll.BucketReader), where
    the Admin Ops API is not configured: `argv(args)` is the command line for those arguments."""

    stats_overhead = PROCESS_READS + 5
    meta_reads = PROCESS_READS + 2
    user_quota_reads = PROCESS_READS + 2

    def __init__(self, argv: Callable[[list[str]], list[str]]) -> None:
        self.argv = argv

    def _json(self, args: list[str], time_left: Callable[[], float]) -> Any:
        raw = run(self.argv(args), time_left())
        try:
            return json_bound.loads(raw)
        except json_bound.DecodeBoundError as e:
            raise RadosgwAdminError(f"radosgw-admin {' '.join(args[:2])}: {e}") from None
        except ValueError as e:
            raise RadosgwAdminError(f"radosgw-admin {' '.join(args[:2])}: invalid JSON: {e}") from None

    def list_instances(self, time_left: Callable[[], float]) -> tuple[dict[str, tuple[str, ...]], int]:
        buckets, _ = inputs.metadata_page(self._json(["metadata", "list", "bucket"], time_left), "bucket")
        instances, _ = inputs.metadata_page(
            self._json(["metadata", "list", "bucket.instance"], time_left), "bucket.instance"
        )
        pages = listing_reads(max(1, -(-len(buckets) // LIST_PAGE)), max(1, -(-len(instances) // LIST_PAGE)))
        return instances_by_bucket([buckets], [instances]), 2 * PROCESS_READS + pages

    def shards(self, key: str, instance_id: str, time_left: Callable[[], float]) -> int | None:
        try:
            return inputs.instance_shards(
                self._json(["metadata", "get", f"bucket.instance:{key}:{instance_id}"], time_left)
            )
        except RadosgwAdminError as e:
            if e.returncode in GONE:
                return None
            raise

    def stats(self, key: str, time_left: Callable[[], float]) -> Bucket | None:
        try:
            return inputs.bucket_record(self._json(["bucket", "stats", "--bucket", key], time_left), time.time())
        except RadosgwAdminError as e:
            if e.returncode in GONE:
                return None
            raise

    def user_quota(self, owner: str, time_left: Callable[[], float]) -> UserQuota | None:
        try:
            return user_quota(self._json(["user", "info", "--uid", owner], time_left), owner, time.time())
        except RadosgwAdminError as e:
            if e.returncode in GONE:
                return None
            raise
