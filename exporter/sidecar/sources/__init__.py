"""One collector per file, node_exporter style: each fills one snapshot part."""

from .base import Deadline, Source, SourceContext
from .buckets import BucketsSource
from .capacity import CapacitySource
from .health import HealthSource
from .osd_map import OsdMapSource
from .perf import PerfSource
from .pgs import PgsSource
from .reshard import ReshardSource
from .settings import SettingsSource

ALL_SOURCES: tuple[type[Source], ...] = (
    OsdMapSource,
    CapacitySource,
    PerfSource,
    PgsSource,
    SettingsSource,
    HealthSource,
    BucketsSource,
    ReshardSource,
)

__all__ = ["ALL_SOURCES", "Deadline", "Source", "SourceContext"]
