"""Capture, from a running Reef or Tentacle test cluster, whether RGW's per-bucket (and per-user)
op counters exist and who can read them, into tests/fixtures/<release>/ (files with the suffix
`_bucket_counters`; the CAPTURED.md section is printed, and appended only with --append-captured):

  python -m cluster.testcluster start --dir D --release tentacle
  python -m cluster.capture_bucket_counters --dir D --out tests/fixtures/tentacle
  python -m cluster.testcluster stop --dir D

What it does, in order:

1. `ceph config set client.rgw rgw_bucket_counters_cache true` and the same for
   `rgw_user_counters_cache` (what each said is recorded: Reef 18.2.7 does not know the options);
   then the RGW is restarted (the caches are made at its start) and waited for.
2. The stock `selftest` mgr module is enabled (its `mgr self-test eval` runs Python inside the
   manager, as a module: that is how the manager's view is read below); the manager respawns.
3. Two buckets (`bc-one`, `bc-two` by default) get 12 and 5 PUTs of 1 KiB as the normal S3
   user, each object then read back once (GET); then 12 s, so that the RGW has reported its
   counters to the manager at least twice (mgr_stats_period 5 s).
4. The reads, each into its own file:
   - the RGW's admin socket: `counter dump`, `counter schema`, `perf dump`, `perf schema`;
   - the manager, through `ceph mgr self-test eval`: `get_perf_schema('rgw', id)` for every RGW
     the manager lists, `get_unlabeled_perf_counters(prio_limit=0, services=('rgw',))`, and
     where the manager has the labeled API (Tentacle) `get_perf_counters(prio_limit=0,
     services=('rgw',))` and `get_latest_counter('rgw', id, 'rgw_op_per_bucket', counter,
     [('bucket', B)])` per bucket;
   - the stock prometheus module's /metrics (`mgr/prometheus/exclude_perf_counters` is false on
     these test clusters), its `ceph_rgw` lines;
   - `ceph tell` and other CLI routes to an RGW's counters, as client.admin and as the read-only
     user docs/security.md makes (exit code and what the CLI said; made by this script, not one
     Ceph answer).
5. `selftest` is disabled again (--keep-selftest keeps it).

JSON files are the command's JSON re-indented (indent 1, sorted keys), as every other fixture.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from cluster import s3load  # noqa: E402
from cluster.capture_fixtures import log, table  # noqa: E402
from cluster.commands import DOCUMENTED_CEPH_USER, SECURITY_DOC  # noqa: E402
from cluster.testcluster import CephError, TestCluster, wait_for  # noqa: E402

SUFFIX = "_bucket_counters"
RGW = "client.rgw.a"
OPTIONS = ("rgw_bucket_counters_cache", "rgw_user_counters_cache")
BUCKETS = (("bc-one", 12), ("bc-two", 5))  # (bucket, objects): different counts, told apart
OBJECT_SIZE = 1024
LATEST = ("put_obj_ops", "put_obj_bytes", "put_obj_lat", "get_obj_ops", "get_obj_bytes", "get_obj_lat")

# Run inside the manager by `ceph mgr self-test eval` (`mgr` is the selftest module, a MgrModule).
# The eval compiles one statement, so this file is exec'd. Tuples come out as JSON lists.
MGR_EVAL = r"""
import json
BUCKETS = {buckets!r}
LATEST = {latest!r}
out = {{"api": {{}}, "rgw_ids": [], "get_perf_schema": {{}}, "get_perf_counters": None,
        "get_unlabeled_perf_counters": None, "get_latest_counter": {{}}}}
for name in ("get_perf_schema", "get_perf_counters", "get_unlabeled_perf_counters", "get_all_perf_counters",
             "get_unlabeled_perf_schema", "get_latest_counter", "get_latest_unlabeled_counter"):
    out["api"][name] = hasattr(mgr, name)
ids = [s["id"] for srv in mgr.list_servers() for s in srv["services"] if s["type"] == "rgw"]
out["rgw_ids"] = ids
for i in ids:
    out["get_perf_schema"][i] = mgr.get_perf_schema("rgw", i)
