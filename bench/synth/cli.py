"""Synthetic cluster state at a given scale, in the JSON shapes captured from Pacific.

python -m bench.synth --out DIR                       # the 10B study cluster (1x)
python -m bench.synth --scale 10 --out DIR            # every count x10
python -m bench.synth --osds 318 --pgs 21760 --pools 7 --buckets 100000 --rgws 12 --out DIR
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.synth.constants import STUDY
from bench.synth.state import Synth


def scaled(scale: float) -> dict[str, int]:
    return {k: max(1, round(v * scale)) for k, v in STUDY.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.synth", description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=float, default=1.0, help="multiply the study's counts (default 1)")
    for key, value in STUDY.items():
        p.add_argument(f"--{key}", type=int, default=None, help=f"default {value} x scale")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True, help="directory to write into")
    args = p.parse_args(argv)
    counts = scaled(args.scale)
    for key in STUDY:
        if getattr(args, key) is not None:
            counts[key] = getattr(args, key)
    manifest = Synth(seed=args.seed, **counts).write(Path(args.out))
    total = sum(manifest["files"].values())
    print(
        f"wrote {len(manifest['files'])} files, {total / 1e6:.1f} MB, to {args.out}: {json.dumps(manifest['expect'])}"
    )
    return 0
