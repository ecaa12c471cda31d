from __future__ import annotations

import time
import urllib.request

from ceph_scale.core import inputs, parse_orch
from ceph_scale.io import bounded_http, discovery

from .base import Deadline, Source

NO_OSD_COUNTERS = (
    "no per-OSD perf counters at {url} (a manager that just became active has none for a few "
    "seconds; from Reef on, the mgr prometheus module leaves them to the ceph-exporter daemons: "
    "set mgr/prometheus/exclude_perf_counters to false, enable the scale mgr module, list every "
    "ceph-exporter under perf_urls, or have them found with perf_discovery: orchestrator under "
    "cephadm, dns:NAME:PORT under Rook)"
)

Counters = dict[str, dict[str, float]]


class PerfSource(Source):
    """Per-daemon perf counters (bluefs, osd ops, rgw ops), from the first of these that has them:

    1. the ceph-exporter daemons (Reef and later, one per host), listed (`perf_urls`) or found
       (`perf_discovery`, io/discovery.py): when set, the only place read. Every one must
       answer, or the source fails naming which (a host's OSDs silently missing would read as
       a smaller cluster);
    2. the mgr prometheus module: the manager already gathers every daemon's counters, so
       one HTTP request instead of one command per OSD. From Reef on it leaves them out by
       default (`mgr/prometheus/exclude_perf_counters`), and on Debian 13's Reef it may not load;
    3. the `scale` mgr module's `scale counters` command: the same counters from the manager,
       under the read-only `mgr 'allow r'` cap. (`ceph tell osd.N perf dump` would need
       `osd 'allow *'`: OSDs accept no tell command under a read-only cap.)
    4. with nothing set, the ceph-exporter daemons the orchestrator lists, if it lists any
       (cephadm deploys them from Reef on).
    """

    name = field = "perf"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.discovered: str | None = None
        self.rule = ctx.perf_discovery
        self.urls = ctx.perf_urls

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

    def read(self, url: str, deadline: Deadline) -> Counters:
        try:
            text = bounded_http.get(urllib.request.Request(url), deadline.left()).decode("utf-8", errors="replace")
        except OSError as e:
            self.discovered = None  # the active manager may have moved
            raise OSError(f"{url}: {bounded_http.printable(str(e))}") from None
        return inputs.counters_from_prometheus_text(text)

    def read_every(self, urls: list[str] | tuple[str, ...], how: str, deadline: Deadline) -> Counters:
        """Every exporter's counters merged; any that does not answer fails the source, naming each."""
        counters: Counters = {}
        failed: list[str] = []
        for url in urls:
            try:
                counters.update(self.read(url, deadline))
            except (OSError, inputs.InputError) as e:
                failed.append(str(e))
        if failed:
            raise OSError(f"{len(failed)} of {len(urls)} ceph-exporters ({how}) failed: {'; '.join(failed)}")
        if not any(d.startswith("osd.") for d in counters):
            raise RuntimeError(NO_OSD_COUNTERS.format(url=", ".join(urls)))
        return counters

    def orchestrator_urls(self, deadline: Deadline) -> dict[str, str]:
        """The ceph-exporters cephadm lists, by daemon name (none: an empty mapping)."""
        # Unfiltered: the CLI client passes arguments by position, and `orch ps`'s first is a host.
        daemons = parse_orch.exporters(self.ceph("orch ps", deadline))
        if not daemons:
            return {}
        hosts = parse_orch.host_addresses(self.ceph("orch host ls", deadline))
        return parse_orch.exporter_urls(daemons, hosts)

    def discover(self, rule: discovery.Discovery, deadline: Deadline) -> Counters:
        if rule.name:
            urls = discovery.resolve(rule, deadline.left())
        else:
            urls = sorted(self.orchestrator_urls(deadline).values())
            if not urls:
                raise RuntimeError("the orchestrator lists no ceph-exporter daemon (`ceph orch ps`)")
        return self.read_every(urls, str(rule), deadline)

    def from_prometheus_module(self, deadline: Deadline) -> Counters:
        url = self.prometheus_url(deadline)
        found = self.read(url, deadline)
        if not any(d.startswith("osd.") for d in found):
            raise RuntimeError(NO_OSD_COUNTERS.format(url=url))
        return found

    def from_scale_module(self, deadline: Deadline) -> Counters:
        found = self.ceph("scale counters", deadline)
        if not isinstance(found, dict):
            raise RuntimeError("`scale counters` did not answer with a JSON object")
        if not any(d.startswith("osd.") for d in found):
            raise RuntimeError("none yet")
        return found

    def from_manager_or_orchestrator(self, deadline: Deadline) -> Counters:
        failures = []
        for what, read in (
            ("prometheus module", self.from_prometheus_module),
            ("scale module", self.from_scale_module),
            ("orchestrator", lambda d: self.discover(discovery.Discovery(), d)),
        ):
            try:
                return read(deadline)
            except Exception as e:
                failures.append(f"{what}: {e}")
        raise RuntimeError(f"no per-OSD perf counters: {'; '.join(failures)}") from None

    def collect(self, deadline: Deadline):
        t = time.time()
        if self.urls:
            counters = self.read_every(self.urls, "perf_urls", deadline)
        elif self.rule is not None:
            counters = self.discover(self.rule, deadline)
        else:
            counters = self.from_manager_or_orchestrator(deadline)
        return inputs.perf_part(counters, t)
