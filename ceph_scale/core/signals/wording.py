"""How the health checks and the status sections write figures: ratios as percentages, seconds
as durations, bytes with binary units, counts without a needless decimal point."""

from __future__ import annotations

import math


def pct(ratio: float) -> str:
    return f"{ratio * 100:.1f} %"


def duration(seconds: float) -> str:
    if math.isinf(seconds):
        return "never"
    s = max(0.0, seconds)
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def size(n: float) -> str:
    v = float(n)
    for u in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(v) < 1024:
            return f"{v:.0f} {u}" if u == "B" else f"{v:.1f} {u}"
        v /= 1024
    return f"{v:.1f} PiB"


def number(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.3g}"
