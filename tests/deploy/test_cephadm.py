"""The cephadm bundle (deploy/cephadm.py): the rules file the Prometheus spec mounts holds
exactly the groups of rules/ (whose promtool tests tests/rules runs) and loads in promtool; the service specs
are accepted by each release's own cephadm spec classes and each fits in the config-key entry
cephadm stores it in; the scrape jobs load in Prometheus; the runbook base moves every link.
How each release's cephadm runs the specs: test_cephadm_run.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from deploy import cephadm, cephadm_specs, sources
from tests.conftest import ALL_RELEASES
from tests.deploy.source_tree import REPO

BUNDLE_ARGS = ["--host", "ceph-admin-1", "--mgr-host", "ceph-mgr-1", "--mgr-host", "ceph-mgr-2",
               "--rgw-endpoint", "http://rgw.example:8080"]  # fmt: skip


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cephadm")
    assert cephadm.main(["--out", str(out), *BUNDLE_ARGS]) == 0
    return out


def host_file(bundle: Path, path: str) -> Path:
    """A file of the bundle's host-files/ tree, by the path it has on a monitoring host."""
    return bundle / "host-files" / path.lstrip("/")


def checkout_groups() -> list[dict]:
    """Every group of every rule file under rules/, read here without the generator's code."""
    groups = []
    for path in sorted((REPO / "rules").glob("*.yml")):
        groups += (yaml.safe_load(path.read_text()) or {}).get("groups", [])
    return groups


def test_the_rules_file_holds_exactly_the_groups_of_rules(bundle):
    generated = yaml.safe_load(host_file(bundle, cephadm_specs.HOST_RULES).read_text())
    assert set(generated) == {"groups"}
    by_name = {g["name"]: g for g in generated["groups"]}
    assert len(by_name) == len(generated["groups"])
    assert by_name == {g["name"]: g for g in checkout_groups()}
    kinds = {"record" if "record" in r else "alert" for g in generated["groups"] for r in g["rules"]}
    assert kinds == {"record", "alert"}, "the recording rules travel with the alerts"


