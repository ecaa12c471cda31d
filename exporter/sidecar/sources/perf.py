from __future__ import annotations

import time
import urllib.request

from ...core import bounded_http, inputs
from .base import Deadline, Source

NO_OSD_COUNTERS = (
    "no per-OSD perf counters at {url} (a manager that just became active has none for a few "
    "seconds; from Reef on, the mgr prometheus module leaves them to the ceph-exporter daemons: "
    "set mgr/prometheus/exclude_perf_counters to false, enable the scale mgr module, or list every "
    "ceph-exporter under perf_urls)"
)


class PerfSource(Source):
    """Per-daemon perf counters (bluefs, osd ops, rgw ops), from the first of these that has them:

    1. `perf_urls`: the ceph-exporter daemons, one per host; every one must answer, or the
       source fails (a host's OSDs silently missing would read as a smaller cluster);
    2. the mgr prometheus module: the manager already gathers every daemon's counters, so
       one HTTP request instead of one command per OSD. From Reef on it leaves them out by
       default (`mgr/prometheus/exclude_perf_counters`), and on Debian 13's Reef it may not load;
    3. the `scale` mgr module's `scale counters` command: the same counters from the manager,
       under the read-only `mgr 'allow r'` cap. (`ceph tell osd.N perf dump` would need
       `osd 'allow *'`: OSDs accept no tell command under a read-only cap.)
    """

    name = field = "perf"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.discovered: str | None = None

    def prometheus_url(self, deadline: Deadline) -> str:
        if self.ctx.mgr_prometheus_url:
            return self.ctx.mgr_prometheus_url
        if self.discovered is None:
            services = self.ceph("mgr services", deadline)
            url = services.get("prometheus") if isinstance(services, dict) else None
            if not url:
                raise RuntimeError("the mgr prometheus module is not enabled")
            self.discovered = url.rstrip("/") + "/metrics"
        return self.discovered

    def read(self, url: str, deadline: Deadline) -> dict[str, dict[str, float]]:
        try:
            text = bounded_http.get(urllib.request.Request(url), deadline.left()).decode("utf-8", errors="replace")
        except OSError as e:
            self.discovered = None  # the active manager may have moved
            raise OSError(f"{url}: {bounded_http.printable(str(e))}") from None
        return inputs.counters_from_prometheus_text(text)

    def from_prometheus_module(self, deadline: Deadline) -> dict[str, dict[str, float]]:
        url = self.prometheus_url(deadline)
        found = self.read(url, deadline)
        if not any(d.startswith("osd.") for d in found):
            raise RuntimeError(NO_OSD_COUNTERS.format(url=url))
        return found

    def from_scale_module(self, deadline: Deadline) -> dict[str, dict[str, float]]:
        found = self.ceph("scale counters", deadline)
        if not isinstance(found, dict):
            raise RuntimeError("`scale counters` did not answer with a JSON object")
        return found

    def collect(self, deadline: Deadline):
        t = time.time()
        if self.ctx.perf_urls:
            counters: dict[str, dict[str, float]] = {}
            for url in self.ctx.perf_urls:
                counters.update(self.read(url, deadline))
            if not any(d.startswith("osd.") for d in counters):
                raise RuntimeError(NO_OSD_COUNTERS.format(url=", ".join(self.ctx.perf_urls)))
            return inputs.perf_part(counters, t)
        try:
            counters = self.from_prometheus_module(deadline)
        except (OSError, RuntimeError, inputs.InputError) as prometheus_failure:
            try:
                counters = self.from_scale_module(deadline)
            except Exception as scale_failure:
                raise RuntimeError(
                    f"no per-OSD perf counters: prometheus module: {prometheus_failure}; scale module: {scale_failure}"
                ) from None
            if not any(d.startswith("osd.") for d in counters):
                raise RuntimeError(f"no per-OSD perf counters: prometheus module: {prometheus_failure}; "
                                   "scale module: none yet") from None  # fmt: skip
        return inputs.perf_part(counters, t)
