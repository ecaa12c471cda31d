"""One collector per file, node_exporter style: each fills one snapshot part."""

from ceph_scale.core.registry import SOURCE_NAMES

from .base import Deadline, Source, SourceContext
from .buckets import BucketsSource
from .capacity import CapacitySource
from .health import HealthSource
from .osd_map import OsdMapSource
from .perf import PerfSource
from .pgs import PgsSource
from .reshard import ReshardSource
from .settings import SettingsSource

_COLLECTORS: dict[str, type[Source]] = {
    s.name: s
    for s in (
        OsdMapSource,
        CapacitySource,
        PerfSource,
        PgsSource,
        SettingsSource,
        HealthSource,
        BucketsSource,
        ReshardSource,
    )
}
if set(_COLLECTORS) != set(SOURCE_NAMES):
    raise ImportError(f"sidecar collectors {sorted(_COLLECTORS)} do not match the registry's {sorted(SOURCE_NAMES)}")
# In the registry's order, which is the order of `--help` and of the docs.
ALL_SOURCES: tuple[type[Source], ...] = tuple(_COLLECTORS[name] for name in SOURCE_NAMES)

__all__ = ["ALL_SOURCES", "Deadline", "Source", "SourceContext"]
