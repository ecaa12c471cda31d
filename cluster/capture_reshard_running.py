"""Capture, from a running Reef or Tentacle test cluster, what a bucket looks like WHILE a reshard
of it is being processed (not queued, not done), into tests/fixtures/<release>/ (files with the
suffix `_reshard_running`, a timeline, and a section of CAPTURED.md):

  python -m cluster.testcluster start --dir D --release reef
  python -m cluster.capture_reshard_running --dir D --out tests/fixtures/reef
  python -m cluster.testcluster stop --dir D

RGW's reshard thread is held (hold_reshards), a bucket of 1 shard is filled with small objects,
the queue entry RGW wrote is replaced by one added by hand (`radosgw-admin reshard add
--num-shards N`), and the queue is processed by `radosgw-admin reshard process` (the code path
of RGW's reshard thread: process_all_logshards -> process_entry -> RGWBucketReshard::execute)
with the smallest batches Ceph accepts (rgw_reshard_batch_size 8, rgw_reshard_max_aio 16, their
minimums). A few thousand entries still take about a second, so the process is also slowed down
from outside: SIGSTOP/SIGCONT by its PID, running `--duty-on` seconds out of every
`--duty-on + --duty-off` (what the cluster sees is the same processing, only slower).

Meanwhile one thread per read polls it every ~0.2 s with time stamps (seconds from the start of
`reshard process`): reshard list, the raw queue entry (omap of reshard.NNNNNNNNNN in
default.rgw.log namespace reshard), the bucket's index objects, bucket stats (CLI and Admin Ops
API), bucket layout, reshard status and the bucket instance metadata (Admin Ops API). The
processing window is where `bucket layout` says `resharding` is not "None"; for each read the
sample taken nearest the middle of that window, entirely inside it, is written.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from cluster import s3load  # noqa: E402
from cluster.capture_fixtures import admin_api_sigv4, log, table  # noqa: E402
from cluster.capture_layout import INDEX_POOL, LOG_POOL  # noqa: E402
from cluster.testcluster import CephError, TestCluster, wait_for  # noqa: E402

BUCKET = "reshard-running"
QUEUE_OBJECTS = [f"reshard.{i:010d}" for i in range(16)]  # rgw_reshard_num_logs 16
SUFFIX = "_reshard_running"
# The smallest values Ceph accepts (18.2 and 20.2: minimum 8 and 16; 1 is refused).
SLOW_FLAGS = ["--rgw-reshard-batch-size=8", "--rgw-reshard-max-aio=16"]


@dataclass
class Ctx:
    bucket: str = BUCKET
    bucket_id: str = ""
    queue_oid: str = ""
    queue_key: str = ""


@dataclass
class Sample:
    t0: float  # seconds from the start of `reshard process` (negative: before it)
    t1: float
    summary: Any
    data: Any = None  # what the file would hold (JSON data or text)
    raw: Optional[bytes] = None  # the raw queue entry


@dataclass
class Read:
    name: str  # file name of the during-processing capture
    how: str  # the command, as written in CAPTURED.md
    get: Callable[[TestCluster, Ctx, str], tuple[Any, Any, Optional[bytes]]]  # -> (data, summary, raw)
    samples: list[Sample] = field(default_factory=list)


def index_objects(c: TestCluster, ctx: Ctx, _tag: str) -> tuple[Any, Any, None]:
    prefix = f".dir.{ctx.bucket_id}."
    names = sorted(n for n in c.rados("-p", INDEX_POOL, "ls").split() if n.startswith(prefix))
    gens: dict[str, int] = {}
    for n in names:  # .dir.<id>.<shard> is generation 0, .dir.<id>.<gen>.<shard> generation <gen>
        parts = n[len(prefix) :].split(".")
        gen = "0" if len(parts) == 1 else parts[0]
        gens[gen] = gens.get(gen, 0) + 1
    shard0 = [n for n in names if n.endswith(".0")]
    return "\n".join(names) + "\n", {"shards_per_generation": gens, "shard0_objects": shard0}, None


def reshard_list(c: TestCluster, ctx: Ctx, _tag: str) -> tuple[Any, Any, None]:
    listed = c.radosgw_admin("reshard", "list") or []
    mine = [e for e in listed if e.get("bucket_name") == ctx.bucket]
    return listed, {"entries": mine}, None


def queue_entry(c: TestCluster, ctx: Ctx, tag: str) -> tuple[Any, Any, Optional[bytes]]:
    path = c.dir / f"reshard-running-entry.{tag}.bin"  # the cluster's directory is seen in the release's root
    path.unlink(missing_ok=True)
    keys = c.rados("-p", LOG_POOL, "-N", "reshard", "listomapkeys", ctx.queue_oid).split()
    if ctx.queue_key not in keys:
        return f"{ctx.queue_oid}: no key {ctx.queue_key!r} (keys: {keys})\n", {"present": False, "keys": keys}, None
    try:
        c.rados("-p", LOG_POOL, "-N", "reshard", "getomapval", ctx.queue_oid, ctx.queue_key, str(path))
    except CephError:
        keys = c.rados("-p", LOG_POOL, "-N", "reshard", "listomapkeys", ctx.queue_oid).split()
        if ctx.queue_key in keys:
            raise
        return f"{ctx.queue_oid}: {ctx.queue_key!r} removed while read\n", {"present": False, "keys": keys}, None
    raw = path.read_bytes()
    path.unlink(missing_ok=True)
    summary = {"present": True, "keys": keys, "bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()[:16]}
    return raw.hex() + "\n", summary, raw


def stats_summary(s: dict) -> dict:
    keys = ("id", "num_shards", "reshard_status", "index_generation")
    usage = s.get("usage", {}).get("rgw.main", {})
    return {**{k: s[k] for k in keys if k in s}, "num_objects": usage.get("num_objects")}


def bucket_stats(c: TestCluster, ctx: Ctx, _tag: str) -> tuple[Any, Any, None]:
    s = c.bucket_stats(ctx.bucket)
    return s, stats_summary(s), None


def admin_bucket_stats(c: TestCluster, ctx: Ctx, _tag: str) -> tuple[Any, Any, None]:
    s = admin_api_sigv4(c, "bucket", bucket=ctx.bucket, stats="true")
    return s, stats_summary(s), None


def bucket_layout(c: TestCluster, ctx: Ctx, _tag: str) -> tuple[Any, Any, None]:
    data = c.radosgw_admin("bucket", "layout", "--bucket", ctx.bucket)
    layout = data["layout"]

    def index(i: dict | None) -> Any:
        return None if i is None else {"gen": i["gen"], "num_shards": i["layout"]["normal"]["num_shards"]}

    summary = {
        "resharding": layout.get("resharding"),
        "current_index": index(layout.get("current_index")),
        "target_index": index(layout.get("target_index")),
        "log_gens": [g["gen"] for g in layout.get("logs", [])],
    }
    return data, summary, None


def reshard_status(c: TestCluster, ctx: Ctx, _tag: str) -> tuple[Any, Any, None]:
    data = c.radosgw_admin("reshard", "status", "--bucket", ctx.bucket)
    return data, {"shards": data}, None


def metadata_instance(c: TestCluster, ctx: Ctx, _tag: str) -> tuple[Any, Any, None]:
    data = admin_api_sigv4(c, "metadata/bucket.instance", key=f"{ctx.bucket}:{ctx.bucket_id}")
    info = data["data"]["bucket_info"]
    keys = ("reshard_status", "num_shards", "new_bucket_instance_id")
    return data, {**{k: info.get(k) for k in keys}, "ver": data.get("ver", {}).get("ver")}, None


def reads(b: str) -> list[Read]:
    return [
        Read(f"reshard_list{SUFFIX}.json", "radosgw-admin reshard list", reshard_list),
        Read(f"reshard_entry{SUFFIX}.txt",
             f"rados -p {LOG_POOL} -N reshard getomapval <queue object> :{b} <file> (hex of the file's bytes; "
             f"the bytes also in reshard_entry{SUFFIX}.bin)", queue_entry),
        Read(f"index_objects{SUFFIX}.txt", f"rados -p {INDEX_POOL} ls | grep '^.dir.<bucket id>.' | sort",
             index_objects),
        Read(f"bucket_stats{SUFFIX}.json", f"radosgw-admin bucket stats --bucket {b}", bucket_stats),
        Read(f"admin_api_bucket_stats{SUFFIX}.json", f"GET /admin/bucket?bucket={b}&stats=true&format=json (SigV4)",
             admin_bucket_stats),
        Read(f"bucket_layout{SUFFIX}.json", f"radosgw-admin bucket layout --bucket {b}", bucket_layout),
        Read(f"reshard_status{SUFFIX}.json", f"radosgw-admin reshard status --bucket {b}", reshard_status),
        Read(f"metadata_bucket_instance{SUFFIX}.json",
             f"GET /admin/metadata/bucket.instance?key={b}:<bucket id>&format=json (SigV4)", metadata_instance),
    ]  # fmt: skip


def take(c: TestCluster, ctx: Ctx, r: Read, t_zero: float, tag: str) -> Sample:
    t0 = time.monotonic() - t_zero
    try:
        data, summary, raw = r.get(c, ctx, tag)
    except Exception as e:  # recorded as what the read said at that time
        data, summary, raw = None, {"error": f"{type(e).__name__}: {str(e)[-300:]}"}, None
    return Sample(round(t0, 2), round(time.monotonic() - t_zero, 2), summary, data, raw)


def poll(c: TestCluster, ctx: Ctx, r: Read, t_zero: float, stop: threading.Event, interval: float) -> None:
    tag = r.name.split(".")[0]
    while not stop.is_set():
        r.samples.append(take(c, ctx, r, t_zero, tag))
        stop.wait(interval)


def run_throttled(proc: subprocess.Popen, on: float, off: float, timeout: float) -> None:
    """Let `proc` run `on` seconds out of every `on + off` (SIGSTOP/SIGCONT by its PID) until it exits."""
    end = time.monotonic() + timeout
    try:
        while proc.poll() is None:
            if time.monotonic() > end:
                raise TimeoutError(f"reshard process still running after {timeout:g}s")
            time.sleep(on)
            if off <= 0 or proc.poll() is not None:
                continue
            os.kill(proc.pid, signal.SIGSTOP)  # still our unreaped child: poll() above said it runs
            try:
                time.sleep(off)
            finally:
                os.kill(proc.pid, signal.SIGCONT)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(20)


def segments(samples: list[Sample]) -> list[dict]:
    """Runs of equal summaries: [{"from": t0 of the first, "to": t1 of the last, "n": count, "summary": ...}]."""
    out: list[dict] = []
    for s in samples:
        if out and out[-1]["summary"] == s.summary:
            out[-1]["to"] = s.t1
            out[-1]["n"] += 1
        else:
            out.append({"from": s.t0, "to": s.t1, "n": 1, "summary": s.summary})
    return out


def window(layout: Read) -> tuple[float, float] | None:
    """(from, to): between the end of the first and the start of the last `bucket layout` sample that
    said the bucket is resharding, processing certainly ran."""
    busy = [s for s in layout.samples if s.summary.get("resharding") not in (None, "None")]
    if not busy:
        return None
    return busy[0].t1, busy[-1].t0


def pick(r: Read, win: tuple[float, float]) -> Sample | None:
    """The sample entirely inside the window nearest its middle (without error)."""
    inside = [s for s in r.samples if win[0] <= s.t0 and s.t1 <= win[1] and "error" not in s.summary]
    middle = (win[0] + win[1]) / 2
    return min(inside, key=lambda s: abs((s.t0 + s.t1) / 2 - middle), default=None)


def capture(
    c: TestCluster, out: Path, bucket: str, objects: int, shards: int, on: float, off: float, interval: float
) -> int:
    if c.release.root is None:
        raise SystemExit("Pacific has its own in-progress sign (new_instance_id): run this on reef or tentacle")
    out.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    log("holding RGW's reshard thread")
    c.hold_reshards()
    s3 = s3load.client(c.rgw_endpoint, *c.user_keys)
    s3.create_bucket(Bucket=bucket)
    t = time.monotonic()
    result = s3load.run(c.rgw_endpoint, *c.user_keys, bucket, objects=objects, size=16, concurrency=8,
                        gets=False, max_seconds=900)  # fmt: skip
    if result.errors or result.puts != objects:
        raise CephError(f"filling {bucket}: {result.puts} PUTs, {result.errors} errors")
    fill = f"{objects} PUTs of 16 B in {time.monotonic() - t:.0f} s"
    log(fill)
    time.sleep(3)  # let the last PUTs' dynamic queueing land before the entry is replaced
    try:
        c.radosgw_admin("reshard", "cancel", "--bucket", bucket, fmt_json=False)
    except CephError:
        pass  # nothing queued
    ctx = Ctx(bucket=bucket, bucket_id=c.bucket_stats(bucket)["id"], queue_key=f":{bucket}")

    def queued() -> Any:
        entry = next((e for e in c.reshard_list() if e["bucket_name"] == bucket), None)
        if entry and entry.get("tentative_new_num_shards", entry.get("new_num_shards")) == shards:
            return entry
        c.radosgw_admin("reshard", "add", "--bucket", bucket, "--num-shards", str(shards), fmt_json=False)
        return None

    wait_for(queued, 60, interval=1, what=f"{bucket} queued by hand to {shards} shards")
    ctx.queue_oid = next(
        oid for oid in QUEUE_OBJECTS
        if ctx.queue_key in c.rados("-p", LOG_POOL, "-N", "reshard", "listomapkeys", oid).split()
    )  # fmt: skip
    log(f"queued by hand in {ctx.queue_oid} key {ctx.queue_key}; bucket id {ctx.bucket_id}")

    rs = reads(bucket)
    before = {r.name: take(c, ctx, r, time.monotonic(), "before") for r in rs}
    proc_log = c.dir / "log" / "reshard-running.process.log"
    argv = ["radosgw-admin", "--conf", str(c.conf_path), "reshard", "process", *SLOW_FLAGS]
    stop = threading.Event()
    t_zero = time.monotonic() + 2.0  # the pollers start 2 s before the process
    wall_zero = time.time() + 2.0
    threads = [threading.Thread(target=poll, args=(c, ctx, r, t_zero, stop, interval), daemon=True) for r in rs]
    for th in threads:
        th.start()
    try:
        time.sleep(max(0.0, t_zero - time.monotonic()))
        log(f"radosgw-admin reshard process, running {on:g} s of every {on + off:g} s")
        with proc_log.open("wb") as f:
            proc = subprocess.Popen(c.release.command(argv), stdout=f, stderr=subprocess.STDOUT, env=c.env())
        run_throttled(proc, on, off, timeout=900)
        t_exit = time.monotonic() - t_zero
        log(f"reshard process exited {proc.returncode} after {t_exit:.1f} s")
        time.sleep(3)  # a few samples after it
    finally:
        stop.set()
        for th in threads:
            th.join(60)
    after = {r.name: take(c, ctx, r, t_zero, "after") for r in rs}
    text = proc_log.read_text(errors="replace")
    done_at = None
    m = re.search(r"^(\S+) .*reshard of bucket \"" + re.escape(bucket) + r"\".*completed successfully", text, re.M)
    if m:
        stamp = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f%z")  # 2026-12-03T06:58:02.315+0000
        done_at = round(stamp.timestamp() - wall_zero, 2)
    if proc.returncode != 0 or done_at is None:
        raise CephError(f"reshard process exited {proc.returncode} without completing {bucket}: {text[-800:]}")

    layout = next(r for r in rs if r.name.startswith("bucket_layout"))
    win = window(layout)
    if win is None or win[1] <= win[0]:
        raise CephError(f"no `bucket layout` sample saw {bucket} resharding: processing too fast, slow it more")
    timeline: dict[str, Any] = {
        "release": c.release.name,
        "bucket": bucket,
        "bucket_id": ctx.bucket_id,
        "queue_object": ctx.queue_oid,
        "objects": objects,
        "num_shards": shards,
        "command": " ".join(a for a in argv if a not in ("--conf", str(c.conf_path))),
        "fill": fill,
        "throttle": {"run_seconds": on, "stopped_seconds": off},
        "process_started": 0.0,
        "process_logged_done": done_at,
        "process_exited": round(t_exit, 2),
        "processing_window": {"from": win[0], "to": win[1]},
        "reads": {},
    }
    written: list[tuple[str, str]] = []
    for r in rs:
        s = pick(r, win)
        timeline["reads"][r.name] = {
            "command": r.how,
            "before": before[r.name].summary,
            "during": segments(r.samples),
            "after": after[r.name].summary,
            "written_sample": None if s is None else {"from": s.t0, "to": s.t1},
        }
        if s is None:
            notes.append(f"{r.name}: no sample inside the processing window")
            continue
        body = s.data if isinstance(s.data, str) else json.dumps(s.data, indent=1, sort_keys=True) + "\n"
        (out / r.name).write_text(body)
        written.append((r.name, f"{r.how}, taken at t={s.t0}..{s.t1} s"))
        if s.raw is not None:
            name = f"reshard_entry{SUFFIX}.bin"
            (out / name).write_bytes(s.raw)
            written.append((name, f"rados -p {LOG_POOL} -N reshard getomapval {ctx.queue_oid} {ctx.queue_key} "
                                  f"{name}, taken at t={s.t0}..{s.t1} s"))  # fmt: skip
    # Tentacle copies most entries in the InLogrecord stage (writes go on, logged) and the logged
    # ones in a short InProgress stage (writes blocked): the first samples that say that stage.
    middle = pick(layout, win)
    stage = None if middle is None else middle.summary["resharding"]
    timeline["processing_window"]["resharding"] = stage
    if stage == "InLogrecord":
        for r in rs:
            s = next((s for s in r.samples if re.search(r'"(InProgress|in-progress)"', json.dumps(s.summary))), None)
            if s is None:
                continue
            name = r.name.replace(SUFFIX, f"{SUFFIX}_inprogress")
            (out / name).write_text(json.dumps(s.data, indent=1, sort_keys=True) + "\n")
            written.append((name, f"{r.how}, taken at t={s.t0}..{s.t1} s (said the InProgress stage)"))
            timeline["reads"][r.name]["written_inprogress_sample"] = {"from": s.t0, "to": s.t1}
    timeline_name = f"timeline{SUFFIX}.json"
    (out / timeline_name).write_text(json.dumps(timeline, indent=1, sort_keys=True) + "\n")
    written.append((timeline_name, "every poll's summary, runs of equal summaries merged (made by this script)"))

    c.release_reshards()  # the reshard thread's usual interval back (RGW restart)
    write_section(c, out, timeline, written, notes)
    log(f"wrote {len(written)} files into {out}")
    return 0


def describe(timeline: dict) -> list[str]:
    """One line per read: its summaries over time."""
    lines = []
    for name, r in timeline["reads"].items():
        runs = "; ".join(
            f"t={seg['from']}..{seg['to']} ({seg['n']}x): `{json.dumps(seg['summary'], sort_keys=True)}`"
            for seg in r["during"]
        )
        lines.append(
            f"- `{name}` before: `{json.dumps(r['before'], sort_keys=True)}`; polled: {runs}; "
            f"after: `{json.dumps(r['after'], sort_keys=True)}`"
        )
    return lines


def write_section(c: TestCluster, out: Path, tl: dict, written: list[tuple[str, str]], notes: list[str]) -> None:
    version = c.ceph("version")["version"]
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    win = tl["processing_window"]
    with (out / "CAPTURED.md").open("a") as f:
        f.write(
            f"\n## Reshard being processed (`{SUFFIX}`), {stamp}\n\n{version}. Made by "
            "`python -m cluster.capture_reshard_running` (cluster/capture_reshard_running.py) on a "
            "`python -m cluster.testcluster start` cluster.\n\n"
            f"Condition: RGW's reshard thread held (rgw_reshard_thread_interval 600), bucket {tl['bucket']} "
            f"(id {tl['bucket_id']}, 1 shard, generation 0) filled with {tl['objects']} objects of 16 B "
            f"({tl['fill']}), the entry RGW queued cancelled and the bucket queued by hand "
            f"(`radosgw-admin reshard add --bucket {tl['bucket']} --num-shards {tl['num_shards']}`, queue object "
            f"{tl['queue_object']}), then the queue processed by `{tl['command']}` (RGW's reshard thread's code "
            f"path), slowed down from outside by SIGSTOP/SIGCONT: running {tl['throttle']['run_seconds']} s of "
            f"every {tl['throttle']['run_seconds'] + tl['throttle']['stopped_seconds']:g} s. Eight threads "
            "polled the reads below every ~0.2 s; t is seconds from the start of `reshard process`, each sample "
            f"from its start to its end. The process logged the reshard complete at t={tl['process_logged_done']} "
            f"and exited at t={tl['process_exited']}. `bucket layout` said `resharding` was not None from "
            f"t={win['from']} to t={win['to']} at least (the processing window; its middle sample said "
            f"`{win['resharding']}`); each `{SUFFIX}` file below is the sample of its read taken entirely inside "
            "that window nearest its middle"
            + (
                "; each `_inprogress` file the first sample of its read that itself said the short InProgress stage "
                "that follows InLogrecord (writes blocked)"
                if win["resharding"] == "InLogrecord"
                else ""
            )
            + f". `timeline{SUFFIX}.json` holds every poll's summary."
            + "".join(f" {n}." for n in notes)
            + "\n\n"
            + table(written)
            + "\nWhat the polls saw over time:\n\n"
            + "\n".join(describe(tl))
            + "\n"
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", required=True, help="the directory of a running reef or tentacle cluster")
    p.add_argument("--out", required=True, help="e.g. tests/fixtures/reef")
    p.add_argument("--bucket", default=BUCKET, help="a new bucket's name")
    p.add_argument("--objects", type=int, default=10000, help="objects in the bucket (index entries to copy)")
    p.add_argument("--num-shards", type=int, default=11)
    p.add_argument("--duty-on", type=float, default=0.01, help="seconds the process runs between stops")
    p.add_argument("--duty-off", type=float, default=0.5, help="seconds it is stopped (0: no throttle)")
    p.add_argument("--interval", type=float, default=0.2, help="seconds between two polls of one read")
    args = p.parse_args(argv)
    c = TestCluster.attach(args.dir)
    c.refresh_active_mgr()
    out = Path(args.out)
    return capture(c, out, args.bucket, args.objects, args.num_shards, args.duty_on, args.duty_off, args.interval)


if __name__ == "__main__":
    sys.exit(main())
