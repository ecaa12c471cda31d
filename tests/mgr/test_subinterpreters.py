"""The module's code in the sub-interpreters of each newer release's Python (3.13, 3.14).

Reef's manager runs each module in a sub-interpreter of its own; Tentacle's runs them in the main
one, but Python 3.14 is where sub-interpreters tighten, and a build of Ceph may use them again.
What fails there is an import: a PyO3 package or a single-phase C extension refuses to load
("does not support loading in subinterpreters"), which is why Debian 13's Reef refuses every
module (README, Ceph releases). This runs, in the release's own Python, every file of the module
but `module.py` and `cli.py` (the manager's own `mgr_module` glue, which needs its `ceph_module`)
and the core, with `rados`, in a
sub-interpreter made as the manager makes them (the legacy configuration), and without `rados`
in an isolated one (its own GIL, multi-phase extensions only): each derives the exposition of
that release's captured JSON, which must be the main interpreter's, byte for byte.

On a real manager the module loads on every release (tests/mgr/test_mgr_cluster.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYTHON = {"reef": "3.13", "tentacle": "3.14"}

# Runs in each interpreter: PKG and OUT are set before it.
DERIVE = """
import glob, json, os, sys, types
sys.path.insert(0, PKG)
package = types.ModuleType("scale")  # the module's files without its __init__ (which imports module.py)
package.__path__ = [os.path.join(PKG, "scale")]
sys.modules["scale"] = package
names = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(PKG, "scale", "*.py")))
names = [n for n in names if n not in ("__init__", "module", "cli")]
for name in names:
    __import__("scale." + name)
if WITH_RADOS:
    import rados
from ceph_scale.core import exposition, inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import Snapshot

def load(name):
    with open(os.path.join(PKG, "fixtures", name)) as f:
        return f.read() if name.endswith(".txt") else json.load(f)

pg_dump = load("pg_dump_pgs.json")
t = max(inputs.parse_stamp(s["last_fresh"], "last_fresh") for s in pg_dump["pg_stats"])
dump = load("osd_dump.json")
snap = Snapshot(
    taken_at=t, fsid=dump["fsid"],
    osd_map=inputs.osd_map_part(load("osd_df.json"), dump, load("osd_metadata.json"), t),
    capacity=inputs.capacity_part(load("df_detail.json"), dump, t),
    perf=inputs.perf_part(inputs.counters_from_prometheus_text(load("mgr_prometheus_metrics.txt")), t),
    pgs=inputs.pg_part(pg_dump, t),
    settings=inputs.settings_part(load("config_get.json"), t),
    buckets=inputs.buckets_part(load("admin_api_bucket_stats.json"), t),
    reshard=inputs.reshard_part(load("reshard_list.json"), t),
    health=inputs.health_part(load("health_detail.json"), t),
)
th = Thresholds()
text = exposition.render(derive(snap, DerivationState(th), th, cluster="sub")).decode()
with open(OUT, "w") as f:
    f.write(json.dumps({"modules": names, "exposition": text, "version": sys.version.split()[0]}))
"""

DRIVER = """
import _interpreters, json, sys
code = sys.stdin.read()
def prelude(out, with_rados):
    return f"PKG = {PKG!r}\\nOUT = {out!r}\\nWITH_RADOS = {with_rados!r}\\n"
exec(prelude(PKG + "/main.json", True) + code)
for config, with_rados in (("legacy", True), ("isolated", False)):
    interp = _interpreters.create(config)
    failed = _interpreters.exec(interp, prelude(f"{PKG}/{config}.json", with_rados) + code)
    _interpreters.destroy(interp)
    if failed is not None:
        print(f"{config}: {getattr(failed, 'errdisplay', None) or failed}", file=sys.stderr)
        sys.exit(1)
"""


@pytest.mark.parametrize("release_name", sorted(PYTHON))
def test_the_module_derives_the_same_in_the_releases_sub_interpreters(release_name):
    from cluster.releases import release

    r = release(release_name)
    inside = f"/tmp/ceph-scale-subinterp-{uuid.uuid4().hex[:8]}"
    pkg = r.host_path(inside)
    try:
        shutil.copytree(REPO / "mgr_module" / "scale", pkg / "scale")
        shutil.copytree(REPO / "ceph_scale", pkg / "ceph_scale", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "tests" / "fixtures" / release_name, pkg / "fixtures")
        proc = subprocess.run(
            [*r.python, "-c", f"PKG = {inside!r}\n" + DRIVER], input=DERIVE, capture_output=True, text=True, timeout=300
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        main, legacy, isolated = (json.loads((pkg / f"{n}.json").read_text()) for n in ("main", "legacy", "isolated"))
    finally:
        shutil.rmtree(pkg, ignore_errors=True)
    assert main["version"].startswith(PYTHON[release_name] + "."), main["version"]
    assert {"sources", "collector", "webserver", "statestore", "rgw", "checks", "report"} <= set(main["modules"])
    assert "ceph_scale_bluefs_spilled_bytes{" in main["exposition"]
    assert legacy == main and isolated == main
