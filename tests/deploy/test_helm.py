"""The Helm chart for Rook clusters (deploy/helm/ceph-scale-signals), rendered by a real helm
(deploy/tools.sh builds it from the Go module proxy, once per machine) and validated offline:
the Kubernetes objects against Kubernetes' schemas (kubernetes-validate), the
prometheus-operator and Rook objects against their CRDs' openAPIV3Schema (the CRD files of the
prometheus-operator and Rook Go modules). The PrometheusRule holds exactly the groups of
rules/, the ConfigMaps exactly the boards of dashboards/json/."""

from __future__ import annotations

import subprocess
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml

from tests.deploy.conftest import TOOLS
from tests.deploy.source_tree import REPO
from tests.integration.test_sidecar_faults import LEAST_PRIVILEGE_OSD_CAPS

CHART = REPO / "deploy" / "helm" / "ceph-scale-signals"
KUBERNETES = ("1.28.0", kubernetes_validate.latest_version())
OPERATOR_CRDS = ("servicemonitors", "prometheusrules")
CUSTOM = {
    "--set": [
        "sidecar.rgw.endpoint=http://rook-ceph-rgw-store.rook-ceph.svc:80",
        "sidecar.rgw.credentialsSecret=ceph-scale-rgw",
        "sidecar.clusterLabel=prod-1",
        "sidecar.stateClaim=ceph-scale-state",
        "prometheusRule.labels.release=kube-prometheus-stack",
        "serviceMonitor.labels.release=kube-prometheus-stack",
        "rook.clusterNamespace=storage",
    ]
}


