"""Metric families as plain data, independent of any client library.

The core returns these; the sidecar and the ceph-mgr module turn them into
exposition text. Keeping them plain lets tests compare the two producers
family by family and keeps prometheus_client out of the derivation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

PREFIX = "ceph_scale_"


@dataclass
class Family:
    name: str  # full name, with PREFIX; counters without the `_total` suffix
    kind: str  # "gauge", "counter" or "histogram"
    help: str
    label_names: tuple[str, ...] = ()
    # (suffix, label values aligned with label_names + extra, value).
    # Histograms use suffixes "_bucket" (with an extra "le" label), "_sum", "_count".
    samples: list[tuple[str, tuple[str, ...], float]] = field(default_factory=list)

    def add(self, value: float, *label_values: str, suffix: str = "") -> Family:
        if len(label_values) != len(self.label_names) + (1 if suffix == "_bucket" else 0):
            raise ValueError(f"{self.name}: expected labels {self.label_names}, got {label_values}")
        self.samples.append((suffix, tuple(map(str, label_values)), float(value)))
        return self

    def add_histogram(self, buckets: list[tuple[float, int]], total: float, count: int, *label_values: str) -> Family:
        """buckets: cumulative (upper bound, count) pairs, ending with +Inf."""
        for bound, cumulative in buckets:
            le = "+Inf" if math.isinf(bound) else _format_bound(bound)
            self.samples.append(("_bucket", (*label_values, le), float(cumulative)))
        self.samples.append(("_sum", tuple(label_values), float(total)))
        self.samples.append(("_count", tuple(label_values), float(count)))
        return self


def _format_bound(bound: float) -> str:
    return repr(float(bound))


def gauge(name: str, help_text: str, *label_names: str) -> Family:
    return Family(PREFIX + name, "gauge", help_text, tuple(label_names))


def counter(name: str, help_text: str, *label_names: str) -> Family:
    if name.endswith("_total"):
        raise ValueError("counter names are given without _total")
    return Family(PREFIX + name, "counter", help_text, tuple(label_names))


def histogram(name: str, help_text: str, *label_names: str) -> Family:
    return Family(PREFIX + name, "histogram", help_text, tuple(label_names))


def with_constant_labels(families: list[Family], labels: dict[str, str]) -> list[Family]:
    """Prepend constant labels (e.g. ``cluster``) to every sample."""
    if not labels:
        return families
    names = tuple(labels)
    values = tuple(labels.values())
    out = []
    for fam in families:
        out.append(
            Family(
                fam.name,
                fam.kind,
                fam.help,
                names + fam.label_names,
                [(s, values + lv, v) for s, lv, v in fam.samples],
            )
        )
    return out