labeled = out["api"]["get_perf_counters"] and "labels" in (mgr.get_perf_counters.__doc__ or "")
out["labeled_api"] = labeled
if labeled:
    out["get_perf_counters"] = mgr.get_perf_counters(prio_limit=0, services=("rgw",))
    for i in ids:
        for b in BUCKETS:
            for name in LATEST:
                try:
                    v = mgr.get_latest_counter("rgw", i, "rgw_op_per_bucket", name, [("bucket", b)])
                except Exception as e:
                    v = "error: %r" % (e,)
                out["get_latest_counter"]["%s %s %s" % (i, b, name)] = v
out["get_unlabeled_perf_counters"] = mgr.get_unlabeled_perf_counters(prio_limit=0, services=("rgw",))
print(json.dumps(out, default=lambda o: list(o) if isinstance(o, tuple) else repr(o)))
"""


def dump(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def run_cli(c: TestCluster, argv: list[str], timeout: float = 30) -> tuple[dict, str]:
    """One CLI call of this release as it is: (exit code and what it printed, heads and tails;
    the whole of its standard output)."""
    try:
        proc = subprocess.run(c.release.command(argv), capture_output=True, timeout=timeout, env=c.env())
    except subprocess.TimeoutExpired:
        return {"rc": None, "stdout": "", "stderr": f"timed out after {timeout:g} s"}, ""
    out = proc.stdout.decode(errors="replace")
    err = proc.stderr.decode(errors="replace").strip()
    return {"rc": proc.returncode, "stdout_head": out[:300], "stdout_bytes": len(out), "stderr_tail": err[-400:]}, out


def set_options(c: TestCluster) -> dict:
    said: dict[str, Any] = {}
    for opt in OPTIONS:
        said[f"ceph config set client.rgw {opt} true"], _ = run_cli(
            c, ["ceph", "--conf", str(c.conf_path), "config", "set", "client.rgw", opt, "true"])  # fmt: skip
        said[f"ceph config help {opt}"], _ = run_cli(c, ["ceph", "--conf", str(c.conf_path), "config", "help", opt])
    return said


def load(c: TestCluster, buckets: tuple[tuple[str, int], ...]) -> list[str]:
    s3 = s3load.client(c.rgw_endpoint, *c.user_keys)
    done = []
    for bucket, n in buckets:
        s3.create_bucket(Bucket=bucket)
        r = s3load.run(c.rgw_endpoint, *c.user_keys, bucket, objects=n, size=OBJECT_SIZE, concurrency=2,
                       max_seconds=120)  # fmt: skip
        if r.errors or r.puts != n or r.gets != n:
            raise CephError(f"load into {bucket}: {r}")
        done.append(f"{bucket}: {r.puts} PUTs and {r.gets} GETs of {OBJECT_SIZE} B")
    return done


def mgr_eval(c: TestCluster, buckets: list[str]) -> dict:
    src = c.dir / "run" / "capture_bucket_counters.eval.py"  # the cluster's dir is seen inside the root
    src.write_text(MGR_EVAL.format(buckets=buckets, latest=LATEST))
    out = c.ceph("mgr", "self-test", "eval", f"exec(open({str(src)!r}).read())", fmt_json=False, timeout=120)
    src.unlink()
    return json.loads(out)


def enable_selftest(c: TestCluster) -> None:
    c.ceph("mgr", "module", "enable", "selftest", fmt_json=False)

    def answers() -> bool:
        try:
            c.ceph("mgr", "self-test", "python-version", fmt_json=False, timeout=15)
            return True
        except CephError:
            return False

    wait_for(answers, 120, interval=2, what="the selftest module's commands")


def readonly_user(c: TestCluster) -> tuple[str, Path, dict]:
    keyring = c.dir / "run" / f"client.{DOCUMENTED_CEPH_USER}.keyring"
    caps = c.create_documented_user(SECURITY_DOC, f"client.{DOCUMENTED_CEPH_USER}", keyring)
    return f"client.{DOCUMENTED_CEPH_USER}", keyring, caps


def cli_routes(c: TestCluster, gids: list[str], user: str, keyring: Path) -> list[dict]:
    """Every CLI route tried to an RGW's counters, as client.admin and as the read-only user."""
    routes = [
        ["tell", RGW, "counter", "dump"],
        ["tell", "rgw.a", "counter", "dump"],
        *[["tell", f"rgw.{g}", "counter", "dump"] for g in gids],
        ["tell", "mgr", "counter", "dump"],  # the manager's own counters, not its daemons'
        ["counter", "dump"],
        ["perf", "dump"],
        ["mgr", "self-test", "eval", "1+1"],
    ]
    out = []
    for who, extra in (("client.admin", []), (user, ["--name", user, "--keyring", str(keyring)])):
        for r in routes:
            res, full = run_cli(c, ["ceph", "--conf", str(c.conf_path), *extra, *r, "--format", "json"])
            if r[:3] == ["tell", "mgr", "counter"] and res["rc"] == 0:
                res["stdout_head"] = res["stdout_head"][:120]  # the sections are listed below
                sections = sorted(json.loads(full))
                res["sections"] = sections
                res["rgw_sections"] = [s for s in sections if s.startswith("rgw")]
            out.append({"as": who, "command": "ceph " + " ".join(r) + " --format json", **res})
    return out


