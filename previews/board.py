"""One board as one PNG: its panels laid out on Grafana's 24-column grid with their titles, and
its annotation regions marked on the panels they name."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from dashboards.queries import panels, substitute

from .panels import Panels
from .style import BG, DPI, FIG_W_PX, GRID, GRID_COLS, MUTED, NAMED, PANEL_BG, ROW_PX, TEXT, legend


class Renderer(Panels):
    def annotations(self, board: dict) -> dict[int, list[tuple[float, float, str, str]]]:
        """{panel id: [(start, end, colour, title)]} of the board's Prometheus annotation queries:
        one per run of samples of a series, as Grafana draws a region, titled with the query's
        titleFormat over the series' labels (empty without one)."""
        marks: dict[int, list[tuple[float, float, str, str]]] = {}
        for a in (board.get("annotations") or {}).get("list") or []:
            if not a.get("expr") or not a.get("enable", True):
                continue
            regions: list[tuple[float, float, str]] = []
            for r in self.prom.range(substitute(a["expr"], self.values), self.start, self.end, self.step):
                title = legend(a["titleFormat"], r["metric"]) if a.get("titleFormat") else ""
                times = [float(ts_) for ts_, _v in r["values"]]
                if not times:
                    continue
                first = prev = times[0]
                for t in times[1:]:
                    if t - prev > self.step * 1.5:
                        regions.append((first, prev, title))
                        first = t
                    prev = t
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
            box = fig.add_axes((left, bottom, width, height))
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
                self.draw(fig, p, inner, fig_h_px)
            except Exception as e:  # a broken panel shows its error, like Grafana, and fails the run
                self.missing.append(f"{p['title']} (error: {e})"[:300])
                box.text(0.5, 0.4, f"error: {e}"[:200], color=NAMED["red"], ha="center", va="center", fontsize=8,
                         transform=box.transAxes, wrap=True)  # fmt: skip
        path = out / f"{board['uid'].removeprefix('ceph-scale-')}.png"
        fig.savefig(path, dpi=DPI, facecolor=BG)
        plt.close(fig)
        _quantize(path)
        return path


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
    """Palette PNG: the previews are flat colours, so 128 colours keep them small."""
    try:
        from PIL import Image
    except ImportError:
        return
    img = Image.open(path).convert("RGB")
    img.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
