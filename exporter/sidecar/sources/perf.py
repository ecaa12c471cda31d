from __future__ import annotations

import time
import urllib.request

from ...core import inputs
from .base import Deadline, Source


class PerfSource(Source):
    """Per-daemon perf counters (bluefs, osd ops, rgw ops) from the mgr prometheus module.

    The manager already gathers every daemon's counters; reading them there
    costs one HTTP request instead of one command per OSD.
    """

    name = field = "perf"
    default_interval = 15.0

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.discovered: str | None = None

    def url(self, deadline: Deadline) -> str:
        if self.ctx.mgr_prometheus_url:
            return self.ctx.mgr_prometheus_url
        if self.discovered is None:
            services = self.ceph("mgr services", deadline)
            url = services.get("prometheus") if isinstance(services, dict) else None
            if not url:
                raise RuntimeError("the mgr prometheus module is not enabled (ceph mgr module enable prometheus)")
            self.discovered = url.rstrip("/") + "/metrics"
        return self.discovered

    def collect(self, deadline: Deadline):
        url = self.url(deadline)
        t = time.time()
        try:
            with urllib.request.urlopen(url, timeout=deadline.left()) as response:
                text = response.read().decode("utf-8", errors="replace")
        except OSError:
            self.discovered = None  # the active manager may have moved
            raise
        return inputs.perf_part(inputs.counters_from_prometheus_text(text), t)
