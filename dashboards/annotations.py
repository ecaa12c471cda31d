"""The boards' annotations: events read from the exporter's own series, each drawn on the panels a
board names (a board's `marks`, dashboards/board_frame.py new_board).

- reshards: completed bucket reshards (the study's "sudden plunges" came with each [000]);
- plunges: S3 throughput plunges, a region each, titled with the likely cause and its evidence
  (the plunge signal, core/signals/plunge/derive.py);
- client_drops: the drops the clients made (ops and demand fell together: no fault, no cause), so
  that a fall on an ops or latency panel that is not a plunge reads as such;
- osds_down: OSDs down and still in, a region while any is (the stall before an OSD is marked
  down, and the degraded state after, are the most common cause of a plunge at scale [004]).
"""

from __future__ import annotations

from dataclasses import dataclass

from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.models import dashboard as dm

from ceph_scale.core.panel_queries import m, rate
from ceph_scale.core.panel_spec import CRIT, HIGH, INFO, PURPLE

from .common import DS


class PrometheusAnnotation(dm.AnnotationQuery):
    """Grafana's Prometheus annotation fields the SDK's model leaves out: the title, text and tags
    made from each series' labels."""

    def __init__(self, title_format: str, text_format: str, tag_keys: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.title_format, self.text_format, self.tag_keys = title_format, text_format, tag_keys

    def to_json(self) -> dict[str, object]:
        payload = super().to_json()
        payload.update(titleFormat=self.title_format, textFormat=self.text_format, tagKeys=self.tag_keys)
        payload["useValueForTime"] = False
        return payload


@dataclass(frozen=True)
class Mark:
    """One kind of annotation: its name in Grafana's annotation list, colour, query, and the
    title, text and tags Grafana makes from each series' labels."""

    name: str
    colour: str
    expr: str
    title: str
    text: str
    tags: str


DOWN_IN = m("ceph_scale_osds", 'state="down_in"')
MARKS: dict[str, Mark] = {
    "reshards": Mark(
        "Reshards",
        HIGH,
        f"max by (cluster) ({rate('ceph_scale_rgw_reshard_events_total', fn='increase')}) > 0",
        "Bucket reshard completed",
        "A bucket's index was resharded (cluster {{cluster}})",
        "cluster",
    ),
    "plunges": Mark(
        "Plunges",
        CRIT,
        f"max by (cluster, cause, evidence) ({m('ceph_scale_s3_plunge_info')})",
        "S3 plunge, likely cause: {{cause}}",
        "{{evidence}} (cluster {{cluster}})",
        "cause",
    ),
    "client_drops": Mark(
        "Client drops",
        INFO,
        f"max by (cluster) ({m('ceph_scale_s3_demand_drop_active')}) > 0",
        "S3 ops fell with the clients' demand: not a plunge",
        "The clients asked less; no cluster fault (cluster {{cluster}})",
        "cluster",
    ),
    "osds_down": Mark(
        "OSDs down",
        PURPLE,
        f"sum by (cluster) (max by (cluster, device_class) ({DOWN_IN})) > 0",
        "OSDs down and in",
        "OSDs down while still in: their PGs' requests stall until marked down, then run degraded "
        "(cluster {{cluster}})",
        "cluster",
    ),
}


class Annotation(cogbuilder.Builder[dm.AnnotationQuery]):
    """One mark on the panels of the given ids only."""

    def __init__(self, mark: Mark, panel_ids: list[int]) -> None:
        self.mark, self.panel_ids = mark, panel_ids

    def build(self) -> PrometheusAnnotation:
        mk = self.mark
        return PrometheusAnnotation(
            mk.title,
            mk.text,
            mk.tags,
            name=mk.name,
            datasource=DS,
            enable=True,
            icon_color=mk.colour,
            expr=mk.expr,
            filter_val=db.AnnotationPanelFilter().ids(self.panel_ids).build(),
        )