@pytest.fixture(scope="session")
def crd_schemas() -> dict[str, dict]:
    """{kind: openAPIV3Schema} of the CRDs the chart's custom objects belong to."""
    proc = subprocess.run([TOOLS, "crds"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    operator, rook = (Path(p) for p in proc.stdout.split())
    crds = [yaml.safe_load((operator / f"example/prometheus-operator-crd/monitoring.coreos.com_{n}.yaml").read_text())
            for n in OPERATOR_CRDS]  # fmt: skip
    crds += [d for d in yaml.safe_load_all((rook / "deploy/examples/crds.yaml").read_text()) if d]
    schemas = {}
    for crd in crds:
        kind = crd["spec"]["names"]["kind"]
        (version,) = [v for v in crd["spec"]["versions"] if v["served"] and v.get("storage")]
        schemas[kind] = go_patterns_for_python(version["schema"]["openAPIV3Schema"])
    return schemas


def go_patterns_for_python(node):
    """Kubernetes checks `pattern` with Go's regexp, where `^(?i)...` is fine; Python wants an
    inline flag first. Same language, so the flag is moved to the front."""
    if isinstance(node, dict):
        out = {k: go_patterns_for_python(v) for k, v in node.items()}
        pattern = out.get("pattern")
        if isinstance(pattern, str) and "(?i)" in pattern[1:]:
            out["pattern"] = "(?i)" + pattern.replace("(?i)", "")
        return out
    if isinstance(node, list):
        return [go_patterns_for_python(v) for v in node]
    return node


def check(obj: dict, schema: dict) -> None:
    """Validate against an openAPIV3Schema (JSON Schema draft 4 with Kubernetes' extensions,
    which a validator ignores as unknown keywords)."""
    jsonschema.Draft4Validator(schema).validate(obj)


def render(helm: str, *args: str) -> list[dict]:
    proc = subprocess.run([helm, "template", "ceph-scale", str(CHART), *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def custom_args() -> list[str]:
    return [a for v in CUSTOM["--set"] for a in ("--set", v)]


@pytest.fixture(scope="module", params=["defaults", "custom"])
def objects(request, helm) -> list[dict]:
    return render(helm, *([] if request.param == "defaults" else custom_args()))


def of_kind(objects: list[dict], kind: str) -> list[dict]:
    return [o for o in objects if o["kind"] == kind]


def test_helm_lint(helm):
    proc = subprocess.run([helm, "lint", "--strict", str(CHART), *custom_args()], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_object_is_valid_against_its_schema(objects, crd_schemas):
    kinds = sorted(o["kind"] for o in objects)
    assert set(kinds) == {"CephClient", "ConfigMap", "Deployment", "PrometheusRule", "Service", "ServiceMonitor"}
    for obj in objects:
        if obj["kind"] in crd_schemas:
            check(obj, crd_schemas[obj["kind"]])
        else:
            for version in KUBERNETES:
                kubernetes_validate.validate(obj, version, strict=True)


def test_the_validators_catch_what_is_wrong(objects, crd_schemas):
    """No validation passes for lack of a schema: a wrong field fails each kind."""
    for obj in objects:
        broken = yaml.safe_load(yaml.safe_dump(obj))
        broken["spec" if "spec" in broken else "data"] = ["not", "a", "mapping"]
        with pytest.raises((jsonschema.ValidationError, kubernetes_validate.ValidationError)):
            if obj["kind"] in crd_schemas:
                check(broken, crd_schemas[obj["kind"]])
            else:
                kubernetes_validate.validate(broken, KUBERNETES[-1], strict=True)
    rule = yaml.safe_load(yaml.safe_dump(of_kind(objects, "PrometheusRule")[0]))
    rule["spec"]["groups"][0]["rules"][0]["for"] = "five minutes"
    with pytest.raises(jsonschema.ValidationError):
        check(rule, crd_schemas["PrometheusRule"])


def checkout_groups() -> dict[str, dict]:
    groups = {}
    for path in sorted((REPO / "rules").glob("*.yml")):
        for group in (yaml.safe_load(path.read_text()) or {}).get("groups", []):
            assert group["name"] not in groups
            groups[group["name"]] = group
    return groups


def test_the_prometheus_rule_is_exactly_rules(objects):
    (rule,) = of_kind(objects, "PrometheusRule")
    groups = rule["spec"]["groups"]
    assert {g["name"]: g for g in groups} == checkout_groups()
    assert len(groups) == len(checkout_groups())


def test_the_dashboards_are_exactly_dashboards_json(objects):
    maps = of_kind(objects, "ConfigMap")
    boards = {p.name: p.read_text() for p in (REPO / "dashboards" / "json").glob("*.json")}
    data = {}
    for cm in maps:
        assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
        assert cm["metadata"]["annotations"]["grafana_folder"] == "Ceph scale"
        data.update(cm["data"])
    assert len(maps) == len(boards)
    assert {n: t.rstrip("\n") for n, t in data.items()} == {n: t.rstrip("\n") for n, t in boards.items()}


def test_the_cephx_user_is_the_least_privilege_profile(objects):
    (client,) = of_kind(objects, "CephClient")
    assert client["spec"]["caps"] == {"mon": "allow r", "mgr": "allow r", "osd": LEAST_PRIVILEGE_OSD_CAPS}
    (deployment,) = of_kind(objects, "Deployment")
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    # Rook keeps the CephClient's key in rook-ceph-client-<name>, under the key <name>.
    name = client["metadata"]["name"]
    assert volumes["client-key"]["secret"] == {
        "secretName": f"rook-ceph-client-{name}", "items": [{"key": name, "path": "key"}]
    }  # fmt: skip


def selects(selector: dict, labels: dict) -> bool:
    return selector.items() <= labels.items()


def test_services_and_monitors_find_their_targets(objects):
    (deployment,) = of_kind(objects, "Deployment")
    pod = deployment["spec"]["template"]
    spec = pod["spec"]
    assert spec["securityContext"]["runAsUser"] == 10001 and spec["securityContext"]["runAsNonRoot"]
    sidecar_svc, mgr_svc = sorted(of_kind(objects, "Service"), key=lambda s: "mgr" in s["metadata"]["name"])
    assert selects(sidecar_svc["spec"]["selector"], pod["metadata"]["labels"])
    assert selects(deployment["spec"]["selector"]["matchLabels"], pod["metadata"]["labels"])
    container = spec["containers"][0]
    assert f"--web.listen-address=:{sidecar_svc['spec']['ports'][0]['port']}" in container["args"]
    # Rook's active manager pod: app=rook-ceph-mgr, rook_cluster=<namespace>, mgr_role=active.
    namespace = deployment["metadata"]["namespace"]
    rook_mgr = {"app": "rook-ceph-mgr", "rook_cluster": namespace, "mgr_role": "active", "ceph_daemon_id": "a"}
    assert selects(mgr_svc["spec"]["selector"], rook_mgr)
    assert mgr_svc["spec"]["ports"][0]["port"] == 9284
    for monitor in of_kind(objects, "ServiceMonitor"):
        (target,) = [s for s in (sidecar_svc, mgr_svc) if selects(monitor["spec"]["selector"]["matchLabels"],
                                                                s["metadata"]["labels"])]  # fmt: skip
        assert monitor["spec"]["endpoints"][0]["port"] == target["spec"]["ports"][0]["name"]
        assert monitor["spec"]["endpoints"][0]["honorLabels"] is True


def test_values_select_labels_and_wire_the_rgw_secret(helm):
    objects = render(helm, *custom_args())
    for obj in of_kind(objects, "PrometheusRule") + of_kind(objects, "ServiceMonitor"):
        assert obj["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert {o["metadata"]["namespace"] for o in objects} == {"storage"}
    (deployment,) = of_kind(objects, "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert "--cluster-label=prod-1" in container["args"]
    assert "--rgw-endpoint=http://rook-ceph-rgw-store.rook-ceph.svc:80" in container["args"]
    env = {e["name"]: e.get("valueFrom", {}).get("secretKeyRef") for e in container["env"]}
    assert env["CEPH_SCALE_RGW_SECRET_KEY"] == {"name": "ceph-scale-rgw", "key": "secret_key"}
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    assert volumes["state"] == {"name": "state", "persistentVolumeClaim": {"claimName": "ceph-scale-state"}}
    # An endpoint without the secret is refused at render time, naming the value.
    proc = subprocess.run(
        [helm, "template", "x", str(CHART), "--set", "sidecar.rgw.endpoint=http://rgw"], capture_output=True, text=True
    )
    assert proc.returncode != 0 and "sidecar.rgw.credentialsSecret" in proc.stderr


def test_the_packaged_chart_is_self_contained(helm, tmp_path):
    """`helm package` resolves the links into rules/ and dashboards/json/: the archive renders
    the same objects, and carries neither the promtool tests nor the validator."""
    proc = subprocess.run([helm, "package", str(CHART), "-d", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (archive,) = tmp_path.glob("ceph-scale-signals-*.tgz")
    import tarfile

    names = tarfile.open(archive).getnames()
    assert not [n for n in names if "/tests/" in n or n.endswith((".py", ".md"))], names
    packaged = subprocess.run(
        [helm, "template", "ceph-scale", str(archive)], capture_output=True, text=True, check=True
    )
    assert [d for d in yaml.safe_load_all(packaged.stdout) if d] == render(helm)
