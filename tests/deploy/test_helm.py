"""The Helm chart for Rook clusters (deploy/helm/ceph-scale-signals), rendered by a real helm
(tests/deploy/tools.sh builds it from the Go module proxy, once per machine) and validated offline:
the Kubernetes objects against Kubernetes' schemas (kubernetes-validate), the
prometheus-operator and Rook objects against their CRDs' openAPIV3Schema (the CRD files of the
prometheus-operator and Rook Go modules). The PrometheusRule holds exactly the groups of
rules/, the ConfigMaps exactly the boards of dashboards/json/, but for the base of the runbook
links (runbookBaseUrl). Values the chart does not read, and a render without an image, fail.
Rook's naming: test_helm_rook.py; Pod Security: test_helm_pod_security.py."""

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
IMAGE = "registry.example/ceph-scale-exporter"
# What a first install sets: the pushed image and the CephObjectStore's name.
STORE = {"--set": [f"sidecar.image.repository={IMAGE}", "objectStore.name=my-store"]}
# No object store: the sidecar without RGW sources.
NO_STORE = {"--set": [f"sidecar.image.repository={IMAGE}"]}
CUSTOM = {
    "--set": [
        f"sidecar.image.repository={IMAGE}",
        "sidecar.image.tag=1.2.3",
        "sidecar.imagePullSecrets[0].name=registry-creds",
        "objectStore.name=object-store",
        "objectStore.port=8080",
        "sidecar.clusterLabel=prod-1",
        "sidecar.stateClaim=ceph-scale-state",
        "prometheusRule.labels.release=kube-prometheus-stack",
        "serviceMonitor.labels.release=kube-prometheus-stack",
        "rook.clusterNamespace=storage",
        "mgrModule.enabled=true",
        "runbookBaseUrl=https://git.example.internal/storage/ceph-scale-signals/-/blob/main/",
    ]
}
SHIPPED_RUNBOOK_BASE = "https://github.com/ceph-scale-signals/ceph-scale-signals/blob/main/"


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


def set_args(values: dict[str, list[str]], *more: str) -> list[str]:
    return [a for v in [*values["--set"], *more] for a in ("--set", v)]


def custom_args() -> list[str]:
    return set_args(CUSTOM)


RENDERS = {"store": STORE, "no-store": NO_STORE, "custom": CUSTOM}


@pytest.fixture(scope="module", params=sorted(RENDERS))
def rendered(request, helm) -> tuple[dict[str, list[str]], list[dict]]:
    return RENDERS[request.param], render(helm, *set_args(RENDERS[request.param]))


@pytest.fixture
def objects(rendered) -> list[dict]:
    return rendered[1]


def of_kind(objects: list[dict], kind: str) -> list[dict]:
    return [o for o in objects if o["kind"] == kind]


