"""The chart points the sidecar at Rook's ceph-exporters (Reef and later): a headless Service that
selects Rook's exporter pods and names their port as Rook does, and a perf_discovery the exporter's
own parser takes, naming that Service's DNS name and port.

Rook's side (rook/rook pkg/operator/ceph/cluster/nodedaemon/exporter.go): one Deployment per node,
createOrUpdateCephExporter() labels its pods kubernetes.io/hostname=<node>, app=rook-ceph-exporter
(cephExporterAppName, add.go), node_name=<node>, ceph_daemon_id=exporter and
rook_cluster=<namespace> (k8sutil.ClusterAttr); the container runs `ceph-exporter --port 9926`
(DefaultMetricsPort), which MakeCephExporterMetricsService() names "ceph-exporter-http-metrics".
Read at v1.15.5, the version whose CRDs tests/deploy/test_helm.py validates against; the same in
v1.20.6, where the port can be set (spec.monitoring.exporter.port, from v1.19.3).
"""

from __future__ import annotations

import yaml

from ceph_scale.core.registry import SOURCE_BY_NAME
from exporter.sidecar.config_file import parse
from tests.deploy.test_helm import CUSTOM, NO_STORE, STORE, of_kind, render, set_args


def rook_exporter_pod_labels(namespace: str, node: str = "node-a") -> dict[str, str]:
    return {
        "kubernetes.io/hostname": node,
        "app": "rook-ceph-exporter",
        "node_name": node,
        "ceph_daemon_id": "exporter",
        "rook_cluster": namespace,
    }


# Other pods of the same Rook cluster, which must not be read as exporters.
OTHER_ROOK_PODS = [
    {"app": "rook-ceph-mgr", "ceph_daemon_id": "a", "mgr_role": "active"},
    {"app": "rook-ceph-osd", "ceph_daemon_id": "0", "ceph-osd-id": "0"},
    {"app": "rook-ceph-crashcollector", "node_name": "node-a", "ceph_daemon_id": "crash"},
]


def selects(selector: dict, labels: dict) -> bool:
    return selector.items() <= labels.items()


def exporters_service(objects: list[dict]) -> dict:
    (service,) = [s for s in of_kind(objects, "Service") if s["spec"].get("clusterIP") == "None"]
    return service


def sidecar_config(objects: list[dict]) -> dict:
    (config,) = [cm for cm in of_kind(objects, "ConfigMap") if "config.yaml" in cm["data"]]
    return parse(yaml.safe_load(config["data"]["config.yaml"]), set(SOURCE_BY_NAME)).__dict__


def test_the_headless_service_selects_rook_s_exporters_and_nothing_else(helm):
    for values, namespace in ((STORE, "rook-ceph"), (CUSTOM, "storage")):
        service = exporters_service(render(helm, *set_args(values)))
        assert service["metadata"]["namespace"] == namespace
        selector = service["spec"]["selector"]
        assert selects(selector, rook_exporter_pod_labels(namespace))
        assert selects(selector, rook_exporter_pod_labels(namespace, node="node-b"))
        assert not selects(selector, rook_exporter_pod_labels("another-cluster"))
        for other in OTHER_ROOK_PODS:
            assert not selects(selector, {**other, "rook_cluster": namespace})
        (port,) = service["spec"]["ports"]
        assert (port["name"], port["port"], port["targetPort"]) == ("ceph-exporter-http-metrics", 9926, 9926)


def test_the_sidecar_discovers_through_that_service(helm):
    for values in (STORE, CUSTOM, NO_STORE):
        objects = render(helm, *set_args(values))
        service = exporters_service(objects)
        rule = sidecar_config(objects)["perf_discovery"]
        name = f"{service['metadata']['name']}.{service['metadata']['namespace']}.svc"
        assert (rule.name, rule.port) == (name, service["spec"]["ports"][0]["port"])
        # The pod reads that file.
        (deployment,) = of_kind(objects, "Deployment")
        (exporter,) = deployment["spec"]["template"]["spec"]["containers"]
        assert "--config.file=/etc/ceph-scale/config.yaml" in exporter["args"]


def test_another_exporter_port_moves_both(helm):
    """From Rook 1.19.3 the CephCluster's spec.monitoring.exporter.port sets the exporters' port
    (exporter.go: getExporterMetricsPort(), the container's --port and Rook's Service)."""
    objects = render(helm, *set_args(STORE, "cephExporters.port=9999"))
    (port,) = exporters_service(objects)["spec"]["ports"]
    assert (port["port"], port["targetPort"]) == (9999, 9999)
    assert sidecar_config(objects)["perf_discovery"].port == 9999


def test_discovery_off_leaves_the_manager_as_the_source(helm):
    objects = render(helm, *set_args(STORE, "cephExporters.discover=false"))
    assert not [s for s in of_kind(objects, "Service") if s["spec"].get("clusterIP") == "None"]
    config = sidecar_config(objects)
    assert config["perf_discovery"] is None and config["rgw"]["log_pool"] == "my-store.rgw.log"
