"""Every panel query of every board returns data from a real Prometheus that scraped the real
exporter on the real test cluster while the study's conditions happened (spillover on osd.0,
a 64 KB S3 load, a bucket resharded, scrubs blocked until PGs were overdue, then released)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards.queries import all_queries
from dashboards.scenario import rule_files

pytestmark = pytest.mark.cluster


def test_every_panel_query_returns_data(dashboard_run):
    prom, start, end = dashboard_run["prometheus"], dashboard_run["start"], dashboard_run["end"]
    empty, checked = [], 0
    for q in all_queries():
        expr = q.resolved()
        if q.instant:
            result = prom.query(expr, at=end)
        else:
            result = prom.query_range(expr, start, end, 5)
            result = [r for r in result if r["values"]]
        checked += 1
        if not result:
            empty.append(f"{q.name}: {expr}")
    assert checked > 90
    assert not empty, "panels with no data:\n" + "\n".join(empty)


def test_the_run_loaded_the_rules_and_made_the_conditions(dashboard_run):
    prom = dashboard_run["prometheus"]
    assert any(f.name == "recording.yml" for f in rule_files())
    assert prom.query("ceph_scale_bluefs_spillover_osds > 0")
    assert prom.query("max_over_time(ceph_scale_pg_scrub_overdue[10m]) > 0")
    assert prom.query("increase(ceph_scale_rgw_reshard_events_total[10m]) > 0")
    assert prom.query('max_over_time(ceph_scale_s3_ops_per_second{op="put"}[10m]) > 0')


def test_previews_render_every_panel_from_the_real_run(previews):
    assert len(previews) == 6
    for path, missing in previews.items():
        assert not missing, f"{path}: no data in {missing}"
        assert Path(path).stat().st_size < 300_000, path