def rgw_gids(c: TestCluster) -> list[str]:
    return sorted(k for k in c.ceph("service", "dump")["services"].get("rgw", {}).get("daemons", {}) if k != "summary")


def capture(c: TestCluster, out: Path, buckets: tuple[tuple[str, int], ...], keep_selftest: bool,
            append_captured: bool) -> int:  # fmt: skip
    if c.release.root is None:
        raise SystemExit("run this on reef or tentacle (Pacific has no labeled counters)")
    out.mkdir(parents=True, exist_ok=True)
    version = c.ceph("version")["version"]
    written: list[tuple[str, str]] = []
    notes: list[str] = []

    log("setting the counter cache options and restarting the RGW")
    options = set_options(c)
    c.restart_daemon(RGW)
    wait_for(c.rgw_answers, 120, interval=0.5, what="the RGW")
    shown = c.admin_socket(RGW, "config", "show")
    options["running RGW (ceph daemon client.rgw.a config show)"] = {o: shown.get(o) for o in OPTIONS}
    log(f"options: {json.dumps({k: v.get('rc', v) for k, v in options.items()})}")

    log("enabling the selftest module")
    enable_selftest(c)
    loaded = load(c, buckets)
    log("; ".join(loaded))
    time.sleep(12)  # two mgr_stats_period (5 s) reports of the RGW to the manager

    for cmd in ("counter dump", "counter schema", "perf dump", "perf schema"):
        name = f"rgw_{cmd.replace(' ', '_')}{SUFFIX}.json"
        dump(out / name, c.admin_socket(RGW, *cmd.split()))
        written.append((name, f"ceph daemon {RGW} {cmd} (the RGW's admin socket)"))

    log("the manager's view (mgr self-test eval)")
    view = mgr_eval(c, [b for b, _ in buckets])
    gids = view["rgw_ids"]
    calls = [
        ("get_perf_schema", "get_perf_schema('rgw', id) for every RGW id in list_servers(), by id"),
        ("get_unlabeled_perf_counters", "get_unlabeled_perf_counters(prio_limit=0, services=('rgw',))"),
        ("get_perf_counters", "get_perf_counters(prio_limit=0, services=('rgw',))"),
        ("get_latest_counter", "get_latest_counter('rgw', id, 'rgw_op_per_bucket', counter, [('bucket', B)]), "
                               "keyed '<id> <bucket> <counter>'"),
    ]  # fmt: skip
    for key, how in calls:
        if key in ("get_perf_counters", "get_latest_counter") and not view["labeled_api"]:
            notes.append(f"`{key}` with labels: this manager has no such API ({json.dumps(view['api'])})")
            continue
        name = f"mgr_{key}_rgw{SUFFIX}.json"
        dump(out / name, view[key])
        written.append((name, f"ceph mgr self-test eval (stock selftest module, inside the manager): mgr.{how}"))

    def prometheus() -> str | None:  # the module restarts with the manager's respawn (selftest enabled)
        try:
            text = c.mgr_metrics()
        except OSError:
            return None
        return text if "ceph_rgw" in text else None

    metrics = wait_for(prometheus, 120, interval=2, what="the prometheus module's ceph_rgw lines")
    name = f"mgr_prometheus_rgw_lines{SUFFIX}.txt"  # not mgr_prometheus_metrics*: those are whole expositions
    (out / name).write_text("".join(line + "\n" for line in metrics.splitlines() if "ceph_rgw" in line))
    written.append((name, "curl <mgr prometheus>/metrics | grep ceph_rgw (mgr/prometheus/exclude_perf_counters false)"))
    per_bucket = [line for line in metrics.splitlines()
                  if "per_bucket" in line or "per_user" in line or 'bucket="' in line]  # fmt: skip

    log("CLI routes, as client.admin and as the documented read-only user")
    user, keyring, caps = readonly_user(c)
    routes = cli_routes(c, sorted(set(gids) | set(rgw_gids(c))), user, keyring)
    name = f"cli_routes{SUFFIX}.json"
    dump(out / name, {"release": c.release.name, "version": version, "read_only_user": user, "caps": caps,
                      "options": options, "routes": routes})  # fmt: skip
    written.append((name, "every CLI route tried, with exit code and what it said (made by this script)"))

    if not keep_selftest:
        c.ceph("mgr", "module", "disable", "selftest", fmt_json=False)

    summary = summarize(out, view, per_bucket)
    section = write_section(c.release.name, version, buckets, loaded, written, notes, summary)
    print(section)
    if append_captured:
        with (out / "CAPTURED.md").open("a") as f:
            f.write(section)
    log(f"wrote {len(written)} files into {out}")
    return 0


