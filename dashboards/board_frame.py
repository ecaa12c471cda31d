"""What every board has around its panels: the datasource, cluster and runbook variables (and the
variables of the boards whose panels a pick narrows: osd, pool, rgw, tenant and user), the links to
the other boards and to the runbooks, the annotations (dashboards/annotations.py) and the settings
(uid, tags, time range, refresh); new_board puts a board's rows and signals' panels in it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.models import dashboard as dm

from ceph_scale.core.panel_queries import C
from ceph_scale.core.panel_spec import BoardRow, Panel

from .annotations import MARKS, Annotation
from .common import DS, RUNBOOK_BASE, signal_panels
from .panel_kinds import build

TAG = "ceph-scale"
UID_PREFIX = "ceph-scale-"


def variables(extra: Sequence[Any] = ()) -> list:
    ds = db.DatasourceVariable("datasource").label("Data source").type("prometheus")
    cluster = (
        db.QueryVariable("cluster")
        .label("Cluster")
        .datasource(DS)
        .query("label_values(ceph_scale_build_info, cluster)")
        .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(dm.VariableSort.ALPHABETICAL_ASC)
        .multi(True)
        .include_all(True)
        .all_value(".*")
        .current(dm.VariableOption(selected=True, text=["All"], value=["$__all"]))
    )
    runbooks = (
        db.ConstantVariable("runbook_base")
        .label("Runbooks")
        .value(RUNBOOK_BASE)
        .description("Where rules/runbooks.md is published; panel links append #section.")
    )
    return [ds, cluster, *extra, runbooks]


def osd_variable(metric: str) -> db.QueryVariable:
    """The OSDs to draw, in numeric order (osd.2 before osd.10), several at once if picked.

    No All option, as ceph-mixin's OSD board and node_exporter's boards do: with All offered
    and no saved selection Grafana selects All, about 950 lines at 318 OSDs. Without it Grafana
    selects the first OSD; the top-K panels, which this variable does not narrow, name the OSDs
    worth picking."""
    return (
        db.QueryVariable("osd")
        .label("OSD")
        .datasource(DS)
        .query(f"label_values({metric}{{{C}}}, ceph_daemon)")
        .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(dm.VariableSort.NUMERICAL_ASC)
        .multi(True)
        .include_all(False)
    )


def label_variable(name: str, label: str, metric: str, by: str, description: str) -> db.QueryVariable:
    """A pick among the values of `by` on `metric`, several at once, All by default (its value
    ".*" also matches an empty label, RGW's tenant of none): the panels whose series carry the
    label draw the picked ones; the others, sums over all of them, are not narrowed."""
    return (
        db.QueryVariable(name)
        .label(label)
        .description(description)
        .datasource(DS)
        .query(f"label_values({metric}{{{C}}}, {by})")
        .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(dm.VariableSort.ALPHABETICAL_ASC)
        .multi(True)
        .include_all(True)
        .all_value(".*")
        .current(dm.VariableOption(selected=True, text=["All"], value=["$__all"]))
    )


def pool_variable() -> db.QueryVariable:
    return label_variable(
        "pool", "Pool", "ceph_scale_pool_used_ratio", "name",
        "The pools drawn by the per-pool panels (pool name, as ceph-mixin's pool board picks them).",
    )  # fmt: skip


def rgw_variable() -> db.QueryVariable:
    return label_variable(
        "rgw", "RGW", "ceph_scale_rgw_s3_ops_total", "instance_id",
        "The RGW daemons drawn by the per-RGW panels; the cluster's sums are of every RGW.",
    )  # fmt: skip


def owner_variables() -> list[db.QueryVariable]:
    """The bucket owner (tenant and user) the bucket tables are narrowed to: a click on a row of
    the tenants table sets both (its data link)."""
    return [
        label_variable(
            "tenant", "Tenant", "ceph_scale_rgw_tenant_bytes", "tenant",
            "RGW tenant of the bucket owner the bucket tables show (empty: the owner has no tenant).",
        ),
        label_variable(
            "user", "Owner", "ceph_scale_rgw_tenant_bytes", "user",
            "Bucket owner (user id) the bucket tables show; a tenant's row in the tenants table links here.",
        ),
    ]  # fmt: skip


def board_links() -> list[cogbuilder.Builder[dm.DashboardLink]]:
    return [
        db.DashboardLink("Ceph scale boards")
        .type(dm.DashboardLinkType.DASHBOARDS)
        .tags([TAG])
        .as_dropdown(True)
        .include_vars(True)
        .keep_time(True)
        .tooltip("The other ceph-scale-signals boards, same cluster and time range"),
        db.DashboardLink("Runbooks")
        .type(dm.DashboardLinkType.LINK)
        .url("${runbook_base}")
        .icon("doc")
        .target_blank(True)
        .tooltip("rules/runbooks.md"),
    ]


def all_folder_rows() -> list[BoardRow]:
    """The rows the signals' own panels.py add to boards (their `ROWS`), in registry order."""
    rows: list[BoardRow] = []
    for _, panels in signal_panels():
        rows += getattr(panels, "ROWS", ())
    return rows


def folder_rows(board: str) -> list[BoardRow]:
    return [r for r in all_folder_rows() if r.board == board]


def new_board(
    name: str,
    title: str,
    description: str,
    panels: list,
    extra_vars: Sequence[Any] = (),
    marks: Mapping[str, Sequence[str]] | None = None,
    time_from: str = "now-6h",
):
    """A dashboard with the shared variables, links and settings; `panels` mixes rows (db.Row) and
    the signals' panels (Panel, from ceph_scale/core/signals/<name>/panels.py), laid out by the
    SDK's grid placement. Panel ids are given in order (1, 2, ...).
    marks: {mark (a key of dashboards/annotations.py MARKS): titles of the panels it is drawn on}.
    time_from: the default range, as long as the board's signals take to play out (fill and
    scrub backlogs move over days, ops over minutes)."""
    d = (
        db.Dashboard(title)
        .uid(UID_PREFIX + name)
        .description(description)
        .tags([TAG, name])
        .editable()
        .timezone("browser")
        .time(time_from, "now")
        .refresh("30s")
        .tooltip(dm.DashboardCursorSync.CROSSHAIR)
        .variables(variables(extra_vars))
        .links(board_links())
    )
    ids: dict[str, int] = {}
    for row in folder_rows(name):
        panels = [*panels, db.Row(row.title), *row.panels]
    for i, item in enumerate(panels, start=1):
        p = (build(item) if isinstance(item, Panel) else item).id(i)
        d = d.with_row(p) if isinstance(p, db.Row) else d.with_panel(p)
        ids[p.build().title] = i
    for mark, titles in (marks or {}).items():
        if mark not in MARKS:
            raise ValueError(f"{name}: no annotation {mark!r} (one of {', '.join(MARKS)})")
        unknown = [t for t in titles if t not in ids]
        if unknown:
            raise ValueError(f"{name}: {mark} annotations for panels the board does not have: {unknown}")
        d = d.annotation(Annotation(MARKS[mark], [ids[t] for t in titles]))
    return d
