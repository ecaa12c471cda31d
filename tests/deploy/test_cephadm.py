"""The cephadm bundle (deploy/cephadm.py): the one rules file cephadm's Prometheus loads holds
exactly the groups of rules/ and passes every promtool test of rules/tests/; the service specs
are accepted by each release's own cephadm spec classes; the scrape jobs load in Prometheus."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from deploy import cephadm
from tests.conftest import ALL_RELEASES
from tests.deploy.source_tree import REPO

BUNDLE_ARGS = ["--host", "ceph-admin-1", "--mgr-host", "ceph-mgr-1", "--mgr-host", "ceph-mgr-2",
               "--rgw-endpoint", "http://rgw.example:8080"]  # fmt: skip


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cephadm")
    assert cephadm.main(["--out", str(out), *BUNDLE_ARGS]) == 0
    return out


def checkout_groups() -> list[dict]:
    """Every group of every rule file under rules/, read here without the generator's code."""
    groups = []
    for path in sorted((REPO / "rules").glob("*.yml")):
        groups += (yaml.safe_load(path.read_text()) or {}).get("groups", [])
    return groups


def test_custom_alerts_holds_exactly_the_groups_of_rules(bundle):
    generated = yaml.safe_load((bundle / "custom_alerts.yml").read_text())
    assert set(generated) == {"groups"}
    by_name = {g["name"]: g for g in generated["groups"]}
    assert len(by_name) == len(generated["groups"])
    assert by_name == {g["name"]: g for g in checkout_groups()}
    kinds = {"record" if "record" in r else "alert" for g in generated["groups"] for r in g["rules"]}
    assert kinds == {"record", "alert"}, "the recording rules travel with the alerts"


def test_custom_alerts_passes_promtool_check_and_every_rules_test(bundle, tmp_path):
    proc = subprocess.run(["promtool", "check", "rules", str(bundle / "custom_alerts.yml")], capture_output=True)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    tests = []
    for path in sorted((REPO / "rules" / "tests").glob("*.yml")):
        case = yaml.safe_load(path.read_text())
        case["rule_files"] = [str(bundle / "custom_alerts.yml")]
        (tmp_path / path.name).write_text(yaml.safe_dump(case, sort_keys=False))
        tests.append(str(tmp_path / path.name))
    assert len(tests) >= 9
    proc = subprocess.run(["promtool", "test", "rules", *tests], capture_output=True, text=True)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert proc.stdout.count("SUCCESS") == len(tests)


def test_scrape_jobs_load_in_prometheus_with_the_rules(bundle, tmp_path):
    jobs = yaml.safe_load((bundle / "scrape-jobs.yml").read_text())
    assert [j["job_name"] for j in jobs] == ["ceph-scale", "ceph-scale-mgr"]
    assert jobs[0]["static_configs"][0]["targets"] == ["ceph-admin-1:9928"]
    assert jobs[1]["static_configs"][0]["targets"] == ["ceph-mgr-1:9284", "ceph-mgr-2:9284"]
    assert all(j["honor_labels"] for j in jobs), "the exporter's own cluster label must win"
    config = {"rule_files": [str(bundle / "custom_alerts.yml")], "scrape_configs": jobs}
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    proc = subprocess.run(["promtool", "check", "config", str(tmp_path / "prometheus.yml")], capture_output=True)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()


def test_the_ports_are_the_producers_defaults():
    import ast

    from exporter.sidecar.main import build_parser

    assert build_parser().parse_args([]).listen == f":{cephadm.SIDECAR_PORT}"
    options = ast.parse((REPO / "mgr_module" / "scale" / "options.py").read_text())
    (port,) = [n.value.value for n in options.body if isinstance(n, ast.Assign) and n.targets[0].id == "DEFAULT_PORT"]
    assert port == cephadm.MGR_MODULE_PORT
    assert f"USER {cephadm.CONTAINER_UID}:{cephadm.CONTAINER_UID}" in (REPO / "Dockerfile").read_text()


VALIDATE = """
import json, sys
from ceph.deployment.service_spec import ServiceSpec
for data in json.load(sys.stdin):
    spec = ServiceSpec.from_json(data)
    spec.validate()
    print(type(spec).__name__, spec.service_name())
"""


@pytest.mark.parametrize("release_name", ALL_RELEASES)
def test_each_release_s_cephadm_accepts_the_specs(bundle, release_name):
    """The specs through Ceph's own ServiceSpec classes (python-common) of that release."""
    from cluster.releases import release

    specs = [yaml.safe_load((bundle / n).read_text()) for n in ("ceph-scale-exporter.yml", "grafana.yml")]
    proc = subprocess.run(
        [*release(release_name).python, "-c", VALIDATE], input=json.dumps(specs), capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[0].split() == ["CustomContainerSpec", "container.ceph-scale-exporter"]
    assert proc.stdout.splitlines()[1].split()[1] == "grafana"
    sidecar = specs[0]["spec"]
    assert sidecar["extra_entrypoint_args"][:2] == ["--web.listen-address", ":9928"]
    grafana = {c["mount_path"].rsplit("/", 1)[1]: c["content"] for c in specs[1]["custom_configs"]}
    assert grafana == {p.name: p.read_text() for p in (REPO / "dashboards" / "json").glob("*.json")}
