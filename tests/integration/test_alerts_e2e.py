"""End to end: the real exporter on the real cluster -> real Prometheus with our rules ->
real Alertmanager with the shipped routing (rules/alertmanager/alertmanager.yml) -> a local webhook.

The rules are loaded as written except for `for:` and `keep_firing_for:`, shortened
so that the test does not wait 5 minutes per alert (the promtool tests cover both):
`keep_firing_for` stays three evaluations long, as the shipped 5 minutes are several
scrapes. The
Alertmanager config is the shipped one with its receivers pointed at the
test's webhook, one path per receiver, and its group timings shortened.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from demo.monitoring import Alertmanager, Prometheus, Webhook, receiver_paths, wait_until, webhook_routing

pytestmark = pytest.mark.cluster
REPO = Path(__file__).resolve().parents[2]
SHIPPED_ROUTING = REPO / "rules" / "alertmanager" / "alertmanager.yml"


def alert_labels(name: str) -> dict[str, str]:
    for group in yaml.safe_load((REPO / "rules" / "alerts.yml").read_text())["groups"]:
        for rule in group["rules"]:
            if rule.get("alert") == name:
                return {"alertname": name, **rule["labels"]}
    raise KeyError(name)


def shipped_receivers(labels: dict[str, str]) -> set[str]:
    """The receivers the shipped routing sends an alert with `labels` to, as amtool works them out."""
    amtool = shutil.which("amtool")
    assert amtool, "amtool not found: run scripts/bootstrap.sh"
    r = subprocess.run(
        [
            amtool,
            "config",
            "routes",
            "test",
            f"--config.file={SHIPPED_ROUTING}",
            *(f"{k}={v}" for k, v in labels.items()),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return set(r.stdout.strip().split(","))


@pytest.fixture(scope="module")
def alerting(sidecar, scratch):
    hook = Webhook().start()
    workdir = Path(scratch) / "alerting"
    rules_dir = workdir / "rules"
    rules_dir.mkdir(parents=True)
    for name in ("recording.yml", "alerts.yml"):
        doc = yaml.safe_load((REPO / "rules" / name).read_text())
        for group in doc["groups"]:
            group["interval"] = "2s"
            for rule in group["rules"]:
                if "alert" in rule:
                    rule["for"] = "0s"
                    rule["keep_firing_for"] = "6s"
        (rules_dir / name).write_text(yaml.safe_dump(doc, sort_keys=False))
    am_config = webhook_routing(hook.url, SHIPPED_ROUTING, timings={"group_wait": "1s", "group_interval": "1s"})
    am = Alertmanager(workdir, am_config).start()
    prom = Prometheus(
        workdir,
        {"ceph-scale": [f"127.0.0.1:{sidecar.port}"]},
        rule_files=sorted(rules_dir.glob("*.yml")),
        alertmanager_url=am.url,
        scrape_interval="2s",
        evaluation_interval="2s",
    ).start()
    yield prom, am, hook, am_config
    prom.stop()
    am.stop()
    hook.stop()


def test_the_webhook_stands_in_for_every_shipped_receiver(alerting):
    _, _, hook, am_config = alerting
    shipped = yaml.safe_load(SHIPPED_ROUTING.read_text())
    paths = receiver_paths(am_config)
    assert set(paths) == {r["name"] for r in shipped["receivers"]}
    assert len(set(paths.values())) == len(paths), paths
    for receiver in am_config["receivers"]:
        assert [c["url"] for c in receiver["webhook_configs"]] == [hook.url + paths[receiver["name"]]]
    assert am_config["inhibit_rules"] == shipped["inhibit_rules"]


def test_rules_load_in_a_real_prometheus(alerting):
    prom, _, _, _ = alerting
    wait_until(prom.targets_up, 60, what="the exporter target up")
    wait_until(
        lambda: (
            prom.query("cluster_op_unit:ceph_scale_s3_load_ratio:rate5m") is not None
            and prom.query("cluster:ceph_scale_bluefs_spillover_osds:max")
        ),
        60,
        what="recording rules to produce data",
    )
    (sample,) = prom.query("cluster:ceph_scale_bluefs_spillover_osds:max")
    assert sample["metric"]["cluster"] == "test" and float(sample["value"][1]) == 1


def test_spillover_alert_reaches_its_team(alerting):
    _, am, hook, am_config = alerting
    name = "CephScaleBluefsSpilloverStarted"
    paths = receiver_paths(am_config)
    expected = {paths[r] for r in shipped_receivers({**alert_labels(name), "cluster": "test"})}
    assert expected == {paths["ceph-scale-storage"]}
    wait_until(lambda: hook.paths(name, "firing") >= expected, 90, what="the spillover notification")
    alerts = hook.alerts(name, "firing", paths["ceph-scale-storage"])
    labels = alerts[0]["labels"]
    # One alert for the cluster, naming the spilling OSD (not one alert per OSD).
    assert "ceph_daemon" not in labels and labels["cluster"] == "test"
    assert labels["severity"] == "warning" and labels["signal"] == "spillover"
    annotations = alerts[0]["annotations"]
    assert "osd.0" in annotations["description"] and "1 OSD(s)" in annotations["summary"]
    assert annotations["runbook_url"].endswith("#cephscalebluefsspilloverstarted")
    assert hook.paths(name, "firing") == expected  # a warning does not page
    assert not hook.alerts(name, "resolved")
    assert any(a["labels"]["alertname"] == name for a in am.alerts())


def test_osd_down_alert_pages_and_reaches_its_team_inhibits_its_warning_twin_and_resolves(alerting, ceph_cluster):
    """1 of 3 OSDs down is a 33 % share, past the study's one-node point (17 %: 21 %/25 % drop):
    the critical alert reaches every receiver the shipped routing names (the pager and the storage
    team), its warning twin does not fire while the page's condition holds (inhibited as well), and
    the resolved notification follows when the OSD is back, with no warning released after it."""
    prom, _, hook, am_config = alerting
    name, twin = "CephScaleOsdsDownLargeDrop", "CephScaleOsdsDownExpectedDrop"
    paths = receiver_paths(am_config)
    receivers = shipped_receivers({**alert_labels(name), "cluster": "test"})
    assert {"ceph-scale-pager", "ceph-scale-storage"} <= receivers
    expected = {paths[r] for r in receivers}
    resolving = {
        paths[r["name"]]
        for r in am_config["receivers"]
        if r["name"] in receivers and r["webhook_configs"][0]["send_resolved"]
    }
    ceph_cluster.osd_down(2)
    try:
        wait_until(lambda: hook.paths(name, "firing") >= expected, 90, what="the OSD-down notifications")
        assert hook.paths(name, "firing") == expected
        for path in expected:
            firing = hook.alerts(name, "firing", path)
            assert firing[0]["labels"]["cluster"] == "test" and firing[0]["labels"]["severity"] == "critical"
            assert "%" in firing[0]["annotations"]["description"]
        for receiver in receivers:  # Alertmanager names the receiver in the payload, too
            payloads = [n for p, n in hook.notifications if p == paths[receiver]]
            assert any(
                n["receiver"] == receiver and any(a["labels"]["alertname"] == name for a in n["alerts"])
                for n in payloads
            )
        # The warning stands down while the page's condition holds, so when the page resolves
        # there is nothing Alertmanager held back to release (the twins end together).
        assert not any(a["labels"]["alertname"] == twin for a in prom.alerts())
        assert hook.alerts(twin, "firing") == []
    finally:
        ceph_cluster.osd_up(2)
    wait_until(lambda: hook.paths(name, "resolved") >= resolving, 120, what="the resolved notifications")
    assert resolving and hook.alerts(twin, "firing") == []
