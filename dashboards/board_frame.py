"""What every board has around its panels: the datasource, cluster and runbook variables (and the
osd variable of the boards with per-OSD panels), the links to the other boards and to the
runbooks, the reshard and plunge annotations, and the settings (uid, tags, time range, refresh);
new_board puts a board's rows and signals' panels in it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.models import dashboard as dm

from ceph_scale.core.panel_queries import C, m, rate
from ceph_scale.core.panel_spec import Panel

from .common import DS, RUNBOOK_BASE
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
        .datasource(dm.DataSourceRef(type_val="prometheus", uid="${datasource}"))
        .query(f"label_values({metric}{{{C}}}, ceph_daemon)")
        .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(dm.VariableSort.NUMERICAL_ASC)
        .multi(True)
        .include_all(False)
    )


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


def reshard_annotation(panel_ids: list[int]) -> db.AnnotationQuery:
    """Completed reshards as annotations, on the given panels only."""
    return (
        db.AnnotationQuery()
        .name("Reshards")
        .datasource(DS)
        .enable(True)
        .icon_color("orange")
        .expr(f"max by (cluster) ({rate('ceph_scale_rgw_reshard_events_total', fn='increase')}) > 0")
        .filter(db.AnnotationPanelFilter().ids(panel_ids))
    )


class PrometheusAnnotation(dm.AnnotationQuery):
    """Grafana's Prometheus annotation fields the SDK's model leaves out: the title, text and tags
    made from each series' labels."""

    def __init__(self, title_format: str, text_format: str, tag_keys: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.title_format, self.text_format, self.tag_keys = title_format, text_format, tag_keys

    def to_json(self) -> dict[str, object]:
        payload = super().to_json()
        payload.update(titleFormat=self.title_format, textFormat=self.text_format, tagKeys=self.tag_keys)
        payload["useValueForTime"] = False
        return payload


class PlungeAnnotation(cogbuilder.Builder[dm.AnnotationQuery]):
    """S3 throughput plunges, a region each, titled with the likely cause and its evidence (the
    plunge signal, core/signals/plunge/derive.py), on the given panels only."""

    def __init__(self, panel_ids: list[int]) -> None:
        self.panel_ids = panel_ids

    def build(self) -> PrometheusAnnotation:
        return PrometheusAnnotation(
            "S3 plunge, likely cause: {{cause}}",
            "{{evidence}} (cluster {{cluster}})",
            "cause",
            name="Plunges",
            datasource=DS,
            enable=True,
            icon_color="red",
            expr=f"max by (cluster, cause, evidence) ({m('ceph_scale_s3_plunge_info')})",
            filter_val=db.AnnotationPanelFilter().ids(self.panel_ids).build(),
        )


def new_board(
    name: str,
    title: str,
    description: str,
    panels: list,
    extra_vars: Sequence[Any] = (),
    reshards_on=(),
    time_from: str = "now-6h",
    plunges_on=(),
):
    """A dashboard with the shared variables, links and settings; `panels` mixes rows (db.Row) and
    the signals' panels (Panel, from ceph_scale/core/signals/<name>/panels.py), laid out by the
    SDK's grid placement. Panel ids are given in order (1, 2, ...).
    reshards_on: titles of the panels that show completed reshards as annotations; plunges_on:
    of those that show S3 throughput plunges with their likely cause.
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
    annotated: list[int] = []
    plunged: list[int] = []
    for i, item in enumerate(panels, start=1):
        p = (build(item) if isinstance(item, Panel) else item).id(i)
        d = d.with_row(p) if isinstance(p, db.Row) else d.with_panel(p)
        if p.build().title in reshards_on:
            annotated.append(i)
        if p.build().title in plunges_on:
            plunged.append(i)
    if len(annotated) != len(reshards_on):
        raise ValueError(f"{name}: reshard annotations for {reshards_on}, panels found {annotated}")
    if len(plunged) != len(plunges_on):
        raise ValueError(f"{name}: plunge annotations for {plunges_on}, panels found {plunged}")
    if annotated:
        d = d.annotation(reshard_annotation(annotated))
    if plunged:
        d = d.annotation(PlungeAnnotation(plunged))
    return d
