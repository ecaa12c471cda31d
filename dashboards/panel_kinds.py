"""One constructor per panel kind (time series, stat, gauge, bar gauge, table), each with a
unit, its queries and a link to its runbook section, and the overrides the boards draw reference
lines and second axes with; `build` makes a signal's panel (ceph_scale/core/panel_spec.py Panel)
with the constructor of its kind.

The study's reference lines are drawn dashed: as Grafana thresholds, with an axis that reaches
them, or as series of the configured value (``ceph_scale_config``) in a fixed colour.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from grafana_foundation_sdk.builders import bargauge, gauge, stat, table, timeseries
from grafana_foundation_sdk.builders import common as cb
from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.models import common as cm
from grafana_foundation_sdk.models import dashboard as dm

from ceph_scale.core.panel_spec import CRIT, INFO, OK, Override, Panel, Query

from .common import DS, dataquery
from .queries import value_field


def steps(spec) -> db.ThresholdsConfig:
    return (
        db.ThresholdsConfig().mode(dm.ThresholdsMode.ABSOLUTE).steps([dm.Threshold(value=v, color=c) for v, c in spec])
    )


def _refs(n: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(n)]


def runbook_link(anchor: str) -> db.DashboardLink:
    return db.DashboardLink("Runbook: " + anchor).url("${runbook_base}#" + anchor).target_blank(True)


def _common(panel, title: str, desc: str, unit: str, queries: list[Query], runbook: str, w: int, h: int):
    panel = panel.title(title).description(desc).unit(unit).datasource(DS).span(w).height(h)
    panel = panel.links([runbook_link(runbook)])
    return panel.targets([dataquery(q, r) for q, r in zip(queries, _refs(len(queries)))])


def dashed(regexp: str, color: str = CRIT) -> db.DashboardFieldConfigSourceOverrides:
    """Series whose display name matches `regexp` drawn as a dashed reference line in a fixed
    colour: red for a limit (the default), "text" (grey) for a comparison such as a mean."""
    props = [dm.DynamicConfigValue("custom.lineStyle", {"fill": "dash", "dash": [10, 10]})]
    props.append(dm.DynamicConfigValue("custom.fillOpacity", 0))
    props.append(dm.DynamicConfigValue("color", {"mode": "fixed", "fixedColor": color}))
    return db.DashboardFieldConfigSourceOverrides().matcher(dm.MatcherConfig("byRegexp", regexp)).properties(props)


def fixed_colour(regexp: str, color: str) -> db.DashboardFieldConfigSourceOverrides:
    """Series whose display name matches `regexp` in a fixed colour, where the palette's would repeat."""
    props = [dm.DynamicConfigValue("color", {"mode": "fixed", "fixedColor": color})]
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
    queries: list[Query],
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
    queries: list[Query],
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
    title: str, unit: str, queries: list[Query], *, desc: str, runbook: str, thresholds, w: int = 4, h: int = 5,
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
    title: str, unit: str, queries: list[Query], *, desc: str, runbook: str, thresholds, w: int = 8, h: int = 8,
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
    queries: list[Query],
    *,
    desc: str,
    runbook: str,
    columns: dict[str, tuple[str, str]],
    keep: list[str],
    sort_by: str,
    w: int = 12,
    h: int = 8,
    thresholds=((None, OK),),
    row_links: Mapping[str, tuple[str, str]] | None = None,
) -> table.Panel:
    """A table joining instant queries on their labels.

    columns: {refId: (column title, unit)}; keep: the label columns shown, in order; sort_by:
    the column sorted descending; row_links: {column: (title, url)}, a data link on that column's
    cells (its url may use ${__data.fields.<column>} of the clicked row).
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
    for column, (link_title, url) in (row_links or {}).items():
        if column not in keep:
            raise ValueError(f"{title}: a link on {column!r}, not a column shown ({', '.join(keep)})")
        p = p.override_by_name(column, [dm.DynamicConfigValue("links", [{"title": link_title, "url": url}])])
    return p.cell_height(cm.TableCellHeight.SM)


KINDS: dict[str, Callable[..., Any]] = {"timeseries": ts, "stat": st, "gauge": gg, "bargauge": bars, "table": tbl}


def _override(title: str, o: Override) -> db.DashboardFieldConfigSourceOverrides:
    if o.kind == "dashed":
        return dashed(o.regexp, *o.args)
    if o.kind == "right_axis":
        return right_axis(o.regexp, *o.args)
    if o.kind == "coloured":
        return fixed_colour(o.regexp, *o.args)
    raise ValueError(f"{title}: not an override of a time series (dashed, right_axis, coloured): {o.kind}")


def build(panel: Panel):
    """The Grafana panel of a signal's panel, by the constructor of its kind."""
    if panel.kind not in KINDS:
        raise ValueError(f"{panel.title}: no panel kind {panel.kind!r} (one of {', '.join(KINDS)})")
    options = dict(panel.options)
    if panel.kind == "timeseries" and panel.overrides:
        options["overrides"] = [_override(panel.title, o) for o in panel.overrides]
    try:
        built = KINDS[panel.kind](
            panel.title, panel.unit, list(panel.queries), desc=panel.desc, runbook=panel.runbook, **options
        )
    except TypeError as exc:  # a setting the kind does not take
        raise ValueError(f"{panel.title}: {exc}") from None
    if panel.kind != "timeseries":
        for o in panel.overrides:
            if o.kind != "coloured":
                raise ValueError(f"{panel.title}: a {panel.kind} takes colour overrides only, not {o.kind}")
            colour = dm.DynamicConfigValue("color", {"mode": "fixed", "fixedColor": o.args[0]})
            built = built.override_by_regexp(o.regexp, [colour])
    return built
