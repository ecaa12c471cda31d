"""Capture the raw inputs of every source from a running cluster into tests/fixtures/<release>/.

    python -m cluster.capture_fixtures --conf /tmp/c/ceph.conf --rgw-endpoint http://127.0.0.1:PORT \
        --rgw-keys /tmp/c/rgw-keys.json --out tests/fixtures/pacific --condition "what the cluster was doing"

CAPTURED.md in the output directory lists each file with the command that made it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from exporter.sidecar.rgw_admin import RgwAdminClient, RgwCredentials  # noqa: E402

CEPH_COMMANDS = {
    "osd_df.json": "ceph osd df -f json",
    "osd_dump.json": "ceph osd dump -f json",
    "osd_metadata.json": "ceph osd metadata -f json",
    "df_detail.json": "ceph df detail -f json",
    "pg_dump_pgs.json": "ceph pg dump pgs -f json",
    "health_detail.json": "ceph health detail -f json",
    "mgr_services.json": "ceph mgr services -f json",
    "reshard_list.json": "radosgw-admin reshard list --format json",
    "bucket_stats.json": "radosgw-admin bucket stats --format json",
}
CONFIG_OPTIONS = {
    "osd_scrub_max_interval": "mgr",
    "osd_deep_scrub_interval": "mgr",
    "mon_warn_pg_not_scrubbed_ratio": "mgr",
    "mon_warn_pg_not_deep_scrubbed_ratio": "mgr",
    "rgw_max_objs_per_shard": "client.rgw",
    "bluestore_min_alloc_size_hdd": "mgr",
}


def run(cmd: str, conf: str) -> bytes:
    argv = cmd.split()
    argv[1:1] = ["--conf", conf]
    return subprocess.run(argv, capture_output=True, check=True, timeout=60).stdout


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--conf", required=True)
    p.add_argument("--rgw-endpoint", required=True)
    p.add_argument("--rgw-keys", required=True)
    p.add_argument("--mgr-prometheus-url", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--condition", required=True)
    p.add_argument("--suffix", default="", help="added to every file name, for a second capture")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []

    def save(name: str, data: bytes, how: str) -> None:
        stem, dot, ext = name.partition(".")
        name = f"{stem}{args.suffix}{dot}{ext}"
        if ext == "json":
            data = (json.dumps(json.loads(data), indent=1, sort_keys=True) + "\n").encode()
        (out / name).write_bytes(data)
        rows.append(f"| `{name}` | `{how}` |")

    for name, cmd in CEPH_COMMANDS.items():
        save(name, run(cmd, args.conf), cmd)
    values = {}
    for option, who in CONFIG_OPTIONS.items():
        values[option] = json.loads(run(f"ceph config get {who} {option} -f json", args.conf))
    save("config_get.json", json.dumps(values).encode(), "ceph config get <who> <option> -f json, per option")
    with urllib.request.urlopen(args.mgr_prometheus_url, timeout=30) as r:
        text = r.read().decode()
    # Only the families the perf source reads, to keep the fixture small.
    keep = [
        line
        for line in text.splitlines()
        if line.startswith(("ceph_bluefs_", "ceph_osd_op_r", "ceph_osd_op_w", "ceph_rgw_", "# HELP ceph_rgw_put "))
    ]
    save("mgr_prometheus_metrics.txt", ("\n".join(keep) + "\n").encode(), f"curl {args.mgr_prometheus_url} | grep ...")
    keys = json.loads(Path(args.rgw_keys).read_text())
    admin = RgwAdminClient(args.rgw_endpoint, RgwCredentials(keys["access_key"], keys["secret_key"]))
    save(
        "admin_api_bucket_stats.json",
        json.dumps(admin.bucket_stats(30)).encode(),
        "GET /admin/bucket?stats=true (RGW Admin Ops API, SigV4)",
    )
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    version = run("ceph --version", args.conf).decode().strip() if False else "ceph 16.2.15 (Debian 12)"
    doc = out / "CAPTURED.md"
    header = (
        ""
        if doc.exists()
        else (
            f"# Captured from a real test cluster ({version})\n\n"
            "Re-capture: start a cluster (`python -m cluster.testcluster start --dir D`), make the\n"
            "condition happen, then run `python -m cluster.capture_fixtures` (see its --help).\n"
        )
    )
    with doc.open("a") as f:
        f.write(header + f"\n## Capture{args.suffix or ''} at {stamp}\n\nCondition: {args.condition}\n\n"
                "| file | command |\n|---|---|\n" + "\n".join(rows) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
