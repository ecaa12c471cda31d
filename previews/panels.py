"""One Grafana panel drawn into a matplotlib figure from a Prometheus' answers: time series, stat,
gauge, bar gauge and table, each as close to Grafana's look as the previews need."""

from __future__ import annotations

import math
import re
from datetime import datetime

from dashboards.queries import DEFAULTS, substitute, value_field

from .prom import Prom
from .style import (
    GRID,
    LEGEND_ROW_PX,
    MUTED,
    PALETTE,
    PANEL_BG,
    TEXT,
    color,
    fmt,
    legend,
    legend_rows,
    sample_value,
    threshold_color,
)


class Panels:
    """Draws the panels of one board over [start, end]. A panel with no data or an error is drawn
    as Grafana draws it and its title is kept in `missing`: each one fails the command and the
    tests."""

    def __init__(self, prom: Prom, start: float, end: float, values: dict[str, str]) -> None:
        self.prom, self.start, self.end = prom, start, end
        self.step = max(2.0, round((end - start) / 240))
        self.values = {**DEFAULTS, **values}
        self.missing: list[str] = []
        # {panel id: [(start, end, colour, title)]}: the board's annotation regions.
        self.marks: dict[int, list[tuple[float, float, str, str]]] = {}

    def expr(self, t: dict) -> str:
        return substitute(t["expr"], self.values)

    def draw(self, fig, p: dict, inner: list[float], fig_h_px: float) -> None:
        """Panel `p` inside `inner` ([left, bottom, width, height], figure fractions)."""
        getattr(self, "_" + p["type"])(fig, p, inner, fig_h_px)

    def _no_data(self, fig, p, inner, text: str = "No data") -> None:
        self.missing.append(p["title"])
        fig.text(inner[0] + inner[2] / 2, inner[1] + inner[3] / 2, text, color=MUTED, ha="center", va="center",
                 fontsize=11)  # fmt: skip

    def _instant(self, p) -> list[tuple[str, float, dict, dict]]:
        """[(label, value, labels, target)] of every target at the end time."""
        rows = []
        for t in p.get("targets", []):
            res = self.prom.instant(self.expr(t), self.end)
            if t.get("format") == "heatmap":
                res = sorted(res, key=lambda r: sample_value(r["metric"].get("le", "inf")))
                prev = 0.0
                for r in res:
                    v = sample_value(r["value"][1])
                    rows.append((legend(t.get("legendFormat", ""), r["metric"]), v - prev, r["metric"], t))
                    prev = v
                continue
            for r in res:
                name = legend(t.get("legendFormat", ""), r["metric"])
                rows.append((name, sample_value(r["value"][1]), r["metric"], t))
        return rows

    def _unit(self, p) -> str:
        return p.get("fieldConfig", {}).get("defaults", {}).get("unit", "none")

    def _steps(self, p) -> list[dict]:
        return p.get("fieldConfig", {}).get("defaults", {}).get("thresholds", {}).get("steps", [])

    # -- panel types

    def _timeseries(self, fig, p, inner, fig_h_px) -> None:
        from matplotlib import dates as mdates
        from matplotlib.ticker import FuncFormatter, NullFormatter

        d = p["fieldConfig"]["defaults"]
        custom = d.get("custom", {})
        unit = d.get("unit", "none")
        results = [(t, self.prom.range(self.expr(t), self.start, self.end, self.step)) for t in p.get("targets", [])]
        n_series = sum(len(res) for _t, res in results)
        row = LEGEND_ROW_PX / fig_h_px
        legend_px, legend_fits = legend_rows(inner[3] * fig_h_px, n_series)
        legend_h = legend_px / fig_h_px
        ticks = 14 / fig_h_px  # room for the time axis labels
        right = 0.04 if any(o["properties"] and any(pp["id"] == "custom.axisPlacement" for pp in o["properties"])
                            for o in p["fieldConfig"].get("overrides", [])) else 0.005  # fmt: skip
        ax = fig.add_axes(
            [
                inner[0] + 0.045,
                inner[1] + legend_h + ticks,
                inner[2] - 0.045 - right,
                inner[3] - legend_h - ticks - 0.004,
            ]
        )
        ax.set_facecolor(PANEL_BG)
        overrides = p["fieldConfig"].get("overrides", [])
        ax2 = None
        lines = []
        i = 0
        for t, res in results:
            for r in res:
                name = legend(t.get("legendFormat", ""), r["metric"])
                xs, ys = [], []
                for ts_, v in r["values"]:
                    val = sample_value(v)
                    xs.append(datetime.fromtimestamp(float(ts_)))
                    ys.append(val if math.isfinite(val) else float("nan"))
                props = {}
                for o in overrides:
                    mt = o["matcher"]
                    if mt["id"] == "byRegexp" and re.fullmatch(mt["options"], name):
                        props.update({pp["id"]: pp["value"] for pp in o["properties"]})
                c = color(props.get("color", {}).get("fixedColor")) if "color" in props else PALETTE[i % len(PALETTE)]
                style = "--" if props.get("custom.lineStyle", {}).get("fill") == "dash" else "-"
                target_ax = ax
                if props.get("custom.axisPlacement") == "right":
                    if ax2 is None:
                        ax2 = ax.twinx()
                        u2 = props.get("unit", unit)
                        ax2.yaxis.set_major_formatter(FuncFormatter(lambda v, _p, u=u2: fmt(v, u)))
                        ax2.tick_params(colors=MUTED, labelsize=7)
                    target_ax = ax2
                (ln,) = target_ax.plot(xs, ys, style, color=c, linewidth=1.3, label=name)
                lines.append((ln, name, [y for y in ys if not math.isnan(y)]))
                i += 1
        if not lines:
            ax.set_axis_off()
            self._no_data(fig, p, inner)
            return
        scale = custom.get("scaleDistribution", {})
        soft = custom.get("axisSoftMax")
        if scale.get("type") == "log":
            ax.set_yscale("log", base=scale.get("log", 10))
            if soft is not None and ax.get_ylim()[1] < soft:
                ax.set_ylim(top=soft * 1.5)
        else:
            lo, hi = d.get("min"), d.get("max")
            if lo is not None:
                ax.set_ylim(bottom=lo)
            if hi is not None:
                ax.set_ylim(top=hi)
            elif soft is not None and ax.get_ylim()[1] < soft:
                ax.set_ylim(top=soft * 1.05)
        # Like Grafana, threshold lines do not widen the axis: one above the data is not drawn.
        mode = custom.get("thresholdsStyle", {}).get("mode", "off")
        if mode != "off":
            bottom, top = ax.get_ylim()
            for s in d.get("thresholds", {}).get("steps", [])[1:]:
                if bottom <= s["value"] <= top:
                    ax.axhline(s["value"], color=color(s["color"]), linestyle="--" if mode == "dashed" else "-",
                               linewidth=1.0, alpha=0.9)  # fmt: skip
            ax.set_ylim(bottom, top)
        for t0, t1, c, title in self.marks.get(p["id"], []):
            ax.axvline(datetime.fromtimestamp(t0), color=color(c), linewidth=1.2, alpha=0.8, linestyle=":")
            if title:  # a region with its title, as Grafana shows it on hover
                ax.axvspan(datetime.fromtimestamp(t0), datetime.fromtimestamp(max(t1, t0 + self.step)),
                           color=color(c), alpha=0.15, linewidth=0)  # fmt: skip
                ax.text(datetime.fromtimestamp(t0), ax.get_ylim()[1], " " + title, color=color(c), fontsize=7,
                        va="top", ha="left", clip_on=True)  # fmt: skip
        if scale.get("type") == "log" or unit != "none":
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: fmt(v, unit)))
        if scale.get("type") == "log":
            # Within one decade only minor ticks exist: label them in the unit; else leave them bare.
            lo_y, hi_y = ax.get_ylim()
            one_decade = lo_y > 0 and hi_y / lo_y < 10
            ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _p: fmt(v, unit)) if one_decade else NullFormatter())
        ax.set_xlim(datetime.fromtimestamp(self.start), datetime.fromtimestamp(self.end))
        ax.xaxis.set_major_locator(mdates.AutoDateLocator(minticks=4, maxticks=8))
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M" if self.end - self.start > 1800 else "%H:%M:%S"))
        ax.tick_params(colors=MUTED, labelsize=7)
        ax.grid(color=GRID, linewidth=0.6)
        for s in ax.spines.values():
            s.set_color(GRID)
        # Legend as a small table: name, last, max.
        shown = lines[:legend_fits]
        y0 = inner[1] + legend_h - 0.3 * row
        fs = 7
        fig.text(inner[0] + inner[2] * 0.70, y0, "last", color=MUTED, fontsize=fs, ha="right", va="top")
        fig.text(inner[0] + inner[2] * 0.86, y0, "max", color=MUTED, fontsize=fs, ha="right", va="top")
        for k, (ln, name, vals) in enumerate(shown):
            yy = y0 - (k + 1) * row
            u = unit
            for o in overrides:
                mt = o["matcher"]
                if mt["id"] == "byRegexp" and re.fullmatch(mt["options"], name):
                    u = {pp["id"]: pp["value"] for pp in o["properties"]}.get("unit", u)
            dashed_ln = ln.get_linestyle() == "--"  # a reference line: dashed in the legend too
            fig.text(inner[0], yy, "- -" if dashed_ln else "▬", color=ln.get_color(), fontsize=fs, va="top",
                     weight="bold" if dashed_ln else "normal")  # fmt: skip
            fig.text(inner[0] + 0.012, yy, name[:70], color=TEXT, fontsize=fs, va="top")
            fig.text(inner[0] + inner[2] * 0.70, yy, fmt(vals[-1], u) if vals else "–", color=TEXT, fontsize=fs,
                     ha="right", va="top")  # fmt: skip
            fig.text(inner[0] + inner[2] * 0.86, yy, fmt(max(vals), u) if vals else "–", color=TEXT, fontsize=fs,
                     ha="right", va="top")  # fmt: skip
        if len(lines) > len(shown):
            fig.text(inner[0] + inner[2], y0, f"+{len(lines) - len(shown)} more", color=MUTED, fontsize=fs,
                     ha="right", va="top")  # fmt: skip

    def _stat(self, fig, p, inner, fig_h_px) -> None:
        rows = self._instant(p)
        unit, steps = self._unit(p), self._steps(p)
        if not rows:
            text = p["fieldConfig"]["defaults"].get("noValue") or "No data"
            self._no_data(fig, p, inner, text)
            return
        rows = rows[:6]
        n = len(rows)
        cols = 1 if n == 1 else (2 if n <= 4 else 3)
        nrows = math.ceil(n / cols)
        for k, (name, v, _labels, _t) in enumerate(rows):
            cx = inner[0] + inner[2] * ((k % cols) + 0.5) / cols
            cy = inner[1] + inner[3] * (1 - ((k // cols) + 0.5) / nrows)
            size = 26 if n == 1 else (17 if n <= 4 else 13)
            word = self._mapped(p, v)
            if word is not None:  # a value the panel shows as a word, as Grafana's value mappings do
                fig.text(cx, cy - 0.004, word, color=MUTED, fontsize=min(size, 11), ha="center", va="center", wrap=True)
            else:
                fig.text(cx, cy - 0.004, fmt(v, unit), color=threshold_color(v, steps), fontsize=size, weight="bold",
                         ha="center", va="center")  # fmt: skip
            fig.text(cx, cy + (size + 4) / fig_h_px, name[:40], color=MUTED, fontsize=7.5, ha="center",
                     va="center")  # fmt: skip

    @staticmethod
    def _mapped(p, v: float) -> str | None:
        for mapping in p["fieldConfig"]["defaults"].get("mappings") or []:
            result = (mapping.get("options") or {}).get(f"{v:g}")
            if mapping.get("type") == "value" and result:
                return result.get("text")
        return None

    def _gauge(self, fig, p, inner, fig_h_px) -> None:
        from matplotlib.patches import Wedge

        rows = self._instant(p)
        d = p["fieldConfig"]["defaults"]
        unit, steps = self._unit(p), self._steps(p)
        if not rows:
            self._no_data(fig, p, inner)
            return
        name, v, _l, _t = rows[0]
        lo, hi = d.get("min", 0), d.get("max", 1)
        ax = fig.add_axes(inner)
        ax.set_axis_off()
        ax.set_aspect("equal")
        ax.set_xlim(-1.1, 1.1)
        ax.set_ylim(-0.35, 1.15)

        def ang(x: float) -> float:
            return 180 - 180 * (min(max(x, lo), hi) - lo) / (hi - lo)

        # threshold band (outer), value arc (inner)
        bounds = [lo] + [s["value"] for s in steps[1:]] + [hi]
        for k in range(len(bounds) - 1):
            ax.add_patch(Wedge((0, 0), 1.0, ang(bounds[k + 1]), ang(bounds[k]), width=0.08,
                               color=color(steps[k]["color"])))  # fmt: skip
        ax.add_patch(Wedge((0, 0), 0.88, 0, 180, width=0.28, color=GRID))
        ax.add_patch(Wedge((0, 0), 0.88, ang(v), 180, width=0.28, color=threshold_color(v, steps)))
        ax.text(0, 0.05, fmt(v, unit), color=threshold_color(v, steps), fontsize=18, weight="bold", ha="center")
        ax.text(0, -0.25, name[:30], color=MUTED, fontsize=7.5, ha="center")

    def _bargauge(self, fig, p, inner, fig_h_px) -> None:
        rows = self._instant(p)
        d = p["fieldConfig"]["defaults"]
        unit, steps = self._unit(p), self._steps(p)
        if not rows:
            self._no_data(fig, p, inner)
            return
        fixed = {}
        for o in p["fieldConfig"].get("overrides", []):
            props = {pp["id"]: pp["value"] for pp in o["properties"]}
            if o["matcher"]["id"] == "byRegexp" and "color" in props:
                fixed[o["matcher"]["options"]] = color(props["color"].get("fixedColor"))
        rows = rows[:12]
        finite = [v for _n, v, _l, _t in rows if math.isfinite(v)]
        hi = d.get("max") if d.get("max") is not None else (max(finite) if finite else 1) or 1
        lo = d.get("min", 0) or 0
        ax = fig.add_axes([inner[0] + inner[2] * 0.36, inner[1], inner[2] * 0.44, inner[3]])
        ax.set_facecolor(PANEL_BG)
        ax.set_axis_off()
        n = len(rows)
        ax.set_ylim(-0.5, n - 0.5)
        ax.set_xlim(lo, hi)
        for k, (name, v, _l, _t) in enumerate(rows):
            y = n - 1 - k
            c = threshold_color(v, steps)
            for rx, fc in fixed.items():
                if re.fullmatch(rx, name):
                    c = fc
            ax.barh(y, hi - lo, left=lo, height=0.7, color=GRID)
            shown = min(max(v, lo), hi) if math.isfinite(v) else hi
            ax.barh(y, shown - lo, left=lo, height=0.7, color=c)
            fig.text(inner[0], inner[1] + inner[3] * (y + 0.5) / n, name[:38], color=TEXT, fontsize=7.5,
                     va="center")  # fmt: skip
            fig.text(inner[0] + inner[2], inner[1] + inner[3] * (y + 0.5) / n, fmt(v, unit), color=c, fontsize=9,
                     weight="bold", ha="right", va="center")  # fmt: skip

    def _table(self, fig, p, inner, fig_h_px) -> None:
        organize: dict = next((t["options"] for t in p.get("transformations", []) if t["id"] == "organize"), {})
        rename = organize.get("renameByName", {})
        order = organize.get("indexByName", {})
        label_cols = [c for c in sorted(order, key=order.get) if c not in rename.values()]
        units = {}
        for o in p["fieldConfig"].get("overrides", []):
            if o["matcher"]["id"] == "byName":
                for pp in o["properties"]:
                    if pp["id"] == "unit":
                        units[o["matcher"]["options"]] = pp["value"]
        table: dict[tuple, dict] = {}
        value_cols = []
        targets = p.get("targets", [])
        for t in targets:
            field = value_field(t["refId"], len(targets))
            col = rename.get(field, field)
            value_cols.append(col)
            for r in self.prom.instant(self.expr(t), self.end):
                key = tuple(r["metric"].get(c, "") for c in label_cols)
                table.setdefault(key, {})[col] = sample_value(r["value"][1])
        if not table:
            self._no_data(fig, p, inner)
            return
        used_labels = [c for i, c in enumerate(label_cols) if any(k[i] for k in table)]
        idx = [label_cols.index(c) for c in used_labels]
        sort_by = (p.get("options", {}).get("sortBy") or [{}])[0].get("displayName")
        if len(value_cols) == 1 and sort_by not in value_cols:
            rows = sorted(table.items(), key=lambda kv: tuple(kv[0][i] for i in idx))
        else:
            key_col = sort_by if sort_by in value_cols else value_cols[0]
            rows = sorted(table.items(), key=lambda kv: -kv[1].get(key_col, -math.inf))
        max_rows = max(1, int(inner[3] * fig_h_px / 17) - 1)
        cells = [[k[i] for i in idx] + [fmt(v.get(c, float("nan")), units.get(c, "none")) for c in value_cols]
                 for k, v in rows[:max_rows]]  # fmt: skip
        header = used_labels + value_cols
        if len(value_cols) == 1 and value_cols[0] == "active":
            header, cells = used_labels, [row[:-1] for row in cells]
        ax = fig.add_axes(inner)
        ax.set_axis_off()
        rows_h = min(1.0, (len(cells) + 1) * 17 / (inner[3] * fig_h_px))
        tb = ax.table(cellText=cells, colLabels=header, cellLoc="left", bbox=[0, 1 - rows_h, 1, rows_h])
        tb.auto_set_font_size(False)
        tb.set_fontsize(7.5)
        for (r, _c), cell in tb.get_celld().items():
            cell.set_edgecolor(GRID)
            cell.set_facecolor(PANEL_BG if r else "#22252b")
            cell.get_text().set_color(TEXT if r else MUTED)
        if len(rows) > max_rows:
            fig.text(inner[0] + inner[2], inner[1], f"+{len(rows) - max_rows} more rows", color=MUTED, fontsize=7,
                     ha="right", va="bottom")  # fmt: skip
