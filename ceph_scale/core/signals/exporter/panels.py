"""The exporter's own panels: its sources failing, and the project's alerts now."""

from __future__ import annotations

from ...panel_queries import CL, C, m
from ...panel_spec import CRIT, OK, Panel, Query, runbook, tbl, ts

ALERT_PREFIX = "CephScale"


def sources_failing() -> Panel:
    return ts(
        "Exporter sources failing",
        "none",
        [Query(f"max by (cluster, source) (1 - {m('ceph_scale_source_success')})", f"{CL} {{{{source}}}}")],
        desc="1 while a source fails: its signals then age and disappear; never taken for a healthy 0.",
        runbook=runbook("CephScaleSourceFailing"),
        thresholds=[(None, OK), (1, CRIT)],
        min_val=0,
        max_val=1,
    )


def active_alerts() -> Panel:
    return tbl(
        "Active ceph-scale alerts (firing and pending)",
        "none",
        [Query(f'ALERTS{{alertname=~"{ALERT_PREFIX}.*", {C}}}', instant=True, fmt="table")],
        desc="The project's alerts now, from Prometheus' ALERTS series. Each alert's runbook_url "
        "annotation points to its runbook section.",
        # The runbooks' index: one section per alert.
        runbook="runbooks-for-the-ceph-scale-signals-alerts",
        columns={"A": ("active", "none")},
        keep=["cluster", "alertname", "severity", "alertstate", "ceph_daemon", "kind", "op", "bucket"],
        sort_by="severity",
        w=24,
    )
