"""Families to exposition bytes through prometheus_client, for both producers.

prometheus_client is pure Python and ships in Debian (python3-prometheus-client),
so it imports inside ceph-mgr's sub-interpreters too.
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client.core import CollectorRegistry, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import Collector

from .families import Family

__all__ = ["CONTENT_TYPE_LATEST", "render", "to_client_metrics"]


def to_client_metrics(families: list[Family]) -> list[Metric]:
    metrics = []
    for fam in families:
        metric = Metric(fam.name, fam.help, fam.kind)
        for suffix, label_values, value in fam.samples:
            names = fam.label_names + (("le",) if suffix == "_bucket" else ())
            sample_name = fam.name + ("_total" if fam.kind == "counter" else suffix)
            metric.add_sample(sample_name, dict(zip(names, label_values)), value)
        metrics.append(metric)
    return metrics


class _Frozen(Collector):
    def __init__(self, metrics: list[Metric]) -> None:
        self._metrics = metrics

    def collect(self) -> Iterable[Metric]:
        return self._metrics


def render(families: list[Family]) -> bytes:
    """Prometheus text format 0.0.4 for these families."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Frozen(to_client_metrics(families)))
    return generate_latest(registry)
