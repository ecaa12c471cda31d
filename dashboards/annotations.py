"""The boards' annotations: events read from the exporter's own series, each drawn on the panels a
board names (a board's `marks`, dashboards/board_frame.py new_board). Each signal's panels.py
offers its own (its `MARKS`: reshards, plunges and client drops, OSDs down and in).
"""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.models import dashboard as dm

from ceph_scale.core.panel_spec import Mark

from .common import DS, signal_panels


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


def folder_marks() -> dict[str, Mark]:
    """The marks the signals' own panels.py offer (their `MARKS`), in registry order."""
    marks: dict[str, Mark] = {}
    for name, panels in signal_panels():
        for mark_name, mark in getattr(panels, "MARKS", {}).items():
            if mark_name in marks:
                raise ValueError(f"signal {name} offers the mark {mark_name!r} another signal offers")
            marks[mark_name] = mark
    return marks


MARKS = folder_marks()


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
