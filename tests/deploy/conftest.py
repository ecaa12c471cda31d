"""Fixtures the deployment tests share: helm, built once per machine by tests/deploy/tools.sh, and
Ceph's own cephadm as Debian packages it for each release, with the container run command it
makes from a spec of the cephadm bundle, the way the manager and the cephadm binary do on a host.

The program (`/usr/sbin/cephadm`: a script in 16.2.15, a zipapp in 18.2.7 and 20.2.4) comes
from Debian with `apt-get download cephadm`: Pacific's from the host's bookworm, Reef's and
Tentacle's inside their release roots (trixie, sid). Cached per machine under /var/tmp.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.deploy.source_tree import REPO

TOOLS = str(REPO / "tests" / "deploy" / "tools.sh")


@pytest.fixture(scope="session")
def helm() -> str:
    proc = subprocess.run([TOOLS, "helm"], capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


@pytest.fixture(scope="session")
def cephadm_run_command() -> Callable[..., list[str]]:
    """run_command(release_name, spec, fsid=, daemon_id=, data_dir=, image=): the podman argv
    that release's cephadm deploys the spec's daemon with."""
    return run_command


CEPHADM_CACHE = Path(os.environ.get("CEPH_SCALE_CEPHADM_CACHE", "/var/tmp/ceph-scale-cephadm"))

# What the manager hands cephadm for a daemon of a spec, computed by the release's own
# python-common: CustomContainerService.generate_config is `spec.config_json()`, grafana's and
# prometheus' custom_configs travel as `custom_config_files`, and the extra args are split as
# serve.py `_setup_extra_deployment_args` does (at spaces in 16.2; ArgumentSpec.to_args later).
MANAGER_SIDE = """
import json, sys
from ceph.deployment.service_spec import ServiceSpec
def args(values):
    out = []
    for v in values or []:
        out += v.to_args() if hasattr(v, "to_args") else [a for a in v.split(" ") if a]
    return out
spec = ServiceSpec.from_json(json.load(sys.stdin))
spec.validate()
config = spec.config_json() if spec.service_type == "container" else {}
if getattr(spec, "custom_configs", None):
    config["custom_config_files"] = [c.to_json() for c in spec.custom_configs]
print(json.dumps({
    "service_name": spec.service_name(),
    "image": getattr(spec, "image", None),
    "config": config,
    "extra_container_args": args(getattr(spec, "extra_container_args", None)),
    "extra_entrypoint_args": args(getattr(spec, "extra_entrypoint_args", None)),
}))
"""

# cephadm's side, in a process of its own (cephadm's module state, and the zipapps' bundled
# `ceph` package, stay out of pytest's). Each release's own code builds the CephContainer of
# the deploy command and returns `run_cmd()`: the argv it writes into the daemon's unit.run.
# Only the monitoring images' uid lookup (it runs the Prometheus/Grafana image, which is not
# here) is answered with the uid given.
CEPHADM_SIDE = """
import json, logging, runpy, sys
req = json.load(sys.stdin)
ns = runpy.run_path(req["program"], run_name="cephadm")
if ns.get("logger", True) is None:  # the one-file cephadm sets it up in main()
    ns["cephadm_init_ctx"].__globals__["logger"] = logging.getLogger("cephadm")
name = f"{req['daemon_type']}.{req['daemon_id']}"
base = ["--image", req["image"], "--data-dir", req["data_dir"]]
uid_gid = lambda *a, **k: tuple(req["uid_gid"])
if "get_deployment_container" in ns:  # the one-file cephadm of 16.2 and 18.2: `cephadm deploy`
    argv = base + ["deploy", "--fsid", req["fsid"], "--name", name, "--config-json", json.dumps(req["config"])]
    argv += [f"--extra-container-args={a}" for a in req["extra_container_args"]]
    argv += [f"--extra-entrypoint-args={a}" for a in req["extra_entrypoint_args"]]
    ctx = ns["cephadm_init_ctx"](argv)
    ctx.container_engine = ns["find_container_engine"](ctx)
    ns["check_container_engine"](ctx)
    ns["get_deployment_container"].__globals__["extract_uid_gid_monitoring"] = uid_gid
    c = ns["get_deployment_container"](ctx, req["fsid"], req["daemon_type"], req["daemon_id"])