def test_helm_lint(helm):
    for values in RENDERS.values():
        proc = subprocess.run([helm, "lint", "--strict", str(CHART), *set_args(values)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_object_is_valid_against_its_schema(objects, crd_schemas):
    kinds = {o["kind"] for o in objects}
    assert {"CephClient", "ConfigMap", "Deployment", "PrometheusRule", "Service", "ServiceMonitor"} <= kinds
    assert kinds <= {"CephClient", "CephObjectStoreUser", "ConfigMap", "Deployment", "PrometheusRule", "Service",
                     "ServiceMonitor"}  # fmt: skip
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


def runbook_base(values: dict[str, list[str]]) -> str:
    bases = [v.split("=", 1)[1] for v in values["--set"] if v.startswith("runbookBaseUrl=")]
    return bases[-1] if bases else SHIPPED_RUNBOOK_BASE


def with_runbook_base(groups: dict[str, dict], base: str) -> dict[str, dict]:
    out = yaml.safe_load(yaml.safe_dump(groups))
    for group in out.values():
        for rule in group["rules"]:
            url = rule.get("annotations", {}).get("runbook_url")
            if url:
                rule["annotations"]["runbook_url"] = url.replace(SHIPPED_RUNBOOK_BASE, base)
    return out


def test_the_prometheus_rule_is_exactly_rules(rendered):
    values, objects = rendered
    (rule,) = of_kind(objects, "PrometheusRule")
    groups = rule["spec"]["groups"]
    assert {g["name"]: g for g in groups} == with_runbook_base(checkout_groups(), runbook_base(values))
    assert len(groups) == len(checkout_groups())


def dashboard_maps(objects: list[dict]) -> list[dict]:
    return [cm for cm in of_kind(objects, "ConfigMap") if "grafana_dashboard" in cm["metadata"]["labels"]]


def test_the_dashboards_are_exactly_dashboards_json(rendered):
    values, objects = rendered
    maps = dashboard_maps(objects)
    base = runbook_base(values)
    boards = {
        p.name: p.read_text().replace(SHIPPED_RUNBOOK_BASE, base) for p in (REPO / "dashboards" / "json").glob("*.json")
    }
    data = {}
    for cm in maps:
        assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
        assert cm["metadata"]["annotations"]["grafana_folder"] == "Ceph scale"
        data.update(cm["data"])
    assert len(maps) == len(boards)
    assert {n: t.rstrip("\n") for n, t in data.items()} == {n: t.rstrip("\n") for n, t in boards.items()}


def test_runbook_base_url_rewrites_every_runbook_url(helm):
    base = "https://git.example.internal/storage/ceph-scale-signals/-/blob/main/"
    objects = render(helm, *set_args(STORE, f"runbookBaseUrl={base}"))
    (rule,) = of_kind(objects, "PrometheusRule")
    alerts = [r for g in rule["spec"]["groups"] for r in g["rules"] if "alert" in r]
    shipped = [r for g in checkout_groups().values() for r in g["rules"] if "alert" in r]
    assert len(alerts) == len(shipped) > 30
    for alert in alerts:
        anchor = alert["alert"].lower()
        assert alert["annotations"]["runbook_url"] == f"{base}rules/runbooks.md#{anchor}", alert["alert"]
    assert SHIPPED_RUNBOOK_BASE not in yaml.safe_dump(rule)
    # the boards' runbook links follow, as the mixin's runbookBaseUrl does
    boards = "".join(t for cm in dashboard_maps(objects) for t in cm["data"].values())
    assert SHIPPED_RUNBOOK_BASE not in boards
    assert boards.count(f"{base}rules/runbooks.md") == len(dashboard_maps(objects))


def test_the_cephx_user_is_the_least_privilege_profile(objects):
    (client,) = of_kind(objects, "CephClient")
    caps = client["spec"]["caps"]
    assert {k: v for k, v in caps.items() if k != "osd"} == {"mon": "allow r", "mgr": "allow r"}
    # Rook refuses a CephClient with an empty cap (pkg/operator/ceph/client/controller.go, ValidateClient)
    assert all(caps.values())
    (deployment,) = of_kind(objects, "Deployment")
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    # Rook keeps the CephClient's key in rook-ceph-client-<name>, under the key <name>
    # (pkg/operator/ceph/client/controller.go, generateCephUserSecretName and createOrUpdateClient).
    name = client["metadata"]["name"]
    assert volumes["client-key"]["secret"] == {
        "secretName": f"rook-ceph-client-{name}", "items": [{"key": name, "path": "key"}], "defaultMode": 0o400
    }  # fmt: skip


def test_the_test_cluster_s_store_gets_the_caps_the_integration_tests_prove(helm):
    """A store named `default` has the default zone's pools, the ones the real-cluster tests
    grant and read: the same caps as theirs."""
    (client,) = of_kind(render(helm, "--set", f"sidecar.image.repository={IMAGE}", "--set", "objectStore.name=default"),
                        "CephClient")  # fmt: skip
    assert client["spec"]["caps"]["osd"] == LEAST_PRIVILEGE_OSD_CAPS


def selects(selector: dict, labels: dict) -> bool:
    return selector.items() <= labels.items()


def test_services_and_monitors_find_their_targets(helm):
    objects = render(helm, *custom_args())
    (deployment,) = of_kind(objects, "Deployment")
    pod = deployment["spec"]["template"]
    spec = pod["spec"]
    assert spec["securityContext"]["runAsUser"] == 10001 and spec["securityContext"]["runAsNonRoot"]
    services = [s for s in of_kind(objects, "Service") if s["spec"].get("clusterIP") != "None"]
    sidecar_svc, mgr_svc = sorted(services, key=lambda s: "mgr" in s["metadata"]["name"])
    assert selects(sidecar_svc["spec"]["selector"], pod["metadata"]["labels"])
    assert selects(deployment["spec"]["selector"]["matchLabels"], pod["metadata"]["labels"])
    container = spec["containers"][0]
    assert f"--web.listen-address=:{sidecar_svc['spec']['ports'][0]['port']}" in container["args"]
    # Rook's active manager pod: app=rook-ceph-mgr, rook_cluster=<namespace>, mgr_role=active.
    namespace = deployment["metadata"]["namespace"]
    rook_mgr = {"app": "rook-ceph-mgr", "rook_cluster": namespace, "mgr_role": "active", "ceph_daemon_id": "a"}
    assert selects(mgr_svc["spec"]["selector"], rook_mgr)
    assert mgr_svc["spec"]["ports"][0]["port"] == 9284
    monitors = of_kind(objects, "ServiceMonitor")
    assert len(monitors) == 2
    for monitor in monitors:
        (target,) = [s for s in (sidecar_svc, mgr_svc) if selects(monitor["spec"]["selector"]["matchLabels"],
                                                                s["metadata"]["labels"])]  # fmt: skip
        assert monitor["spec"]["endpoints"][0]["port"] == target["spec"]["ports"][0]["name"]
        assert monitor["spec"]["endpoints"][0]["honorLabels"] is True


def test_the_module_is_not_scraped_unless_enabled(helm):
    """Stock Ceph images lack the module: by default no Service or ServiceMonitor points at a
    port nothing serves (kube-prometheus-stack's TargetDown would fire)."""
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert values["mgrModule"]["enabled"] is False
    for args in (set_args(STORE), set_args(NO_STORE)):
        objects = render(helm, *args)
        names = [o["metadata"]["name"] for o in of_kind(objects, "Service") + of_kind(objects, "ServiceMonitor")]
        assert names and not [n for n in names if "mgr" in n], names
        for monitor in of_kind(objects, "ServiceMonitor"):
            assert monitor["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"] == "sidecar"


def test_a_render_without_an_image_repository_fails_naming_it(helm):
    """No public registry carries the image: a default install would end in ImagePullBackOff,
    so the chart refuses to render without one, saying where it comes from."""
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert values["sidecar"]["image"]["repository"] == ""
    proc = subprocess.run([helm, "template", "x", str(CHART), "--set", "objectStore.name=my-store"],
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode != 0
    assert "sidecar.image.repository: where you pushed the image" in proc.stderr, proc.stderr
    # without the sidecar there is no image to name
    objects = render(helm, "--set", "sidecar.enabled=false")
    assert not of_kind(objects, "Deployment")


def test_values_the_chart_does_not_read_are_refused(helm):
    """values.schema.json: a misspelt value, or one of an older chart (the RGW keys from
    environment variables), fails the render naming it, rather than being ignored."""
    for value, message in [
        ("sidecar.rgw.credentialsSecret=ceph-scale-rgw", "at '/sidecar': additional properties 'rgw' not allowed"),
        ("objectStore.nmae=my-store", "at '/objectStore': additional properties 'nmae' not allowed"),
        ("runbookBaseUrl=https://git.example/runbooks", "at '/runbookBaseUrl'"),
    ]:
        proc = subprocess.run([helm, "template", "x", str(CHART), *set_args(STORE, value)], capture_output=True,
                              text=True)  # fmt: skip
        assert proc.returncode != 0 and message in proc.stderr, (value, proc.stderr)


def test_values_select_labels_and_wire_the_image(helm):
    objects = render(helm, *custom_args())
    for obj in of_kind(objects, "PrometheusRule") + of_kind(objects, "ServiceMonitor"):
        assert obj["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert {o["metadata"]["namespace"] for o in objects} == {"storage"}
    (deployment,) = of_kind(objects, "Deployment")
    spec = deployment["spec"]["template"]["spec"]
    assert spec["imagePullSecrets"] == [{"name": "registry-creds"}]
    assert {c["image"] for c in spec["containers"] + spec["initContainers"]} == {f"{IMAGE}:1.2.3"}
    container = spec["containers"][0]
    assert "--cluster-label=prod-1" in container["args"]
    assert "--rgw-endpoint=http://rook-ceph-rgw-object-store.storage.svc:8080" in container["args"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert volumes["state"] == {"name": "state", "persistentVolumeClaim": {"claimName": "ceph-scale-state"}}


def test_the_packaged_chart_is_self_contained(helm, tmp_path):
    """`helm package` packs the copies of the rules and boards in files/ (rules/assemble.py and
    dashboards/build.py write them): the archive renders the same objects, and carries neither
    the promtool tests nor the validator."""
    proc = subprocess.run([helm, "package", str(CHART), "-d", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (archive,) = tmp_path.glob("ceph-scale-signals-*.tgz")
    import tarfile

    names = tarfile.open(archive).getnames()
    assert not [n for n in names if "/tests/" in n or n.endswith((".py", ".md"))], names
    packaged = subprocess.run(
        [helm, "template", "ceph-scale", str(archive), *set_args(STORE)], capture_output=True, text=True, check=True
    )
    assert [d for d in yaml.safe_load_all(packaged.stdout) if d] == render(helm, *set_args(STORE))
