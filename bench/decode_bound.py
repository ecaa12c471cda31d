"""What decoding one RGW or Ceph response can hold, per body shape, beside its bound.

    .venv/bin/python -m bench.decode_bound                 # ~2 minutes, ~2 GB of memory
    .venv/bin/python -m bench.decode_bound --mb 32         # smaller bodies

Each shape is a body of --mb MiB (the real 256 MiB cap by default) decoded in a process of
its own the way the RGW client decodes an Admin Ops answer (io/admin_ops.AdminOps.decode,
the cap set to the body's size): the peak resident memory the decode added to the raw body,
its outcome (decoded, or the one line refusing it) and the bound, json_bound.BUDGET_RATIO x
the cap (core/json_bound.py). The hostile shapes are those of the review: `[{},{},...]`,
`[[],[],...]`, `{"":{}}` elements, deep nesting, many tiny numbers and strings, an object
of millions of keys; the real ones are the bucket poll's two metadata listings.

Then the bucket poll's first listing of --buckets buckets (10^6), over the Admin Ops API and
through radosgw-admin: the peak, and the memory the poll still holds after it (its record of
each bucket), traced (tracemalloc) and resident, each in a process of its own.

The figures of a tree without the bound: run this same file with that tree first on the
path (it needs only io/admin_ops.py and core/bucket_poll.py).
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ZONE = "2c7f9a10-6d3e-4b8a-a1f2-7e5d4c3b2a19"


def _repeat(unit: bytes, size: int) -> bytes:
    n = max(1, (size - 2) // (len(unit) + 1))
    return b"[" + (unit + b",") * (n - 1) + unit + b"]"


def _names(size: int, instances: bool) -> bytes:
    """A metadata listing as radosgw-admin prints it whole, of at most `size` bytes."""
    tail = (lambda i: f":{ZONE}.{4100 + i}.{i + 1}") if instances else (lambda i: "")
    n = size // (len(f'"s3bench-00000000{tail(size)}",'))
    return json.dumps([f"s3bench-{i:08d}{tail(i)}" for i in range(n)], separators=(",", ":")).encode()


SHAPES = {
    "[{},{},...]": lambda size: _repeat(b"{}", size),
    "[[],[],...]": lambda size: _repeat(b"[]", size),
    '[{"":{}},...]': lambda size: _repeat(b'{"":{}}', size),
    "deep [[[...]]]": lambda size: b"[" * (size // 2) + b"]" * (size // 2),
    "[0.0,0.0,...]": lambda size: _repeat(b"0.0", size),
    '["ab","ab",...]': lambda size: _repeat(b'"ab"', size),
    '{"0":0,"1":0,...}': lambda size: b"{" + b",".join(b'"%x":0' % i for i in range(size // 11)) + b"}",
    "bucket names (real)": lambda size: _names(size, instances=False),
    "bucket instances (real)": lambda size: _names(size, instances=True),
}


def rss_mb(field: str = "VmRSS") -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        return int(next(line.split()[1] for line in f if line.startswith(field + ":"))) / 1024


def _reset_peak() -> bool:
    """Resets VmHWM (Linux): the peak then counts from here, not from building the body."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


def child(shape: str, size: int) -> None:
    """Decode one body and print one JSON line: its figures."""
    from ceph_scale.io.admin_ops import AdminOps, AdminOpsError

    raw = SHAPES[shape](size)
    ops = AdminOps("http://rgw.invalid", "a", "b", max_response_mb=max(1, -(-len(raw) >> 20)))
    gc.collect()
    exact = _reset_peak()
    before = rss_mb()
    started = time.perf_counter()
    try:
        value = ops.decode("/admin/metadata/bucket", raw)
        outcome = f"decoded ({type(value).__name__})"
    except AdminOpsError as e:
        outcome = f"refused: {e}"
    except Exception as e:  # noqa: BLE001 - what escapes unbounded code is the figure here
        outcome = f"escaped: {type(e).__name__}: {str(e)[:80]}"
    seconds = time.perf_counter() - started
    peak = rss_mb("VmHWM") - before if exact else float("nan")
    print(json.dumps({"bytes": len(raw), "cap": ops.max_bytes, "peak_mb": peak, "s": seconds, "outcome": outcome}))


