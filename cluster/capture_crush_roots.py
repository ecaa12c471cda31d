"""Capture the CRUSH tree of a test cluster with two roots into tests/fixtures/<release>/.

    python -m cluster.capture_crush_roots --release reef --out tests/fixtures/reef

A cluster of 3 OSDs (no RGW) whose osd.2 is moved under a host of a second root, "archive",
as an operator separates a class of pools onto their own OSDs:

    ceph osd crush add-bucket archive root
    ceph osd crush add-bucket archive-host host
    ceph osd crush move archive-host root=archive
    ceph osd crush set osd.2 <its weight> host=archive-host root=archive

Then `osd df tree`, `osd dump`, `osd metadata` and `osd crush dump` (what the manager's
get("osd_map_crush") gives: CrushWrapper::dump) are captured together, with the suffix
`_roots`, and a section is appended to CAPTURED.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from cluster.testcluster import TestCluster, wait_for  # noqa: E402

CAPTURES = (
    ("osd_df_tree_roots.json", "ceph osd df tree -f json", ("osd", "df", "tree")),
    ("osd_dump_roots.json", "ceph osd dump -f json", ("osd", "dump")),
    ("osd_metadata_roots.json", "ceph osd metadata -f json", ("osd", "metadata")),
    ("osd_crush_dump_roots.json", "ceph osd crush dump -f json", ("osd", "crush", "dump")),
    ("pg_dump_roots.json", "ceph pg dump -f json", ("pg", "dump")),
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--release", default="pacific")
    args = p.parse_args(argv)
    c = TestCluster(osds=3, rgw=False, release_name=args.release)
    try:
        c.start()
        weight = next(n["crush_weight"] for n in c.ceph("osd", "df")["nodes"] if n["id"] == 2)
        c.ceph("osd", "crush", "add-bucket", "archive", "root", fmt_json=False)
        c.ceph("osd", "crush", "add-bucket", "archive-host", "host", fmt_json=False)
        c.ceph("osd", "crush", "move", "archive-host", "root=archive", fmt_json=False)
        c.ceph("osd", "crush", "set", "osd.2", str(weight), "host=archive-host", "root=archive", fmt_json=False)
        wait_for(
            lambda: all(o["up"] for o in c.ceph("osd", "dump")["osds"]), 60, 1.0, what="every OSD up after the move"
        )
        version = c.ceph("version", fmt_json=False).strip()
        rows = []
        for name, how, cmd in CAPTURES:
            (args.out / name).write_text(json.dumps(c.ceph(*cmd), indent=1, sort_keys=True) + "\n")
            rows.append(f"| `{name}` | `{how}` |")
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        with (args.out / "CAPTURED.md").open("a") as f:
            f.write(
                f"\n## Set `_roots` (two CRUSH roots), {stamp}\n\n{version}. Made by "
                "`python -m cluster.capture_crush_roots` (cluster/capture_crush_roots.py): 3 OSDs, no RGW; osd.2 "
                "moved under host `archive-host` of a second root, `archive` (`ceph osd crush add-bucket archive "
                "root`, `... add-bucket archive-host host`, `... move archive-host root=archive`, `ceph osd crush "
                "set osd.2 <weight> host=archive-host root=archive`). Captured together:\n\n"
                "| file | command |\n|---|---|\n" + "\n".join(rows) + "\n"
            )
    finally:
        c.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
