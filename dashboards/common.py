"""The vocabulary every board shares: the datasource, the cluster selector and the query
helpers built on it, the study's reference values as threshold steps, the colours, and where the
runbooks are published.

Every query filters on ``cluster=~"$cluster"`` (multi-cluster) and every rate/increase uses
``$__rate_interval``.
"""

from __future__ import annotations

from grafana_foundation_sdk.builders import prometheus
from grafana_foundation_sdk.models import dashboard as dm
from grafana_foundation_sdk.models import prometheus as pm

from ceph_scale.core.config import Thresholds

# Runbook sections live in rules/runbooks.md; the URL is a (hidden) dashboard constant so that a
# fork or an internal mirror only changes one value at import time.
RUNBOOK_BASE = "https://github.com/ceph-scale-signals/ceph-scale-signals/blob/main/rules/runbooks.md"
DS = dm.DataSourceRef(type_val="prometheus", uid="${datasource}")
C = 'cluster=~"$cluster"'

# Colours (Grafana's named palette).
OK, WARN, HIGH, CRIT, INFO = "green", "yellow", "orange", "red", "blue"

# Reference lines from docs/study.md, as Grafana threshold steps [(value, colour)]; the
# first step is the base (value None). A threshold's default is read from its one declaration
# (ceph_scale/core/config.py); a panel draws the configured value as a series of its own.
_DEFAULT = Thresholds()
FILL = [
    (None, OK),
    (_DEFAULT.fill_warn_ratio, WARN),
    (_DEFAULT.fill_target_ratio, HIGH),
    (_DEFAULT.fill_critical_ratio, CRIT),
]
BASELINE = [(None, OK), (1.0, CRIT)]  # load / HDD baseline ratio 1 [004]
SHARD_FILL = [(None, OK), (_DEFAULT.rgw_shard_warn_ratio, WARN), (1.0, CRIT)]  # 1: the per-shard limit
HEADROOM = [(None, CRIT), (0.0, WARN), (0.1, OK)]  # headroom ratio: < 0 means the line was crossed
NONZERO_BAD = [(None, OK), (1, CRIT)]
HOTSPOT = [(None, OK), (_DEFAULT.osd_hotspot_ratio, CRIT)]


def sel(*matchers: str) -> str:
    """A label selector with the cluster matcher first: sel('kind="scrub"')."""
    return "{" + ", ".join((C, *matchers)) + "}"


def raw(name: str, *matchers: str) -> str:
    """The bare selector: for range functions, whose result the caller aggregates."""
    return name + sel(*matchers)


def m(name: str, *matchers: str) -> str:
    """One series per cluster and own labels, whichever producers export it: the sidecar and
    the mgr module (or two scrape jobs) may both, and a bare selector would draw it twice."""
    return f"max without (job, instance) ({raw(name, *matchers)})"


def rate(name: str, *matchers: str, fn: str = "rate") -> str:
    """A rate per exporting target; callers take `max by (cluster, <own labels>)` over producers."""
    return f"{fn}({raw(name, *matchers)}[$__rate_interval])"


class Q:
    """One query of a panel (refId given by the panel)."""

    def __init__(self, expr: str, legend: str = "", instant: bool = False, fmt: str = "time_series") -> None:
        self.expr, self.legend, self.instant, self.fmt = expr, legend, instant, fmt

    def builder(self, ref: str) -> prometheus.Dataquery:
        b = prometheus.Dataquery().expr(self.expr).ref_id(ref).datasource(DS)
        if self.legend:
            b = b.legend_format(self.legend)
        b = b.instant() if self.instant else b.range()
        if self.fmt != "time_series":
            b = b.format(pm.PromQueryFormat(self.fmt))
        return b
