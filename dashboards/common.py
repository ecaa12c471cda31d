"""What every board shares beyond the signals' panels: the datasource, where the runbooks are
published, and a panel query as Grafana's Prometheus query.

The PromQL pieces, colours and reference lines the panels use are the core's
(ceph_scale/core/panel_queries.py, panel_spec.py), beside the signals that draw them.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from types import ModuleType

from grafana_foundation_sdk.builders import prometheus
from grafana_foundation_sdk.models import dashboard as dm
from grafana_foundation_sdk.models import prometheus as pm

from ceph_scale.core.panel_spec import Query
from ceph_scale.core.registry import SIGNALS

# Runbook sections live in rules/runbooks.md; the URL is a (hidden) dashboard constant so that a
# fork or an internal mirror only changes one value at import time.
RUNBOOK_BASE = "https://github.com/ceph-scale-signals/ceph-scale-signals/blob/main/rules/runbooks.md"
DS = dm.DataSourceRef(type_val="prometheus", uid="${datasource}")


def dataquery(q: Query, ref: str) -> prometheus.Dataquery:
    """One panel query, refId `ref`, on the board's datasource."""
    b = prometheus.Dataquery().expr(q.expr).ref_id(ref).datasource(DS)
    if q.legend:
        b = b.legend_format(q.legend)
    b = b.instant() if q.instant else b.range()
    if q.fmt != "time_series":
        b = b.format(pm.PromQueryFormat(q.fmt))
    return b


def signal_panels() -> Iterator[tuple[str, ModuleType]]:
    """(signal, its folder's panels.py) in registry order, for the signals that have one: where
    the boards find the rows (`ROWS`) and annotations (`MARKS`) each signal adds by itself."""
    for signal in SIGNALS:
        module = f"ceph_scale.core.signals.{signal.name}.panels"
        if importlib.util.find_spec(module) is not None:
            yield signal.name, importlib.import_module(module)
