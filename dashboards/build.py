"""Generate the Grafana dashboards: ``python -m dashboards.build`` writes dashboards/json/*.json.

``--check`` writes nothing and exits 1 if a committed file differs from what the code generates.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grafana_foundation_sdk.cog.encoder import JSONEncoder

from .boards import BOARDS

OUT = Path(__file__).resolve().parent / "json"


def render(name: str) -> str:
    """The JSON text of one board, byte-stable (sorted keys, 2-space indent, final newline)."""
    dashboard = BOARDS[name]().build()
    return JSONEncoder(sort_keys=True, indent=2, ensure_ascii=False).encode(dashboard) + "\n"


def render_all() -> dict[str, str]:
    return {f"{name}.json": render(name) for name in BOARDS}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dashboards.build", description=__doc__)
    p.add_argument("--out", type=Path, default=OUT, help="output directory (default: dashboards/json)")
    p.add_argument("--check", action="store_true", help="only compare with the files in --out")
    args = p.parse_args(argv)
    files = render_all()
    if args.check:
        stale = [n for n, text in files.items() if not (args.out / n).exists() or (args.out / n).read_text() != text]
        extra = sorted({f.name for f in args.out.glob("*.json")} - set(files))
        for n in stale:
            print(f"{args.out / n}: differs from the code; run python -m dashboards.build", file=sys.stderr)
        for n in extra:
            print(f"{args.out / n}: no board generates it", file=sys.stderr)
        return 1 if stale or extra else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for n, text in files.items():
        (args.out / n).write_text(text)
        print(args.out / n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
