"""Static PNG previews of the generated boards, drawn with matplotlib from a real Prometheus.

    python -m previews.render --prometheus http://127.0.0.1:9090 --out dashboards/previews/

Each board is laid out on Grafana's 24-column grid (gridPos) with its panel titles; time series
are query_range results with the panel's threshold lines and dashed reference series, stats and
gauges show the last value coloured by the panel's thresholds, bar gauges and tables show the
instant results. Not Grafana, but close enough to see what each board shows before installing it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from dashboards.queries import JSON_DIR, load_boards

from .board import Renderer
from .prom import Prom


def render_all(prom_url: str, out: Path, start: float, end: float, values: dict[str, str] | None = None,
               json_dir: Path = JSON_DIR, only: list[str] | None = None) -> dict[str, list[str]]:  # fmt: skip
    """Render every board, or those named in `only` (their files' stems); returns {png path:
    titles of panels that showed no data}."""
    boards = load_boards(json_dir)
    out.mkdir(parents=True, exist_ok=True)
    result = {}
    for stem, board in boards.items():
        if only and stem not in only:
            continue
        r = Renderer(Prom(prom_url), start, end, values or {})
        path = r.board(board, out)
        result[str(path)] = r.missing
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m previews.render", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--prometheus", required=True, help="Prometheus base URL")
    p.add_argument("--out", type=Path, default=Path("dashboards/previews"))
    p.add_argument("--minutes", type=float, default=15, help="time range ending now (default 15)")
    p.add_argument("--start", type=float, help="range start, Unix seconds (overrides --minutes)")
    p.add_argument("--end", type=float, help="range end, Unix seconds (default now)")
    p.add_argument("--rate-interval", default="1m", help="value of $__rate_interval (default 1m)")
    p.add_argument("--cluster", default=".*", help="value of $cluster (a regex; default all)")
    p.add_argument("--board", action="append", metavar="NAME",
                   help="only this board (its file's stem, e.g. scrub); repeatable (default: every board)")  # fmt: skip
    args = p.parse_args(argv)
    end = args.end or time.time()
    start = args.start or end - args.minutes * 60
    boards = sorted(load_boards())
    unknown = sorted(set(args.board or []) - set(boards))
    if unknown:
        p.error(f"no such board: {', '.join(unknown)} (boards: {', '.join(boards)})")
    values = {"__rate_interval": args.rate_interval, "cluster": args.cluster}
    res = render_all(args.prometheus, args.out, start, end, values, only=args.board)
    for path, missing in res.items():
        size = Path(path).stat().st_size
        print(f"{path}  {size // 1024} KB" + (f"  no data: {', '.join(missing)}" if missing else ""))
    return 1 if any(res.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
