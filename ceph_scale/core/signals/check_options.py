"""The options of the signals' health checks, each declared once with its default, meaning and
range: the module offers them under these names (mgr_module/scale/options.py reads this table)
and every check (`<name>/check.py`) reads them from here."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from ..config import Thresholds


def _option(default: float, doc: str, minimum: float, maximum: float) -> Any:
    return dataclasses.field(default=default, metadata={"doc": doc, "min": minimum, "max": maximum})


@dataclass(frozen=True)
class CheckOptions:
    fill_headroom_warn_margin: float = _option(
        0.05,
        "SCALE_FILL_HEADROOM when the cluster, a pool or an OSD is within this ratio of fill_target_ratio.",
        0.0,
        1.0,
    )
    fill_forecast_warn_days: float = _option(
        7.0,
        "SCALE_FILL_HEADROOM when the cluster or a pool is predicted to reach fill_target_ratio within this many days.",
        0.0,
        3650.0,
    )
    load_warn_ratio: float = _option(
        1.0,
        "SCALE_LOAD_ABOVE_BASELINE when the S3 load per HDD OSD exceeds this multiple of the study's baseline.",
        0.01,
        1000.0,
    )
    scrub_backlog_warn_days: float = _option(
        7.0,
        "SCALE_SCRUB_BACKLOG when the overdue PGs take longer than this to clear at the current scrub rate.",
        0.0,
        3650.0,
    )
    bluefs_spill_warn_days: float = _option(
        7.0,
        "SCALE_BLUEFS_SPILL_SOON when an OSD's DB use is predicted to pass its usable size within this many days.",
        0.0,
        3650.0,
    )
    reshard_forecast_warn_days: float = _option(
        7.0,
        "SCALE_RESHARD_SOON when a bucket is predicted to reach the per-shard object limit within this many days.",
        0.0,
        3650.0,
    )
    health_detail_max: int = _option(10, "Detail lines per health check (worst first).", 1, 1000)
    # How long the producer has fitted its own history: not an option but a fact of the run.
    history_seconds: float = dataclasses.field(default=math.inf, metadata={"option": False})

    def forecasts(self, th: Thresholds) -> bool:
        """Whether the forecasts (time to the fill target, to the next RocksDB level, to a reshard)
        are trusted: once the producer's own history spans what a forecast is fitted over."""
        return self.history_seconds >= th.forecast_min_span_seconds

    @classmethod
    def from_settings(cls, settings: Any, history_seconds: float = math.inf) -> CheckOptions:
        """The options as the module's settings hold them (the attributes of the same names)."""
        return cls(history_seconds=history_seconds, **{f.name: getattr(settings, f.name) for f in OPTION_FIELDS})


OPTION_FIELDS: tuple[dataclasses.Field[Any], ...] = tuple(
    f for f in dataclasses.fields(CheckOptions) if f.metadata.get("option", True)
)
