"""The Helm chart names what Rook makes as Rook names it (rook/rook v1.15.5, the version whose CRDs
tests/deploy/test_helm.py validates against): the CephObjectStore's pools, its RGW Service, the
CephObjectStoreUser and that user's secret. The chart's init container, run here on files laid out
as Kubernetes mounts Rook's secrets, writes RGW credentials the exporter's own loader accepts."""

from __future__ import annotations

import os
import stat
import subprocess

import yaml

from ceph_scale.core.registry import SOURCE_BY_NAME
from exporter.sidecar.config_file import parse
from exporter.sidecar.startup_checks import StartupNotes, check_ceph_conf, conf_fsid, load_rgw_credentials
from tests.deploy.source_tree import REPO
from tests.deploy.test_helm import CHART, IMAGE, NO_STORE, STORE, of_kind, render, set_args

# Rook's pool names for a store that is its own zone: "<store>.<pool>"
# (rook/rook pkg/operator/ceph/object/objectstore.go: poolName(), metadataPools "rgw.log" and
# "rgw.buckets.index"; getMultisiteForObjectStore() makes the store's name the zone's).
LOG_POOL = "my-store.rgw.log"
INDEX_POOL = "my-store.rgw.buckets.index"
# rook/rook pkg/operator/ceph/object/user.go: GenerateCephUserSecretName(store, user) and the
# keys of generateCephUserSecret().
USER_SECRET = "rook-ceph-object-user-my-store-ceph-scale"
USER_SECRET_KEYS = ("AccessKey", "SecretKey")


def pod_of(objects: list[dict]) -> dict:
    (deployment,) = of_kind(objects, "Deployment")
    return deployment["spec"]["template"]["spec"]


def test_the_caps_and_the_exporter_name_the_store_s_pools(helm):
    objects = render(helm, *set_args(STORE))
    (client,) = of_kind(objects, "CephClient")
    assert client["spec"]["caps"]["osd"] == f"allow r pool={LOG_POOL} namespace=reshard, allow r pool={INDEX_POOL}"
    # The exporter reads the same pools: its config file names them, and its own parser takes it.
    (config,) = [cm for cm in of_kind(objects, "ConfigMap") if "config.yaml" in cm["data"]]
    data = yaml.safe_load(config["data"]["config.yaml"])
    assert parse(data, set(SOURCE_BY_NAME)).rgw == {"log_pool": LOG_POOL, "index_pool": INDEX_POOL}
    (exporter,) = pod_of(objects)["containers"]
    (mount,) = [m for m in exporter["volumeMounts"] if m["name"] == "config"]
    assert f"--config.file={mount['mountPath']}/config.yaml" in exporter["args"]
    volumes = {v["name"]: v for v in pod_of(objects)["volumes"]}
    assert volumes["config"]["configMap"]["name"] == config["metadata"]["name"]


def test_pools_under_other_names_are_named_whole(helm):
    objects = render(helm, *set_args(STORE, "objectStore.logPool=zone-a.rgw.log", "objectStore.indexPool=zone-a.idx"))
    (client,) = of_kind(objects, "CephClient")
    assert client["spec"]["caps"]["osd"] == "allow r pool=zone-a.rgw.log namespace=reshard, allow r pool=zone-a.idx"


def test_the_endpoint_is_the_store_s_rgw_service(helm):
    # rook/rook pkg/operator/ceph/object/spec.go: generateService() names the Service
    # instanceName(store) = "rook-ceph-rgw-<store>" (rgw.go), port "http" = spec.gateway.port.
    (exporter,) = pod_of(render(helm, *set_args(STORE)))["containers"]
    assert "--rgw-endpoint=http://rook-ceph-rgw-my-store.rook-ceph.svc:80" in exporter["args"]
    (exporter,) = pod_of(render(helm, *set_args(STORE, "objectStore.endpoint=https://s3.example:443")))["containers"]
    assert "--rgw-endpoint=https://s3.example:443" in exporter["args"]


def test_the_chart_makes_a_read_only_object_store_user(helm):
    objects = render(helm, *set_args(STORE))
    (user,) = of_kind(objects, "CephObjectStoreUser")
    assert user["metadata"] == {**user["metadata"], "name": "ceph-scale", "namespace": "rook-ceph"}
    assert user["spec"]["store"] == "my-store"
    # rook/rook pkg/operator/ceph/object/user/controller.go: generateUserConfig() turns these into
    # the RGW caps "users=read;buckets=read;metadata=read;".
    assert user["spec"]["capabilities"] == {"user": "read", "bucket": "read", "metadata": "read"}
    # and no S3 bucket of its own: radosgw-admin(8), "negative value to disable bucket creation"
    assert user["spec"]["quotas"] == {"maxBuckets": -1}