def test_the_rules_file_passes_promtool_check(bundle):
    """promtool loads it. Its groups are rules/'s, parsed equal (the test above): rules/'s
    promtool tests (tests/rules) are its tests, run there once rather than again on a copy."""
    rules = str(host_file(bundle, cephadm_specs.HOST_RULES))
    proc = subprocess.run(["promtool", "check", "rules", rules], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout


def test_scrape_jobs_load_in_prometheus_with_the_rules(bundle, tmp_path):
    jobs = yaml.safe_load((bundle / "scrape-jobs.yml").read_text())
    assert [j["job_name"] for j in jobs] == ["ceph-scale", "ceph-scale-mgr"]
    assert jobs[0]["static_configs"][0]["targets"] == ["ceph-admin-1:9928"]
    assert jobs[1]["static_configs"][0]["targets"] == ["ceph-mgr-1:9284", "ceph-mgr-2:9284"]
    assert all(j["honor_labels"] for j in jobs), "the exporter's own cluster label must win"
    config = {"rule_files": [str(host_file(bundle, cephadm_specs.HOST_RULES))], "scrape_configs": jobs}
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    proc = subprocess.run(["promtool", "check", "config", str(tmp_path / "prometheus.yml")], capture_output=True)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()


def test_the_ports_are_the_producers_defaults():
    import ast

    from exporter.sidecar.main import build_parser

    assert build_parser().parse_args([]).listen == f":{cephadm_specs.SIDECAR_PORT}"
    options = ast.parse((REPO / "mgr_module" / "scale" / "options.py").read_text())
    (port,) = [n.value.value for n in options.body if isinstance(n, ast.Assign) and n.targets[0].id == "DEFAULT_PORT"]
    assert port == cephadm_specs.MGR_MODULE_PORT
    uid = cephadm_specs.CONTAINER_UID
    assert f"USER {uid}:{uid}" in (REPO / "Dockerfile").read_text()


# Each spec as cephadm's SpecStore._save stores it (src/pybind/mgr/cephadm/inventory.py, the
# same in 16.2.15, 18.2.7 and 20.2.4): one config-key entry, `mgr/cephadm/spec.<service name>`.
VALIDATE = """
import json, sys
from ceph.deployment.service_spec import ServiceSpec
for data in json.load(sys.stdin):
    spec = ServiceSpec.from_json(data)
    spec.validate()
    stored = json.dumps({"spec": spec.to_json(), "created": "2026-01-01T00:00:00.000000Z"}, sort_keys=True)
    print(type(spec).__name__, spec.service_name(), len(stored.encode()))
"""
SPECS = ("ceph-scale-exporter.yml", "prometheus.yml", "grafana.yml")


@pytest.mark.parametrize("release_name", ALL_RELEASES)
def test_each_release_s_cephadm_accepts_the_specs_and_can_store_each(bundle, release_name):
    """The specs through Ceph's own ServiceSpec classes (python-common) of that release, and
    the entry cephadm would store for each within mon_config_key_max_entry_size."""
    from cluster.releases import release

    specs = [yaml.safe_load((bundle / n).read_text()) for n in SPECS]
    proc = subprocess.run(
        [*release(release_name).python, "-c", VALIDATE], input=json.dumps(specs), capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line.split() for line in proc.stdout.splitlines()]
    print(release_name, "stored spec entries (bytes):", {name: int(size) for _, name, size in lines})
    assert [(kind, name) for kind, name, _ in lines] == [
        ("CustomContainerSpec", "container.ceph-scale-exporter"),
        ("PrometheusSpec", "prometheus"),
        ("GrafanaSpec", "grafana"),
    ]
    for _, name, size in lines:
        assert int(size) < cephadm_specs.CONFIG_KEY_MAX_ENTRY // 16, f"{name}: {size} B"
    assert specs[0]["spec"]["extra_entrypoint_args"][:2] == ["--web.listen-address", ":9928"]


def test_rules_and_boards_travel_as_host_files_leaving_custom_alerts_to_the_operator(bundle):
    """Neither rules nor boards are in a spec (inlined, the boards alone are several times the
    limit), the bundle writes no custom_alerts.yml, and the host files are whole and valid."""
    board_bytes = sum(len(p.read_bytes()) for p in (REPO / "dashboards" / "json").glob("*.json"))
    assert board_bytes > 3 * cephadm_specs.CONFIG_KEY_MAX_ENTRY, "the reason boards are not custom_configs"
    texts = {n: (bundle / n).read_text() for n in SPECS}
    for name, text in texts.items():
        assert "groups:" not in text and '"panels"' not in text, name
    assert not list(bundle.rglob("custom_alerts.yml"))
    boards = {p.name: p.read_text() for p in host_file(bundle, cephadm_specs.HOST_BOARDS).glob("*.json")}
    assert boards == {p.name: p.read_text() for p in (REPO / "dashboards" / "json").glob("*.json")}
    assert all(json.loads(text)["uid"] for text in boards.values())
    provider = yaml.safe_load(yaml.safe_load(texts["grafana.yml"])["custom_configs"][0]["content"])
    assert provider["providers"][0]["options"]["path"] == cephadm_specs.GRAFANA_BOARDS
    assert provider["providers"][0]["type"] == "file"
    rules = host_file(bundle, cephadm_specs.HOST_RULES).read_bytes()
    print("rules file:", len(rules), "B; the operator's custom_alerts.yml keeps", cephadm_specs.CONFIG_KEY_MAX_ENTRY)


def test_without_a_host_the_generator_says_so_in_one_line(tmp_path, capsys):
    assert cephadm.main(["--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--host is needed" in err
    assert not (tmp_path / "b").exists()


def test_the_runbook_base_url_moves_every_runbook_link(tmp_path, capsys):
    base = "https://wiki.example/ceph-scale-signals/v0.1/"
    assert cephadm.main(["--out", str(tmp_path), "--host", "h", "--runbook-base-url", base]) == 0
    rules_path = host_file(tmp_path, cephadm_specs.HOST_RULES)
    groups = yaml.safe_load(rules_path.read_text())["groups"]
    urls = {r["alert"]: r["annotations"]["runbook_url"] for g in groups for r in g["rules"] if "alert" in r}
    assert len(urls) >= 30
    assert all(url == f"{base}rules/runbooks.md#{alert.lower()}" for alert, url in urls.items()), urls
    assert sources.DEFAULT_RUNBOOK_BASE not in rules_path.read_text()
    for board in host_file(tmp_path, cephadm_specs.HOST_BOARDS).glob("*.json"):
        (var,) = [v for v in json.loads(board.read_text())["templating"]["list"] if v["name"] == "runbook_base"]
        assert var["query"] == f"{base}rules/runbooks.md", board.name
        assert sources.DEFAULT_RUNBOOK_BASE not in board.read_text(), board.name
    proc = subprocess.run(["promtool", "check", "rules", str(rules_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    capsys.readouterr()
    assert cephadm.main(["--out", str(tmp_path), "--host", "h", "--runbook-base-url", "wiki.example/x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--runbook-base-url" in err
