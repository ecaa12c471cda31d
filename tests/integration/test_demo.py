"""The README's demo command, run on the session's cluster for a short while."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone

import pytest
import yaml

from demo import monitoring
from demo.run import REPO, alertmanager_config, notification_lines, run_demo

pytestmark = pytest.mark.cluster


def webhook_urls(config: dict) -> dict[str, list[str]]:
    """{receiver: its webhook URLs}, after checking that no receiver notifies any other way."""
    for r in config["receivers"]:
        assert [k for k in r if k.endswith("_configs")] == ["webhook_configs"], r
    return {r["name"]: [c["url"] for c in r["webhook_configs"]] for r in config["receivers"]}


def test_demo_shows_live_signals_and_cleans_up(ceph_cluster):
    lines: list[str] = []
    result = run_demo(cluster=ceph_cluster, duration=25, interval=10, out=lines.append, hold_scrubs=False)
    text = "\n".join(lines)
    assert "prometheus    http://127.0.0.1:" in text and "alertmanager  http://127.0.0.1:" in text
    assert f"webhook       {result['webhook']}" in text
    assert "spillover   1 OSD(s) spilling: osd.0" in result["summary"]
    assert "sources     all ok" in result["summary"]
    assert "PUT " in result["summary"]
    # The Alertmanager it ran routes as shipped, and only to its own webhook: one path per receiver.
    shipped = yaml.safe_load((REPO / "rules" / "alertmanager" / "alertmanager.yml").read_text())
    config = result["alertmanager_config"]
    assert config["route"] == shipped["route"] and config["inhibit_rules"] == shipped["inhibit_rules"]
    urls = webhook_urls(config)
    assert set(urls) == {r["name"] for r in shipped["receivers"]}
    assert all(len(u) == 1 and u[0].startswith(result["webhook"] + "/") for u in urls.values()), urls
    assert len({u[0] for u in urls.values()}) == len(urls)
    # Everything the demo started is gone: its exporter, Prometheus and webhook no longer answer.
    for url in (result["exporter"], result["prometheus"] + "/-/ready", result["webhook"]):
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
            urllib.request.urlopen(url, timeout=2)


def test_demo_webhook_prints_what_the_shipped_routing_delivers(tmp_path):
    """The demo's wiring without a cluster: an alert posted to an Alertmanager configured as the demo
    configures it reaches the webhook at the receivers the shipped routing names, printed as it arrives."""
    lines: list[str] = []
    hook = monitoring.Webhook(lambda path, payload: lines.extend(notification_lines(path, payload))).start()
    am = None
    try:
        config = alertmanager_config(hook.url)
        assert all(u.startswith(hook.url + "/") for us in webhook_urls(config).values() for u in us)
        am = monitoring.Alertmanager(tmp_path, config).start()
        now = datetime.now(timezone.utc)
        labels = {"alertname": "CephScaleOsdsDownLargeDrop", "severity": "critical", "signal": "degraded"}
        body = [
            {
                "labels": {**labels, "cluster": "demo"},
                "startsAt": now.isoformat(),
                "endsAt": (now + timedelta(hours=1)).isoformat(),
            }
        ]
        req = urllib.request.Request(
            f"{am.url}/api/v2/alerts", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.status == 200
        paths = monitoring.receiver_paths(config)
        # critical: paged at once (group_wait 10 s), the storage team after the root's 30 s
        expected = {paths["ceph-scale-pager"], paths["ceph-scale-storage"]}
        monitoring.wait_until(
            lambda: hook.paths("CephScaleOsdsDownLargeDrop", "firing") >= expected, 60, what="both notifications"
        )
        for receiver in ("ceph-scale-pager", "ceph-scale-storage"):
            assert f"  notified    {receiver}: firing CephScaleOsdsDownLargeDrop (cluster demo)" in lines
        assert {urllib.parse.urlsplit(hook.url).port} == {
            urllib.parse.urlsplit(u).port for us in webhook_urls(config).values() for u in us
        }
    finally:
        if am:
            am.stop()
        hook.stop()
