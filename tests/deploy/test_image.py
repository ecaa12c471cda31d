"""The sidecar image, built with podman from ./Dockerfile (docker/image.sh) and run for real:
as uid 10001, with the cluster's minimal conf, a least-privilege keyring and read-only RGW
keys mounted read-only, it serves every source successfully and its HEALTHCHECK passes.

Pacific and Reef: the default image's client is Debian 13's librados (Reef 18.2.7), which
cannot parse the AES256KRB5 keys a Tentacle cluster makes by default; the image built with
Tentacle's client reads those (tests/deploy/test_image_releases.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
import uuid

import pytest

from ceph_scale.core.registry import SOURCES
from cluster.commands import DOCUMENTED_RGW_USER, SECURITY_DOC
from demo.monitoring import free_port, wait_until
from demo.sidecar import parse_exposition
from tests.conftest import ALL_RELEASES
from tests.deploy.source_tree import REPO
from tests.integration.test_sidecar_faults import ensure_bucket

IMAGE_SH = str(REPO / "docker" / "image.sh")
TAG = "localhost/ceph-scale-exporter:test"
UID = 10001

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.parametrize("ceph_cluster", [r for r in ALL_RELEASES if r != "tentacle"], indirect=True),
]


def podman(*args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    """podman through image.sh; a failure raised with podman's own words (CalledProcessError shows
    only the exit status: a `podman run` that exited 126 once in CI said nothing of why)."""
    proc = subprocess.run([IMAGE_SH, "podman", *args], capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"podman {' '.join(args[:3])} exited {proc.returncode}: {proc.stderr[-2000:].strip()}")
    return proc


@pytest.fixture(scope="session")
def image() -> str:
    """The image's id; the first build on a machine also debootstraps its base (cached)."""
    proc = subprocess.run([IMAGE_SH, "build", TAG], capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split()[-1]


def owned_by_the_image_user(path, text: str, mode: int = 0o400) -> str:
    path.write_text(text)
    os.chown(path, UID, UID)
    os.chmod(path, mode)
    return str(path)


def operator_mounts(ceph_cluster, d, user: str) -> dict[str, str]:
    """What an operator mounts: the minimal conf, a least-privilege keyring (of the cluster's
    default key type) and read-only RGW keys, each made by the command docs/security.md prints
    (the cephx user's caps under the name `user`)."""
    documented = ceph_cluster.dir / f"{user}.keyring"  # where a release's own client writes too
    ceph_cluster.create_documented_user("docs/security.md", "client.ceph-scale", documented, as_name=f"client.{user}")
    keyring = documented.read_text()
    conf = ceph_cluster.ceph("config", "generate-minimal-conf", fmt_json=False)
    access, secret = ceph_cluster.create_documented_rgw_user(SECURITY_DOC, DOCUMENTED_RGW_USER)
    creds = {"access_key": access, "secret_key": secret}
    return {
        "user": user,
        "conf": owned_by_the_image_user(d / "ceph.conf", conf, 0o444),
        "keyring": owned_by_the_image_user(d / "keyring", keyring),
        "creds": owned_by_the_image_user(d / "rgw-admin.json", json.dumps(creds)),
    }


@pytest.fixture(scope="module")
def mounts(ceph_cluster, tmp_path_factory) -> dict[str, str]:
    ensure_bucket(ceph_cluster, "image-bucket")
    user = f"ceph-scale-image-{ceph_cluster.release.name}"
    return operator_mounts(ceph_cluster, tmp_path_factory.mktemp("image-mounts"), user)


def run_exporter(image: str, mounts: dict[str, str], ceph_cluster, port: int) -> str:
    """The image's exporter on the mounts, detached on the host network; its container's name."""
    name = f"ceph-scale-test-{uuid.uuid4().hex[:8]}"
    user = mounts["user"]
    podman(
        "run", "-d", "--name", name, "--network", "host", "--health-interval", "disable",
        "-e", f"CEPH_SCALE_PORT={port}",
        "-v", f"{mounts['conf']}:/etc/ceph/ceph.conf:ro",
        "-v", f"{mounts['keyring']}:/etc/ceph/ceph.client.{user}.keyring:ro",
        "-v", f"{mounts['creds']}:/etc/ceph-scale/rgw-admin.json:ro",
        image,
        "--web.listen-address", f"127.0.0.1:{port}", "--ceph-user", user, "--cluster-label", "image",
        "--rgw-endpoint", ceph_cluster.rgw_endpoint, "--rgw-credentials-file", "/etc/ceph-scale/rgw-admin.json",
    )  # fmt: skip
    return name


def removed(name: str) -> None:
    """The container gone, its log's tail printed (pytest shows it when a test fails)."""
    print(podman("logs", name, check=False).stderr[-4000:])
    podman("rm", "-f", "-t", "5", name, check=False)


@pytest.fixture(scope="module")
def container(image, mounts, ceph_cluster):
    port = free_port()
    name = run_exporter(image, mounts, ceph_cluster, port)
    yield name, port
    removed(name)


def exposition(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        return parse_exposition(r.read().decode())


def sources(port: int) -> dict[str, float]:
    try:
        return {dict(k)["source"]: v for k, v in exposition(port)["ceph_scale_source_success"].items()}
    except OSError:
        return {}


def test_the_image_serves_every_source_as_a_non_root_user(ceph_cluster, container):
    name, port = container
    every = {s.name: 1.0 for s in SOURCES}
    wait_until(lambda: sources(port) == every, 180, what=f"every source to succeed in the container: {sources(port)}")
    m = exposition(port)
    assert m["ceph_scale_rgw_buckets"][(("cluster", "image"),)] >= 1
    assert podman("exec", name, "id", "-u").stdout.strip() == str(UID)
    assert podman("top", name, "huser").stdout.split()[1:] == [str(UID)]
    # Mounted read-only, and the exporter needed nothing more than what was mounted.
    assert podman("exec", name, "touch", "/etc/ceph/ceph.conf", check=False).returncode != 0
    logs = podman("logs", name).stderr
    for refusal in ("Permission denied", "PermissionError", "EACCES", "access denied"):
        assert refusal not in logs, refusal


def test_the_healthcheck_passes_inside_the_container(container):
    name, port = container
    wait_until(lambda: sources(port), 60, what="the exporter to answer")
    inspected = json.loads(podman("image", "inspect", TAG).stdout)[0]
    assert inspected["Config"]["User"] == f"{UID}:{UID}"
    check = inspected["Healthcheck"]["Test"]
    assert check[0] == "CMD", check
    proc = podman("healthcheck", "run", name, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # and it is no formality: pointed at a port where nothing listens, it fails
    down = podman("exec", "-e", f"CEPH_SCALE_PORT={free_port()}", name, *check[1:], check=False)
    assert down.returncode == 1


def test_the_chart_s_pod_runs_on_rook_s_secrets(image, helm, ceph_cluster, tmp_path):
    """The Helm chart's pod without Kubernetes: its init container's script, run in the image,
    turns what Rook keeps (the mon endpoints config map, the CephClient's key secret) into a
    conf and keyring; the exporter container, with the chart's own args and environment, then
    serves every source from the real cluster."""
    import yaml

    chart = REPO / "deploy" / "helm" / "ceph-scale-signals"
    values = yaml.safe_load((chart / "values.yaml").read_text())
    user = values["cephClient"]["name"] + "-chart"
    port = free_port()
    # The test cluster's RGW runs the default zone: a CephObjectStore named "default" has its pools.
    # No Kubernetes, so no Service name to discover Rook's ceph-exporters by: the counters come
    # from the manager, as with cephExporters.discover off.
    rendered = [d for d in yaml.safe_load_all(subprocess.run(
        [helm, "template", "x", str(chart), "--set", f"cephClient.name={user}", "--set", f"sidecar.port={port}",
         "--set", "cephExporters.discover=false",
         "--set", "sidecar.image.repository=localhost/ceph-scale-exporter", "--set", "objectStore.name=default",
         "--set", f"objectStore.endpoint={ceph_cluster.rgw_endpoint}"],
        capture_output=True, text=True, check=True,
    ).stdout) if d]  # fmt: skip
    (pod,) = [d["spec"]["template"]["spec"] for d in rendered if d["kind"] == "Deployment"]
    (client,) = [d for d in rendered if d["kind"] == "CephClient"]
    (config,) = [d for d in rendered if d["kind"] == "ConfigMap" and "config.yaml" in d["data"]]
    # What Rook would hold: the CephClient's key (the chart's caps), the mon endpoints in Rook's
    # format, the CephObjectStoreUser's secret (AccessKey, SecretKey), the chart's config map.
    caps = [x for kind, cap in client["spec"]["caps"].items() for x in (kind, cap)]
    key = ceph_cluster.ceph("auth", "get-or-create-key", f"client.{user}", *caps)["key"]
    rook = {"/etc/rook": tmp_path / "rook", "/etc/rook-client": tmp_path / "client", "/etc/ceph": tmp_path / "ceph",
            "/etc/rook-rgw-user": tmp_path / "rgw-user", "/etc/ceph-scale": tmp_path / "config"}  # fmt: skip
    for d in rook.values():
        d.mkdir()
        os.chown(d, UID, UID)
    (rook["/etc/rook"] / "mon-endpoints").write_text(f"a=127.0.0.1:{ceph_cluster.mon_v1_port}")
    owned_by_the_image_user(rook["/etc/rook-client"] / "key", key)
    rgw = json.loads((ceph_cluster.dir / "rgw-keys.json").read_text())
    owned_by_the_image_user(rook["/etc/rook-rgw-user"] / "AccessKey", rgw["access_key"])
    owned_by_the_image_user(rook["/etc/rook-rgw-user"] / "SecretKey", rgw["secret_key"])
    owned_by_the_image_user(rook["/etc/ceph-scale"] / "config.yaml", config["data"]["config.yaml"])

    def volumes(container: dict) -> list[str]:
        out = []
        for m in container["volumeMounts"]:
            if m["mountPath"] in rook:
                out += ["-v", f"{rook[m['mountPath']]}:{m['mountPath']}:{'ro' if m.get('readOnly') else 'rw'}"]
        return out

    (init,) = pod["initContainers"]
    env = [x for e in init.get("env", []) for x in ("-e", f"{e['name']}={e['value']}")]
    podman("run", "--rm", "--network", "host", "--read-only", *volumes(init), *env, "--entrypoint",
           init["command"][0], image, *init["command"][1:])  # fmt: skip
    assert (rook["/etc/ceph"] / "keyring").read_text() == f"[client.{user}]\nkey = {key}\n"
    assert json.loads((rook["/etc/ceph"] / "rgw-admin.json").read_text()) == {
        "access_key": rgw["access_key"], "secret_key": rgw["secret_key"]
    }  # fmt: skip

    (exporter,) = pod["containers"]
    env = [x for e in exporter.get("env", []) for x in ("-e", f"{e['name']}={e['value']}")]
    name = f"ceph-scale-chart-{uuid.uuid4().hex[:8]}"
    state = tmp_path / "state"  # the chart's emptyDir
    state.mkdir()
    os.chown(state, UID, UID)
    podman("run", "-d", "--name", name, "--network", "host", "--health-interval", "disable", "--read-only",
           *volumes(exporter), "-v", f"{state}:/var/lib/ceph-scale", *env, image, *exporter["args"])  # fmt: skip
    try:
        every = {s.name: 1.0 for s in SOURCES}
        wait_until(lambda: sources(port) == every, 180, what=f"every source from the chart's pod: {sources(port)}")
        assert podman("healthcheck", "run", name, check=False).returncode == 0
    finally:
        print(podman("logs", name, check=False).stderr[-3000:])
        podman("rm", "-f", "-t", "5", name, check=False)
