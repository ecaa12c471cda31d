"""What every source shares: a name, the snapshot field it fills, and a deadline."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ceph_scale.core.config import Thresholds
from ceph_scale.core.registry import SOURCE_BY_NAME
from ceph_scale.io.admin_ops import AdminOps
from ceph_scale.io.discovery import Discovery

from ..ceph_client import CephClient


@dataclass
class SourceContext:
    ceph: CephClient
    rgw: AdminOps | None = None
    mgr_prometheus_url: str | None = None  # None: discovered with `mgr services`
    perf_urls: tuple[str, ...] = ()  # instead of the manager: ceph-exporter endpoints (Reef+)
    perf_discovery: Discovery | None = None  # or found: the orchestrator's, or every address of a name
    radosgw_admin_argv: tuple[str, ...] = ("radosgw-admin",)
    rgw_config_section: str = "client.rgw"
    rgw_log_pool: str = "default.rgw.log"  # the zone's log pool, home of the reshard queue
    rgw_index_pool: str = "default.rgw.buckets.index"  # the zone's index pool: bucket index generations
    reshard_backend: str = "rados"  # or "radosgw-admin"
    thresholds: Thresholds = field(default_factory=Thresholds)
    state_file: str | None = None  # the bucket poll keeps its own next to it (<state_file>.buckets)
    save_state: bool = True  # False: read, never written (a --once run beside a serving exporter)
    # Another source's last good part, by name (the bucket poll reads the reshard queue's and the
    # settings'); set by the collector.
    latest: Callable[[str], Any] = lambda name: None
    # The cluster's fsid as far as known (ceph.conf's, else the OSD map's; "" before either, None
    # where it never will be): the bucket poll's saved state names the cluster it was read from.
    # Set by the collector.
    fsid: Callable[[], str | None] = lambda: None


class Deadline:
    def __init__(self, timeout: float) -> None:
        self.end = time.monotonic() + timeout
        self.timeout = timeout
        # Set by a source before a call that may block past the deadline (an object read
        # the OSDs never answer, as for a user without a cap on the pool since Reef), so a
        # timeout names it.
        self.waiting_on = ""

    def left(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"timed out after {self.timeout:g}s")
        return left


class Source:
    """One collector of one registered source (core/registry.py): its name is the snapshot
    field it fills, its default interval and timeout are the registry's."""

    name = ""
    field = ""  # Snapshot attribute this source fills
    default_interval = 0.0
    default_timeout = 0.0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = SOURCE_BY_NAME.get(cls.name)
        if spec is None:
            raise TypeError(f"{cls.__name__}: source {cls.name!r} is not in core/registry.py SOURCES")
        cls.field = cls.field or spec.name
        cls.default_interval = spec.interval
        cls.default_timeout = spec.timeout

    def __init__(self, ctx: SourceContext) -> None:
        self.ctx = ctx

    def collect(self, deadline: Deadline) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        """At the process's stop: keep what a restart would otherwise have to read again."""

    def ceph(self, prefix: str, deadline: Deadline, **args: Any) -> Any:
        return self.ctx.ceph.command(prefix, deadline.left(), **args)
