"""Static PNG previews of the generated boards, drawn with matplotlib from a real Prometheus.

    python -m dashboards.preview --prometheus http://127.0.0.1:9090 --out dashboards/previews/

Each board is laid out on Grafana's 24-column grid (gridPos) with its panel titles; time series
are query_range results with the panel's threshold lines and dashed reference series, stats and
gauges show the last value coloured by the panel's thresholds, bar gauges and tables show the
instant results. Not Grafana, but close enough to see what each board shows before installing it.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime
from pathlib import Path

from .queries import DEFAULTS, JSON_DIR, load_boards, panels, substitute, value_field

GRID_COLS = 24
ROW_PX = 30  # Grafana: one grid unit of height
FIG_W_PX = 1600
DPI = 80

BG, PANEL_BG, GRID, TEXT, MUTED = "#111217", "#181b1f", "#2c3235", "#ccccdc", "#8e8e8e"
NAMED = {
    "green": "#73BF69",
    "yellow": "#FADE2A",
    "orange": "#FF9830",
    "red": "#F2495C",
    "blue": "#5794F2",
    "purple": "#B877D9",
    "text": TEXT,
}
# Grafana's classic palette without its red and purple: in the previews those mean a limit or a
# RocksDB level boundary (dashed reference lines), never an ordinary series.
PALETTE = ["#7EB26D", "#EAB839", "#6ED0E0", "#EF843C", "#1F78C1", "#705DA0", "#508642", "#CCA300", "#447EBC",
           "#C15C17"]  # fmt: skip


LEGEND_ROW_PX = 12
LEGEND_MAX_ROWS = 8


def legend_rows(inner_px: float, n_series: int) -> tuple[float, int]:
    """(height in px, series rows shown) of a timeseries panel's legend table. It takes at most
    42 % of the panel; a header row and a margin come first; the rows that do not fit are left out
    ("+N more"), as Grafana's legend scrolls, instead of running into the panel below."""
    height = min(0.42 * inner_px, (min(n_series, LEGEND_MAX_ROWS) + 1.3) * LEGEND_ROW_PX)
    fits = int(height / LEGEND_ROW_PX - 1.3 + 1e-6)
    return height, max(0, min(n_series, LEGEND_MAX_ROWS, fits))


def color(name: str | None) -> str:
    return NAMED.get(name or "", name or TEXT)


# --- Prometheus -----------------------------------------------------------------------------------


class Prom:
    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def _get(self, path: str, params: dict) -> list:
        url = f"{self.url}{path}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                data = json.loads(r.read())
        except urllib.error.HTTPError as e:
            # Prometheus answers a bad query with 400/422 and says why in the JSON body.
            try:
                data = json.loads(e.read())
            except ValueError:
                raise RuntimeError(f"{path}: HTTP {e.code}") from e
        if data.get("status") != "success":
            raise RuntimeError(f"{data.get('errorType', 'error')}: {data.get('error', data)}")
        return data["data"]["result"]

    def instant(self, expr: str, at: float) -> list:
        return self._get("/api/v1/query", {"query": expr, "time": at})

    def range(self, expr: str, start: float, end: float, step: float) -> list:
        return self._get("/api/v1/query_range", {"query": expr, "start": start, "end": end, "step": step})


# --- formatting -----------------------------------------------------------------------------------


def _scaled(v: float, base: float, units: list[str], digits: int = 1) -> str:
    i = 0
    while abs(v) >= base and i < len(units) - 1:
        v /= base
        i += 1
    return f"{v:.{digits if i or v != int(v) else 0}f} {units[i]}".rstrip()


