"""How the previews look and how they write values: Grafana's dark theme and palette, its grid
units, its unit formats, legend templates and threshold colours."""

from __future__ import annotations

import math
import re

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
    "dark-red": "#C4162A",
    "dark-purple": "#8F3BB8",
    "dark-blue": "#1F60C4",
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
    if unit == "dtdurations":  # Grafana writes "3 minutes, 36 seconds"; the largest part is enough here
        unit = "s"
    if unit == "s":
        a = abs(v)
        for size, name in ((7 * 86400, "week"), (86400, "day"), (3600, "hour"), (60, "min")):
            if a >= size:
                return f"{v / size:.1f} {name}"
        if a >= 1 or v == 0:
            return f"{v:.0f} s" if a >= 10 or v == int(v) else f"{v:.1f} s"
        # Below a second Grafana's `s` unit says ms or µs (op latencies live there).
        for fraction, name in ((1e-3, "ms"), (1e-6, "µs")):
            if a >= fraction:
                return f"{v / fraction:.0f} {name}" if a >= 10 * fraction else f"{v / fraction:.1f} {name}"
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


def sample_value(x: str) -> float:
    """A sample value of the Prometheus HTTP API (a string, "+Inf" and "-Inf" included) as a float."""
    return float(x.replace("+Inf", "inf").replace("-Inf", "-inf"))
