"""Read access to derived families by name and labels, for the health checks and the report.

Families are used duck-typed (name, label_names, samples), so these helpers work on the
output of any copy of the core (the one install.sh bundles with the module, or the checkout's).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, overload

PREFIX = "ceph_scale_"


class View:
    def __init__(self, families: Iterable[Any]) -> None:
        self.by_name = {f.name: f for f in families}

    def has(self, name: str) -> bool:
        return PREFIX + name in self.by_name

    def samples(self, name: str, suffix: str = "") -> list[tuple[dict[str, str], float]]:
        fam = self.by_name.get(PREFIX + name)
        if fam is None:
            return []
        out = []
        for s, label_values, value in fam.samples:
            if s != suffix:
                continue
            names = tuple(fam.label_names) + (("le",) if s == "_bucket" else ())
            labels = {k: v for k, v in zip(names, label_values) if k != "cluster"}
            out.append((labels, value))
        return out

    def value(self, name: str, **labels: str) -> float | None:
        for got, value in self.samples(name):
            if all(got.get(k) == v for k, v in labels.items()):
                return value
        return None

    def by_label(self, name: str, label: str, **match: str) -> dict[str, float]:
        return {
            got[label]: value
            for got, value in self.samples(name)
            if label in got and all(got.get(k) == v for k, v in match.items())
        }

    @overload
    def config(self, option: str) -> float | None: ...
    @overload
    def config(self, option: str, default: float) -> float: ...

    def config(self, option: str, default: float | None = None) -> float | None:
        v = self.value("config", option=option)
        return default if v is None else v


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