def test_the_rgw_keys_are_mounted_from_rook_s_user_secret(helm):
    pod = pod_of(render(helm, *set_args(STORE)))
    volumes = {v["name"]: v for v in pod["volumes"]}
    secret = volumes["rgw-user"]["secret"]
    assert secret["secretName"] == USER_SECRET
    assert [i["key"] for i in secret["items"]] == list(USER_SECRET_KEYS)
    # no key reaches an environment variable
    for container in pod["containers"] + pod["initContainers"]:
        assert not [e for e in container.get("env", []) if "valueFrom" in e], container["name"]
    (exporter,) = pod["containers"]
    assert "--rgw-credentials-file=/etc/ceph/rgw-admin.json" in exporter["args"]
    # another secret with Rook's two keys instead of the chart's user
    objects = render(helm, *set_args(STORE, "objectStore.user.existingSecret=rook-ceph-object-user-my-store-ops"))
    assert not of_kind(objects, "CephObjectStoreUser")
    volumes = {v["name"]: v for v in pod_of(objects)["volumes"]}
    assert volumes["rgw-user"]["secret"]["secretName"] == "rook-ceph-object-user-my-store-ops"


def test_without_a_store_no_rgw_source_and_no_pool_caps(helm):
    objects = render(helm, *set_args(NO_STORE))
    assert not of_kind(objects, "CephObjectStoreUser")
    (client,) = of_kind(objects, "CephClient")
    assert set(client["spec"]["caps"]) == {"mon", "mgr"}
    pod = pod_of(objects)
    (exporter,) = pod["containers"]
    assert "--disable-source=reshard" in exporter["args"]
    assert not [a for a in exporter["args"] if a.startswith("--rgw-")]
    assert "rgw-user" not in {v["name"] for v in pod["volumes"]}


def run_init(pod: dict, root) -> subprocess.CompletedProcess:
    """The init container's script on the host, every mount path moved under root."""
    (init,) = pod["initContainers"]
    script = init["command"][-1]
    for mount in sorted(init["volumeMounts"], key=lambda m: -len(m["mountPath"])):
        script = script.replace(mount["mountPath"], str(root / mount["name"]))
    env = {**os.environ, **{e["name"]: e["value"] for e in init["env"]}}
    return subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True, timeout=30)


FSID = "f568f7c3-5603-4108-99ff-3742cf008a83"


def rook_mounts(root, access: str, secret: str, fsid: str | None = FSID) -> None:
    """What Kubernetes mounts: one file per item of the config map and the secrets (an optional
    secret that does not exist is an empty directory)."""
    for name in ("ceph-config", "mon-endpoints", "client-key", "rgw-user", "cluster-fsid"):
        (root / name).mkdir()
    (root / "mon-endpoints" / "mon-endpoints").write_text("a=10.0.0.1:6789,b=10.0.0.2:6789")
    if fsid is not None:
        (root / "cluster-fsid" / "fsid").write_text(fsid)
    (root / "client-key" / "key").write_text("AQBkey==")
    (root / "rgw-user" / "AccessKey").write_text(access)
    (root / "rgw-user" / "SecretKey").write_text(secret)


def test_the_init_container_turns_rook_s_secrets_into_what_the_exporter_reads(helm, tmp_path):
    pod = pod_of(render(helm, *set_args(STORE)))
    access, secret_key = "0555b35654ad1656d804", "h7GhxuBLTrlhVUyxSPUKUV8r/2EI4ngqJxD7iBdBYLhwluN30JaT3Q=="
    rook_mounts(tmp_path, access, secret_key + "\n")  # a hand-made secret may end in a newline
    proc = run_init(pod, tmp_path)
    assert proc.returncode == 0, proc.stderr
    conf = tmp_path / "ceph-config" / "ceph.conf"
    assert conf.read_text() == f"[global]\nfsid = {FSID}\nmon_host = 10.0.0.1:6789,10.0.0.2:6789\n"
    # the exporter's own reading of it: the fsid is the cluster label, and what a saved state is
    # checked against, from the first derivation
    notes = StartupNotes()
    assert conf_fsid(check_ceph_conf(str(conf), "--ceph-conf", notes) or {}) == FSID and notes.warnings == []
    creds = tmp_path / "ceph-config" / "rgw-admin.json"
    assert stat.S_IMODE(creds.stat().st_mode) == 0o600
    # the exporter's own loader (--rgw-credentials-file), without a warning: only its user reads them
    notes = StartupNotes()
    loaded = load_rgw_credentials(str(creds), "--rgw-credentials-file", notes)
    assert (loaded.access_key, loaded.secret_key) == (access, secret_key)
    assert notes.warnings == []
    (exporter,) = pod["containers"]
    (mount,) = [m for m in exporter["volumeMounts"] if m["name"] == "ceph-config"]
    assert f"--rgw-credentials-file={mount['mountPath']}/rgw-admin.json" in exporter["args"]