def fmt(v: float, unit: str) -> str:
    """A value as Grafana would roughly show it with `unit`."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if unit == "percentunit":
        return f"{v * 100:.1f} %"
    if unit == "bytes":
        return _scaled(v, 1024, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"])
    if unit == "Bps":
        return _scaled(v, 1000, ["B/s", "kB/s", "MB/s", "GB/s", "TB/s"])
    if unit == "ops":
        return _scaled(v, 1000, ["ops/s", "K ops/s", "M ops/s"])
    if unit == "s":
        a = abs(v)
        for size, name in ((7 * 86400, "week"), (86400, "day"), (3600, "hour"), (60, "min")):
            if a >= size:
                return f"{v / size:.1f} {name}"
        if a >= 1 or v == 0:
            return f"{v:.0f} s" if a >= 10 or v == int(v) else f"{v:.1f} s"
        # Below a second Grafana's `s` unit says ms or µs (op latencies live there).
        for size, name in ((1e-3, "ms"), (1e-6, "µs")):
            if a >= size:
                return f"{v / size:.0f} {name}" if a >= 10 * size else f"{v / size:.1f} {name}"
        return f"{v / 1e-9:.0f} ns"
    if unit.startswith("suffix:"):
        return f"{v:.2f}{unit[len('suffix:') :]}"
    if unit == "short":
        return _scaled(v, 1000, ["", "K", "Mil", "Bil", "Tri"])
    return f"{v:.0f}" if v == int(v) else f"{v:.3g}"


def legend(fmt_str: str, labels: dict) -> str:
    if not fmt_str:
        return "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda mt: labels.get(mt.group(1), ""), fmt_str).strip()


def threshold_color(v: float, steps: list[dict]) -> str:
    c = steps[0]["color"] if steps else "text"
    for s in steps[1:]:
        if s.get("value") is not None and v is not None and not math.isnan(v) and v >= s["value"]:
            c = s["color"]
    return color(c)


def _float(x: str) -> float:
    return float(x.replace("+Inf", "inf").replace("-Inf", "-inf"))


# --- drawing ---------------------------------------------------------------------------------------


class Renderer:
    def __init__(self, prom: Prom, start: float, end: float, values: dict[str, str]) -> None:
        self.prom, self.start, self.end = prom, start, end
        self.step = max(2.0, round((end - start) / 240))
        self.values = {**DEFAULTS, **values}
        # Titles of the panels that showed no data or an error (with the error): each one fails
        # the command and the tests.
        self.missing: list[str] = []
        self.marks: dict[int, list[tuple[float, float, str, str]]] = {}

    def expr(self, t: dict) -> str:
        return substitute(t["expr"], self.values)

    def annotations(self, board: dict) -> dict[int, list[tuple[float, float, str, str]]]:
        """{panel id: [(start, end, colour, title)]} of the board's Prometheus annotation queries:
        one per run of samples of a series, as Grafana draws a region, titled with the query's
        titleFormat over the series' labels (empty without one)."""
        marks: dict[int, list[tuple[float, float, str, str]]] = {}
        for a in (board.get("annotations") or {}).get("list") or []:
            if not a.get("expr") or not a.get("enable", True):
                continue
            regions = []
            for r in self.prom.range(substitute(a["expr"], self.values), self.start, self.end, self.step):
                title = legend(a["titleFormat"], r["metric"]) if a.get("titleFormat") else ""
                first = prev = None
                for ts_, _v in r["values"]:
                    t = float(ts_)
                    if prev is not None and t - prev > self.step * 1.5:
                        regions.append((first, prev, title))
                        first = None
                    first = t if first is None else first
                    prev = t
                if first is not None and prev is not None:
                    regions.append((first, prev, title))
            ids = (a.get("filter") or {}).get("ids") or [p["id"] for p in panels(board)]
            for i in ids:
                marks.setdefault(i, []).extend((t0, t1, a.get("iconColor", "orange"), ttl) for t0, t1, ttl in regions)
        return marks

    def board(self, board: dict, out: Path) -> Path:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        try:
            self.marks = self.annotations(board)
        except Exception as e:  # the panels still render, without marks; the run fails
            self.missing.append(f"annotations (error: {e})"[:300])
            self.marks = {}

        items = board["panels"]
        total_h = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in items)
        header_px = 60
        fig_h_px = total_h * ROW_PX + header_px
        fig = plt.figure(figsize=(FIG_W_PX / DPI, fig_h_px / DPI), dpi=DPI, facecolor=BG)
        span = f"{datetime.fromtimestamp(self.start):%Y-%m-%d %H:%M} – {datetime.fromtimestamp(self.end):%H:%M}"
        fig.text(0.008, 1 - 22 / fig_h_px, board["title"], color=TEXT, fontsize=16, weight="bold", va="center")
        fig.text(
            0.992, 1 - 22 / fig_h_px, f"uid {board['uid']} · cluster=All · {span} · static preview (matplotlib)",
            color=MUTED, fontsize=9, ha="right", va="center",
        )  # fmt: skip
        for p in items:
            g = p["gridPos"]
            pad = 4
            left = (g["x"] * FIG_W_PX / GRID_COLS + pad) / FIG_W_PX
            width = (g["w"] * FIG_W_PX / GRID_COLS - 2 * pad) / FIG_W_PX
            top = (header_px + g["y"] * ROW_PX + pad) / fig_h_px
            height = (g["h"] * ROW_PX - 2 * pad) / fig_h_px
            bottom = 1 - top - height
            if p["type"] == "row":
                fig.text(left, 1 - top - height / 2, "▾ " + p["title"], color=TEXT, fontsize=12, weight="bold",
                         va="center")  # fmt: skip
                continue
            box = fig.add_axes([left, bottom, width, height])
            box.set_facecolor(PANEL_BG)
            box.set_xticks([])
            box.set_yticks([])
            for s in box.spines.values():
                s.set_color(GRID)
            title_h = 22 / fig_h_px
            title = fig.text(left + 6 / FIG_W_PX, bottom + height - title_h / 2 - 2 / fig_h_px, p["title"],
                             color=TEXT, fontsize=9.5, weight="bold", va="center")  # fmt: skip
            _fit(title, width * FIG_W_PX - 12)
            inner = [
                left + 8 / FIG_W_PX,
                bottom + 6 / fig_h_px,
                width - 16 / FIG_W_PX,
                height - title_h - 10 / fig_h_px,
            ]
            try:
                getattr(self, "_" + p["type"])(fig, p, inner, fig_h_px)
            except Exception as e:  # a broken panel shows its error, like Grafana, and fails the run
                self.missing.append(f"{p['title']} (error: {e})"[:300])
                box.text(0.5, 0.4, f"error: {e}"[:200], color=NAMED["red"], ha="center", va="center", fontsize=8,
                         transform=box.transAxes, wrap=True)  # fmt: skip
        path = out / f"{board['uid'].removeprefix('ceph-scale-')}.png"
        fig.savefig(path, dpi=DPI, facecolor=BG)
        plt.close(fig)
        _quantize(path)
        return path

    # -- helpers

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
                res = sorted(res, key=lambda r: _float(r["metric"].get("le", "inf")))
                prev = 0.0
                for r in res:
                    v = _float(r["value"][1])
                    rows.append((legend(t.get("legendFormat", ""), r["metric"]), v - prev, r["metric"], t))
                    prev = v
                continue
            for r in res:
                rows.append((legend(t.get("legendFormat", ""), r["metric"]), _float(r["value"][1]), r["metric"], t))
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
                    val = _float(v)
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
        organize = next((t["options"] for t in p.get("transformations", []) if t["id"] == "organize"), {})
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
                table.setdefault(key, {})[col] = _float(r["value"][1])
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


