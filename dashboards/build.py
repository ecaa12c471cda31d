"""Generate the Grafana dashboards: ``python -m dashboards.build`` writes dashboards/json/*.json
and the Helm chart's copy of them (deploy/helm/ceph-scale-signals/files/dashboards/, which Helm
reads: its .Files sees only inside the chart directory).

``--check`` writes nothing and exits 1, naming each file, if a committed file differs from what
the boards assemble from the signals' panels.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grafana_foundation_sdk.cog.encoder import JSONEncoder

from .board_frame import all_folder_rows
from .boards import BOARDS

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "dashboards" / "json"
CHART_COPY = REPO / "deploy" / "helm" / "ceph-scale-signals" / "files" / "dashboards"
COMMAND = "python -m dashboards.build"


def render(name: str) -> str:
    """The JSON text of one board, byte-stable (sorted keys, 2-space indent, final newline)."""
    dashboard = BOARDS[name]().build()
    return JSONEncoder(sort_keys=True, indent=2, ensure_ascii=False).encode(dashboard) + "\n"


def render_all() -> dict[str, str]:
    stray = sorted({row.board for row in all_folder_rows()} - set(BOARDS))
    if stray:
        boards = ", ".join(BOARDS)
        raise ValueError(f"a signal's panels.py adds rows to no board: {', '.join(stray)} (boards: {boards})")
    return {f"{name}.json": render(name) for name in BOARDS}


def differences(files: dict[str, str], out: Path) -> list[str]:
    """One line per file of `out` that differs from `files`, is missing, or no board generates."""
    if out.is_symlink():
        return [f"{out}: a link, not the assembled copy; run {COMMAND}"]
    stale = [n for n, text in files.items() if not (out / n).is_file() or (out / n).read_text() != text]
    extra = sorted({f.name for f in out.glob("*.json")} - set(files))
    return [f"{out / n}: differs from the boards; run {COMMAND}" for n in stale] + [
        f"{out / n}: no board generates it; run {COMMAND}" for n in extra
    ]


def write(files: dict[str, str], out: Path) -> None:
    """The boards into `out`, and no other board file left there."""
    if out.is_symlink():  # writing through a link would fill the directory it points at, not a copy
        out.unlink()
    out.mkdir(parents=True, exist_ok=True)
    for extra in sorted({f.name for f in out.glob("*.json")} - set(files)):
        (out / extra).unlink()
    for n, text in files.items():
        (out / n).write_text(text)
        print(out / n)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=COMMAND, description=__doc__)
    p.add_argument(
        "--out", type=Path, action="append",
        help=f"output directory, repeatable (default: {OUT.relative_to(REPO)} and {CHART_COPY.relative_to(REPO)})",
    )  # fmt: skip
    p.add_argument("--check", action="store_true", help="only compare with the files in the output directories")
    args = p.parse_args(argv)
    outs: list[Path] = args.out or [OUT, CHART_COPY]
    try:
        files = render_all()
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.check:
        found = [line for out in outs for line in differences(files, out)]
        for line in found:
            print(line, file=sys.stderr)
        return 1 if found else 0
    for out in outs:
        write(files, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
