"""Shared pieces of every board: datasource and cluster variables, selectors, thresholds from the
study, runbook links, and one constructor per panel kind.

Every query filters on ``cluster=~"$cluster"`` (multi-cluster), every rate/increase uses
``$__rate_interval``, every panel has a unit and a link to its runbook section, and the study's
reference lines are drawn dashed: as Grafana thresholds, with an axis that reaches them, or as
series of the configured value (``ceph_scale_config``) in a fixed colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grafana_foundation_sdk.builders import bargauge, gauge, prometheus, stat, table, timeseries
from grafana_foundation_sdk.builders import common as cb
from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.models import common as cm
from grafana_foundation_sdk.models import dashboard as dm
from grafana_foundation_sdk.models import prometheus as pm

from exporter.core.config import Thresholds

from .queries import value_field

TAG = "ceph-scale"
UID_PREFIX = "ceph-scale-"
# Runbook sections live in rules/runbooks.md; the URL is a (hidden) dashboard constant so that a
# fork or an internal mirror only changes one value at import time.
RUNBOOK_BASE = "https://github.com/ceph-scale-signals/ceph-scale-signals/blob/main/rules/runbooks.md"
DS = dm.DataSourceRef(type_val="prometheus", uid="${datasource}")
C = 'cluster=~"$cluster"'

# Colours (Grafana's named palette).
OK, WARN, HIGH, CRIT, INFO = "green", "yellow", "orange", "red", "blue"

# Reference lines from docs/study.md, as Grafana threshold steps [(value, colour)]; the
# first step is the base (value None). A threshold's default is read from its one declaration
# (exporter/core/config.py); a panel draws the configured value as a series of its own.
_DEFAULT = Thresholds()
FILL = [
    (None, OK),
    (_DEFAULT.fill_warn_ratio, WARN),
    (_DEFAULT.fill_target_ratio, HIGH),
    (_DEFAULT.fill_critical_ratio, CRIT),
]
BASELINE = [(None, OK), (1.0, CRIT)]  # load / HDD baseline ratio 1 [004]
SHARD_FILL = [(None, OK), (_DEFAULT.rgw_shard_warn_ratio, WARN), (1.0, CRIT)]  # 1: the per-shard limit
HEADROOM = [(None, CRIT), (0.0, WARN), (0.1, OK)]  # headroom ratio: < 0 means the line was crossed
NONZERO_BAD = [(None, OK), (1, CRIT)]
HOTSPOT = [(None, OK), (_DEFAULT.osd_hotspot_ratio, CRIT)]


def sel(*matchers: str) -> str:
    """A label selector with the cluster matcher first: sel('kind="scrub"')."""
    return "{" + ", ".join((C, *matchers)) + "}"


def raw(name: str, *matchers: str) -> str:
    """The bare selector: for range functions, whose result the caller aggregates."""
    return name + sel(*matchers)


def m(name: str, *matchers: str) -> str:
    """One series per cluster and own labels, whichever producers export it: the sidecar and
    the mgr module (or two scrape jobs) may both, and a bare selector would draw it twice."""
    return f"max without (job, instance) ({raw(name, *matchers)})"


def rate(name: str, *matchers: str, fn: str = "rate") -> str:
    """A rate per exporting target; callers take `max by (cluster, <own labels>)` over producers."""
    return f"{fn}({raw(name, *matchers)}[$__rate_interval])"


def steps(spec) -> db.ThresholdsConfig:
    return (
        db.ThresholdsConfig().mode(dm.ThresholdsMode.ABSOLUTE).steps([dm.Threshold(value=v, color=c) for v, c in spec])
    )


class Q:
    """One query of a panel (refId given by the panel)."""

    def __init__(self, expr: str, legend: str = "", instant: bool = False, fmt: str = "time_series") -> None:
        self.expr, self.legend, self.instant, self.fmt = expr, legend, instant, fmt

    def builder(self, ref: str) -> prometheus.Dataquery:
        b = prometheus.Dataquery().expr(self.expr).ref_id(ref).datasource(DS)
        if self.legend:
            b = b.legend_format(self.legend)
        b = b.instant() if self.instant else b.range()
        if self.fmt != "time_series":
            b = b.format(pm.PromQueryFormat(self.fmt))
        return b


def _refs(n: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(n)]


def runbook_link(anchor: str) -> db.DashboardLink:
    return db.DashboardLink("Runbook: " + anchor).url("${runbook_base}#" + anchor).target_blank(True)


def _common(panel, title: str, desc: str, unit: str, queries: list[Q], runbook: str, w: int, h: int):
    panel = panel.title(title).description(desc).unit(unit).datasource(DS).span(w).height(h)
    panel = panel.links([runbook_link(runbook)])
    return panel.targets([q.builder(r) for q, r in zip(queries, _refs(len(queries)))])


def dashed(regexp: str, color: str = CRIT) -> db.DashboardFieldConfigSourceOverrides:
    """Series whose display name matches `regexp` drawn as a dashed reference line in a fixed
    colour: red for a limit (the default), "text" (grey) for a comparison such as a mean."""
    props = [dm.DynamicConfigValue("custom.lineStyle", {"fill": "dash", "dash": [10, 10]})]
    props.append(dm.DynamicConfigValue("custom.fillOpacity", 0))
    props.append(dm.DynamicConfigValue("color", {"mode": "fixed", "fixedColor": color}))
    return db.DashboardFieldConfigSourceOverrides().matcher(dm.MatcherConfig("byRegexp", regexp)).properties(props)


def right_axis(regexp: str, unit: str, label: str) -> db.DashboardFieldConfigSourceOverrides:
    """Series matching `regexp` on a right-hand axis with its own unit."""
    return (
        db.DashboardFieldConfigSourceOverrides()
        .matcher(dm.MatcherConfig("byRegexp", regexp))
        .properties(
            [
                dm.DynamicConfigValue("custom.axisPlacement", "right"),
                dm.DynamicConfigValue("unit", unit),
                dm.DynamicConfigValue("custom.axisLabel", label),
            ]
        )
    )


def ts(
    title: str,
    unit: str,
    queries: list[Q],
    *,
    desc: str,
    runbook: str,
    thresholds=None,
    w: int = 12,
    h: int = 8,
    min_val: float | None = None,
    max_val: float | None = None,
    log: int | None = None,
    overrides: Sequence[Any] = (),
    axis_label: str = "",
    bars: bool = False,
    soft_max: float | None = None,
) -> timeseries.Panel:
    p = _common(timeseries.Panel(), title, desc, unit, queries, runbook, w, h)
    p = p.line_width(1).fill_opacity(10).show_points(cm.VisibilityMode.NEVER).span_nulls(False)
    p = p.legend(
        cb.VizLegendOptions()
        .display_mode(cm.LegendDisplayMode.TABLE)
        .placement(cm.LegendPlacement.BOTTOM)
        .show_legend(True)
        .calcs(["lastNotNull", "max"])
    )
    p = p.tooltip(cb.VizTooltipOptions().mode(cm.TooltipDisplayMode.MULTI).sort(cm.SortOrder.DESCENDING))
    if axis_label:
        p = p.axis_label(axis_label)
    if bars:
        p = p.draw_style(cm.GraphDrawStyle.BARS).fill_opacity(80)
    if thresholds:
        # Always dashed: a solid threshold line in a step colour reads as one more series.
        p = p.thresholds(steps(thresholds)).thresholds_style(
            cb.GraphThresholdsStyleConfig().mode(cm.GraphTresholdsStyleMode.DASHED)
        )
    else:
        p = p.thresholds(steps([(None, OK)])).thresholds_style(
            cb.GraphThresholdsStyleConfig().mode(cm.GraphTresholdsStyleMode.OFF)
        )
    if min_val is not None:
        p = p.min(min_val)
    if max_val is not None:
        p = p.max(max_val)
    if soft_max is not None:
        # The axis reaches at least this far, so the reference lines show on a healthy cluster too.
        p = p.axis_soft_max(soft_max)
    if log:
        p = p.scale_distribution(cb.ScaleDistributionConfig().type(cm.ScaleDistribution.LOG).log(log))
    if overrides:
        p = p.overrides(list(overrides))
    return p


def st(
    title: str,
    unit: str,
    queries: list[Q],
    *,
    desc: str,
    runbook: str,
    thresholds=((None, INFO),),
    w: int = 4,
    h: int = 5,
    no_value: str = "",
    graph: bool = True,
    decimals: float | None = None,
    mapped: dict[float, str] | None = None,
) -> stat.Panel:
    p = _common(stat.Panel(), title, desc, unit, queries, runbook, w, h)
    p = (
        p.thresholds(steps(thresholds))
        .color_mode(cm.BigValueColorMode.VALUE)
        .graph_mode(cm.BigValueGraphMode.AREA if graph else cm.BigValueGraphMode.NONE)
        .text_mode(cm.BigValueTextMode.VALUE_AND_NAME)
        .reduce_options(cb.ReduceDataOptions().calcs(["lastNotNull"]).values(False))
    )
    if no_value:
        p = p.no_value(no_value)
    if decimals is not None:
        p = p.decimals(decimals)
    if mapped:
        options = {
            f"{v:g}": dm.ValueMappingResult(text=text, color=INFO, index=i)
            for i, (v, text) in enumerate(mapped.items())
        }
        p = p.mappings([dm.ValueMap(options=options)])
    return p


def gg(
    title: str, unit: str, queries: list[Q], *, desc: str, runbook: str, thresholds, w: int = 4, h: int = 5,
    min_val: float = 0, max_val: float = 1,
) -> gauge.Panel:  # fmt: skip
    p = _common(gauge.Panel(), title, desc, unit, queries, runbook, w, h)
    return (
        p.thresholds(steps(thresholds))
        .min(min_val)
        .max(max_val)
        .show_threshold_markers(True)
        .show_threshold_labels(False)
        .reduce_options(cb.ReduceDataOptions().calcs(["lastNotNull"]).values(False))
    )


def bars(
    title: str, unit: str, queries: list[Q], *, desc: str, runbook: str, thresholds, w: int = 8, h: int = 8,
    min_val: float | None = 0, max_val: float | None = None,
) -> bargauge.Panel:  # fmt: skip
    p = _common(bargauge.Panel(), title, desc, unit, queries, runbook, w, h)
    # A time until a limit is worst at 0, where a bar is empty: no grey unfilled track that
    # reads as "no data", and the value in its threshold colour says it.
    time_until = unit in ("s", "dtdurations")
    p = (
        p.thresholds(steps(thresholds))
        .display_mode(cm.BarGaugeDisplayMode.GRADIENT)
        .orientation(cm.VizOrientation.HORIZONTAL)
        .show_unfilled(not time_until)
        .value_mode(cm.BarGaugeValueMode.COLOR)
        .reduce_options(cb.ReduceDataOptions().calcs(["lastNotNull"]).values(False))
    )
    if min_val is not None:
        p = p.min(min_val)
    if max_val is not None:
        p = p.max(max_val)
    return p


def tbl(
    title: str,
    unit: str,
    queries: list[Q],
    *,
    desc: str,
    runbook: str,
    columns: dict[str, tuple[str, str]],
    keep: list[str],
    sort_by: str,
    w: int = 12,
    h: int = 8,
    thresholds=((None, OK),),
) -> table.Panel:
    """A table joining instant queries on their labels.

    columns: {refId: (column title, unit)}; keep: the label columns shown, in order; sort_by:
    the column sorted descending.
    """
    p = _common(table.Panel(), title, desc, unit, queries, runbook, w, h)
    rename = {value_field(ref, len(queries)): name for ref, (name, _unit) in columns.items()}
    order = {name: i for i, name in enumerate(keep + [n for n, _u in columns.values()])}
    p = p.with_transformation(dm.DataTransformerConfig(id_val="merge", options={}))
    p = p.with_transformation(
        dm.DataTransformerConfig(
            id_val="organize",
            options={
                "excludeByName": {"Time": True, "__name__": True},
                "renameByName": rename,
                "indexByName": order,
                "includeByName": {k: True for k in keep + list(rename)},
            },
        )
    )
    p = p.thresholds(steps(thresholds)).sort_by([cb.TableSortByFieldState().display_name(sort_by).desc(True)])
    for _ref, (name, col_unit) in columns.items():
        p = p.override_by_name(name, [dm.DynamicConfigValue("unit", col_unit)])
    return p.cell_height(cm.TableCellHeight.SM)


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
    plunge signal, core/signals/plunge.py), on the given panels only."""

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
    panels, laid out by the SDK's grid placement. Panel ids are given in order (1, 2, ...).
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
    for i, p in enumerate(panels, start=1):
        p = p.id(i)
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