def _fit(text, max_px: float) -> None:
    """Shorten a text artist with an ellipsis until it is at most max_px wide, as Grafana cuts a
    panel title, instead of running into the next panel."""
    renderer = text.figure.canvas.get_renderer()
    full = text.get_text()
    n = len(full)
    while n > 1 and text.get_window_extent(renderer).width > max_px:
        n -= 1
        text.set_text(full[:n].rstrip() + "…")


def _quantize(path: Path) -> None:
    """Palette PNG: the previews are flat colours, so 256 colours keep them small."""
    try:
        from PIL import Image
    except ImportError:
        return
    img = Image.open(path).convert("RGB")
    img.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def render_all(prom_url: str, out: Path, start: float, end: float, values: dict[str, str] | None = None,
               json_dir: Path = JSON_DIR) -> dict[str, list[str]]:  # fmt: skip
    """Render every board; returns {png path: titles of panels that showed no data}."""
    out.mkdir(parents=True, exist_ok=True)
    result = {}
    for _stem, board in load_boards(json_dir).items():
        r = Renderer(Prom(prom_url), start, end, values or {})
        path = r.board(board, out)
        result[str(path)] = r.missing
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dashboards.preview", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--prometheus", required=True, help="Prometheus base URL")
    p.add_argument("--out", type=Path, default=Path("dashboards/previews"))
    p.add_argument("--minutes", type=float, default=15, help="time range ending now (default 15)")
    p.add_argument("--start", type=float, help="range start, Unix seconds (overrides --minutes)")
    p.add_argument("--end", type=float, help="range end, Unix seconds (default now)")
    p.add_argument("--rate-interval", default="1m", help="value of $__rate_interval (default 1m)")
    p.add_argument("--cluster", default=".*", help="value of $cluster (a regex; default all)")
    args = p.parse_args(argv)
    end = args.end or time.time()
    start = args.start or end - args.minutes * 60
    res = render_all(args.prometheus, args.out, start, end, {"__rate_interval": args.rate_interval,
                                                              "cluster": args.cluster})  # fmt: skip
    for path, missing in res.items():
        size = Path(path).stat().st_size
        print(f"{path}  {size // 1024} KB" + (f"  no data: {', '.join(missing)}" if missing else ""))
    return 1 if any(res.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