def summarize(out: Path, view: dict, per_bucket_metrics: list[str]) -> list[str]:
    dumped = json.loads((out / f"rgw_counter_dump{SUFFIX}.json").read_text())
    perf = json.loads((out / f"rgw_perf_dump{SUFFIX}.json").read_text())
    lines = [
        f"counter dump sections starting rgw: {sorted(k for k in dumped if k.startswith('rgw'))}",
        "per-bucket label sets in counter dump: "
        + json.dumps([e["labels"] for e in dumped.get("rgw_op_per_bucket", [])]),
        f"perf dump sections starting rgw: {sorted(k for k in perf if k.startswith('rgw'))}",
    ]
    for sch in view["get_perf_schema"].values():
        for d, sections in sch.items():
            lines.append(f"manager get_perf_schema {d}: sections starting rgw "
                         f"{sorted({k.split('.')[0] for k in sections if k.startswith('rgw')})}")  # fmt: skip
    lines.append(
        f"stock prometheus lines of a per-bucket/per-user family or with a bucket label: {len(per_bucket_metrics)}"
    )
    return lines


def write_section(release: str, version: str, buckets: tuple[tuple[str, int], ...], loaded: list[str],
                  written: list[tuple[str, str]], notes: list[str], summary: list[str]) -> str:  # fmt: skip
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"\n## Per-bucket op counters (`{SUFFIX}`), {stamp}\n\n{version}. Made by "
        "`python -m cluster.capture_bucket_counters` (cluster/capture_bucket_counters.py) on a "
        f"`python -m cluster.testcluster start --release {release}` cluster.\n\n"
        f"Condition: `ceph config set client.rgw {OPTIONS[0]} true` and `{OPTIONS[1]} true` (what each "
        f"said: `cli_routes{SUFFIX}.json` `.options`), the RGW restarted, the stock `selftest` mgr module "
        f"enabled; {'; '.join(loaded)} (normal S3 user); then 12 s.\n\n"
        + table(written)
        + "".join(f"\n{n}." for n in notes)
        + "\n\nSeen:\n\n"
        + "".join(f"- {s}\n" for s in summary)
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", required=True, help="the directory of a running reef or tentacle cluster")
    p.add_argument("--out", required=True, help="e.g. tests/fixtures/tentacle")
    p.add_argument("--keep-selftest", action="store_true", help="leave the selftest mgr module enabled")
    p.add_argument("--append-captured", action="store_true", help="append the section to OUT/CAPTURED.md")
    args = p.parse_args(argv)
    c = TestCluster.attach(args.dir)
    c.refresh_active_mgr()
    return capture(c, Path(args.out), BUCKETS, args.keep_selftest, args.append_captured)


if __name__ == "__main__":
    os.umask(0o022)
    sys.exit(main())