def measure(shape: str, size: int) -> dict:
    cmd = [sys.executable, "-m", "bench.decode_bound", "--child", shape, "--mb", str(size >> 20)]
    done = subprocess.run(cmd, cwd=Path.cwd(), capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"bytes": size, "cap": size, "peak_mb": float("nan"), "s": float("nan"), "outcome": f"died: {last}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def bound_mb(cap: int) -> float | None:
    try:
        from ceph_scale.core import json_bound
    except ImportError:  # a tree without the bound
        return None
    return json_bound.BUDGET_RATIO * cap / 2**20


def shapes(size: int) -> None:
    print(f"One response of {size >> 20} MiB, decoded as the RGW client decodes it (peak RSS over the raw body):")
    print(f"  {'shape':26} {'body':>8} {'peak':>9} {'x body':>7} {'bound':>8} {'time':>7}  outcome")
    for shape in SHAPES:
        r = measure(shape, size)
        bound = bound_mb(r["cap"])
        body_mb = r["bytes"] / 2**20
        print(
            f"  {shape:26} {body_mb:6.0f}MB {r['peak_mb']:7.0f}MB {r['peak_mb'] / body_mb:6.1f}x "
            f"{'-' if bound is None else f'{bound:.0f}MB':>8} {r['s']:6.2f}s  {r['outcome'][:120]}"
        )


def listing_child(buckets: int, trace: bool, via: str) -> None:
    """The bucket poll's first listing of `buckets` buckets, over the Admin Ops API (pages of
    1000 keys) or through radosgw-admin (every key at once); one JSON line of figures."""
    from ceph_scale.core import bucket_poll, bucket_poll_limits
    from ceph_scale.core.config import Thresholds
    from ceph_scale.io.admin_ops import LIST_PAGE, AdminOps, AdminOpsBuckets
    from ceph_scale.io.radosgw_admin import RadosgwAdminBuckets

    def keys(start: int, end: int, instances: bool) -> list[str]:
        tail = (lambda i: f":{ZONE}.{4100 + i}.{i + 1}") if instances else (lambda i: "")
        return [f"s3bench-{i:07d}{tail(i)}" for i in range(start, end)]

    class Listings(AdminOps):
        def get_raw(self, path: str, params: dict[str, str], timeout: float) -> bytes:
            start = int(params.get("marker") or 0)
            end = min(buckets, start + LIST_PAGE)
            more = "true" if end < buckets else "false"
            page = {"keys": keys(start, end, path.endswith("instance")), "truncated": more, "marker": str(end)}
            return json.dumps(page).encode()

    reader: Any
    if via == "admin-ops":
        reader = AdminOpsBuckets(Listings("http://rgw.invalid", "a", "b"))
    else:
        files = {}
        for section in ("bucket", "bucket.instance"):
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(keys(0, buckets, section == "bucket.instance"), f, separators=(",", ":"))
                files[section] = f.name
        reader = RadosgwAdminBuckets(lambda args: ["sh", "-c", 'cat "$0"', files[args[2]]])
    gc.collect()
    _reset_peak()
    before = rss_mb()
    if trace:
        tracemalloc.start()
    poll = bucket_poll.BucketPoll()
    part = poll.poll(1e9, reader, bucket_poll_limits.PollLimits.of(Thresholds(), 100_000), frozenset(), lambda: 0.5)
    assert len(poll.entries) == buckets and not part.buckets
    del part, reader
    gc.collect()
    kept: float
    peak: float
    kept, peak = tracemalloc.get_traced_memory() if trace else (0, 0)
    if not trace:
        peak, kept = (rss_mb("VmHWM") - before) * 2**20, (rss_mb() - before) * 2**20
    print(json.dumps({"peak_mb": peak / 2**20, "kept_mb": kept / 2**20}))


def listing(buckets: int) -> None:
    print(f"The bucket poll's first listing of {buckets:,} buckets, and what it holds after it:")
    for via in ("admin-ops", "radosgw-admin"):
        for how in ("traced", "resident"):
            cmd = [sys.executable, "-m", "bench.decode_bound", "--child", f"listing-{how}-{via}"]
            done = subprocess.run(cmd + ["--buckets", str(buckets)], capture_output=True, text=True, check=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            each = r["kept_mb"] * 2**20 / buckets
            figures = f"peak {r['peak_mb']:5.0f} MB, kept {r['kept_mb']:5.0f} MB ({each:.0f} bytes a bucket)"
            print(f"  {via:13} {how:8}: {figures}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=int, default=256, help="body size in MiB (default 256, the real cap)")
    ap.add_argument("--buckets", type=int, default=1_000_000, help="buckets listed (default 10^6)")
    ap.add_argument("--only", default="shapes,listing", help="shapes, listing or both (default)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child and args.child.startswith("listing-"):
        _, how, via = args.child.split("-", 2)
        listing_child(args.buckets, trace=how == "traced", via=via)
        return
    if args.child:
        child(args.child, args.mb << 20)
        return
    if "shapes" in args.only:
        shapes(args.mb << 20)
    if "listing" in args.only:
        listing(args.buckets)


if __name__ == "__main__":
    main()