def test_the_pod_mounts_the_fsid_alone_of_rook_s_mon_secret(helm, tmp_path):
    """rook/rook pkg/operator/ceph/controller/cluster_info.go: the secret AppName
    ("rook-ceph-mon") holds the fsid (fsidSecretNameKey) beside the monitor's key."""
    pod = pod_of(render(helm, *set_args(STORE)))
    secret = {v["name"]: v for v in pod["volumes"]}["cluster-fsid"]["secret"]
    assert secret["secretName"] == "rook-ceph-mon" and secret["items"] == [{"key": "fsid", "path": "fsid"}]
    (exporter,) = pod["containers"]
    assert "cluster-fsid" not in {m["name"] for m in exporter["volumeMounts"]}  # the init container's alone
    # Without the secret's fsid (optional), ceph.conf names none: the exporter learns it from the OSD map.
    rook_mounts(tmp_path, "0555b35654ad1656d804", "s3cr3t", fsid=None)
    proc = run_init(pod, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "ceph-config" / "ceph.conf").read_text() == "[global]\nmon_host = 10.0.0.1:6789,10.0.0.2:6789\n"


def test_the_init_container_names_a_missing_key(helm, tmp_path):
    pod = pod_of(render(helm, *set_args(STORE)))
    rook_mounts(tmp_path, "0555b35654ad1656d804", "")
    proc = run_init(pod, tmp_path)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [f"{tmp_path}/rgw-user/SecretKey: empty"]
    assert not (tmp_path / "ceph-config" / "rgw-admin.json").exists()


def test_the_image_is_the_one_named(helm):
    pod = pod_of(render(helm, *set_args(STORE)))
    app_version = yaml.safe_load((CHART / "Chart.yaml").read_text())["appVersion"]
    assert {c["image"] for c in pod["containers"] + pod["initContainers"]} == {f"{IMAGE}:{app_version}"}


def test_the_deploy_guide_s_values_render_what_it_says(helm, tmp_path):
    """docs/deploy.md's values file for a first install, as written there, lints and renders
    the names the guide tells the operator to check."""
    guide = (REPO / "docs" / "deploy.md").read_text()
    section = guide[guide.index("## Rook and Kubernetes") : guide.index("## The monitoring mixin")]
    (block,) = [b for b in section.split("```yaml\n")[1:] if b.startswith("# values-ceph-scale.yaml")]
    values = tmp_path / "values-ceph-scale.yaml"
    values.write_text(block[: block.index("```")])
    lint = subprocess.run([helm, "lint", "--strict", str(CHART), "-f", str(values)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    objects = render(helm, "-f", str(values))
    assert f"{LOG_POOL}` and\n`{INDEX_POOL}`" in section
    (client,) = of_kind(objects, "CephClient")
    assert f"`osd 'allow r pool={LOG_POOL} namespace=reshard, allow r pool={INDEX_POOL}'`" in section
    assert client["spec"]["caps"]["osd"] == f"allow r pool={LOG_POOL} namespace=reshard, allow r pool={INDEX_POOL}"
    assert f"`{USER_SECRET}`" in section
    (sidecar_service,) = [s for s in of_kind(objects, "Service") if s["spec"].get("clusterIP") != "None"]
    assert f"svc/{sidecar_service['metadata']['name']} 9928" in section
    (deployment,) = of_kind(objects, "Deployment")
    assert f"logs deploy/{deployment['metadata']['name']}" in section
    assert pod_of(objects)["imagePullSecrets"] == [{"name": "registry-creds"}]