else:  # cephadmlib (20.2): `cephadm _orch deploy` with the manager's JSON on stdin
    import cephadmlib.daemons.monitoring as monitoring
    from cephadmlib.daemon_form import create
    monitoring.Monitoring.uid_gid = lambda self, ctx: tuple(req["uid_gid"])
    # The files the manager renders for every monitoring daemon (prometheus.yml, grafana.ini...),
    # which this cephadm insists on: present, and empty, as their content is not under test.
    config = dict(req["config"])
    required = monitoring.Monitoring.components.get(req["daemon_type"], {}).get("config-json-files", [])
    config["files"] = {**{f: "" for f in required}, **config.get("files", {})}
    ctx = ns["cephadm_init_ctx"](base + ["_orch", "deploy", "--fsid", req["fsid"]])
    params = {k: req[k] for k in ("extra_container_args", "extra_entrypoint_args") if req[k]}
    ns["apply_deploy_config_to_ctx"]({"fsid": req["fsid"], "name": name, "image": req["image"], "params": params,
                                      "meta": {}, "config_blobs": config}, ctx)
    ctx.container_engine = ns["find_container_engine"](ctx)
    ns["check_container_engine"](ctx)
    c = create(ctx, ns["DaemonIdentity"].from_context(ctx)).container(ctx)
print(json.dumps(c.run_cmd()))
"""


def cephadm_program(release_name: str) -> Path:
    """/usr/sbin/cephadm of the release's Debian package, fetched once per machine."""
    dest = CEPHADM_CACHE / release_name
    program = dest / "usr" / "sbin" / "cephadm"
    CEPHADM_CACHE.mkdir(parents=True, exist_ok=True)
    with open(CEPHADM_CACHE / "fetch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if program.is_file():
            return program
        if release_name == "pacific":
            where, download = Path(tempfile.mkdtemp(dir=CEPHADM_CACHE)), ["apt-get", "download", "cephadm"]
            cwd = where
        else:
            from cluster.releases import release

            root = release(release_name).root
            assert root is not None
            where = Path(tempfile.mkdtemp(dir=root / "tmp"))
            download, cwd = ["chroot", str(root), "sh", "-c", f"cd /tmp/{where.name} && apt-get download cephadm"], None
        os.chmod(where, 0o755)  # apt's _apt user writes the download there
        proc = subprocess.run(download, cwd=cwd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"apt-get download cephadm ({release_name}): {proc.stderr[-2000:]}"
        (deb,) = where.glob("cephadm_*.deb")
        subprocess.run(["dpkg-deb", "-x", str(deb), str(dest)], check=True)
        subprocess.run(["rm", "-rf", str(where)], check=True)
        assert program.is_file(), f"{deb.name} has no /usr/sbin/cephadm"
        return program


def manager_side(release_name: str, spec: dict[str, Any]) -> dict[str, Any]:
    from cluster.releases import release

    proc = subprocess.run(
        [*release(release_name).python, "-c", MANAGER_SIDE], input=json.dumps(spec), capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def run_command(
    release_name: str, spec: dict[str, Any], *, fsid: str, daemon_id: str, data_dir: Path, image: str = ""
) -> list[str]:
    """The podman argv that release's cephadm deploys the spec's daemon with."""
    handed = manager_side(release_name, spec)
    request = {
        "program": str(cephadm_program(release_name)),
        "fsid": fsid,
        "data_dir": str(data_dir),
        "daemon_type": spec["service_type"],
        "daemon_id": daemon_id,
        "image": handed["image"] or image,
        "config": handed["config"],
        "extra_container_args": handed["extra_container_args"],
        "extra_entrypoint_args": handed["extra_entrypoint_args"],
        "uid_gid": [65534, 65534],
    }
    env = {**os.environ, "PYTHONPATH": "", "PATH": f"{os.environ.get('PATH', '')}:/usr/sbin:/usr/bin"}
    proc = subprocess.run(
        [sys.executable, "-c", CEPHADM_SIDE], input=json.dumps(request), capture_output=True, text=True,
        env=env, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])
