from __future__ import annotations

import time
import urllib.request

from ...core import inputs
from .base import Deadline, Source

NO_OSD_COUNTERS = (
    "no per-OSD perf counters at {url} (a manager that just became active has none for a few "
    "seconds; from Reef on, the mgr prometheus module leaves them to the ceph-exporter daemons: "
    "set mgr/prometheus/exclude_perf_counters to false, or list every ceph-exporter under perf_urls)"
)


class PerfSource(Source):
    """Per-daemon perf counters (bluefs, osd ops, rgw ops) from the mgr prometheus module.

    The manager already gathers every daemon's counters; reading them there
    costs one HTTP request instead of one command per OSD. Where the manager no
    longer exports them (Reef+ by default), `perf_urls` names the ceph-exporter
    daemons instead, one per host; every one must answer, or the source fails
    (a host's OSDs silently missing would read as a smaller cluster).
    """

    name = field = "perf"
    default_interval = 15.0

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.discovered: str | None = None

    def urls(self, deadline: Deadline) -> tuple[str, ...]:
        if self.ctx.perf_urls:
            return self.ctx.perf_urls
        if self.ctx.mgr_prometheus_url:
            return (self.ctx.mgr_prometheus_url,)
        if self.discovered is None:
            services = self.ceph("mgr services", deadline)
            url = services.get("prometheus") if isinstance(services, dict) else None
            if not url:
                raise RuntimeError("the mgr prometheus module is not enabled (ceph mgr module enable prometheus)")
            self.discovered = url.rstrip("/") + "/metrics"
        return (self.discovered,)

    def collect(self, deadline: Deadline):
        urls = self.urls(deadline)
        t = time.time()
        counters: dict[str, dict[str, float]] = {}
        for url in urls:
            try:
                with urllib.request.urlopen(url, timeout=deadline.left()) as response:
                    text = response.read().decode("utf-8", errors="replace")
            except OSError as e:
                self.discovered = None  # the active manager may have moved
                raise OSError(f"{url}: {e}") from None
            found = inputs.counters_from_prometheus_text(text)
            if not any(d.startswith("osd.") for d in found) and not self.ctx.perf_urls:
                raise RuntimeError(NO_OSD_COUNTERS.format(url=url))
            counters.update(found)
        if not any(d.startswith("osd.") for d in counters):
            raise RuntimeError(NO_OSD_COUNTERS.format(url=", ".join(urls)))
        return inputs.perf_part(counters, t)
