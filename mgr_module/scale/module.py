"""ceph-mgr module `scale`: the ceph-scale-signals metrics from inside the manager.

Thin: the snapshot parts come from `sources`, the signals from the shared derivation core
(`ceph_scale.core`, the same code the sidecar runs, so names and labels match exactly),
the health checks from `checks`, the `ceph scale status` text from `report`.

No `from __future__ import annotations` here: CLICommand reads the annotations of the
command handlers as types.
"""

import errno
import json
import socket
import threading
import time
from typing import Any, Optional

from mgr_module import MgrModule, MgrStandbyModule, Option

from .cli import command_registry, read_command

_IMPORT_ERROR = ""
try:
    import prometheus_client  # noqa: F401  (python3-prometheus-client, used by the core's exposition)
except ImportError:
    _IMPORT_ERROR = "python3-prometheus-client is not installed: apt install python3-prometheus-client"

try:
    from ceph_scale.core.config import ConfigError, Thresholds

    from . import statestore
    from .options import (
        ModuleSettings,
        all_specs,
        read_module_settings,
        read_thresholds,
    )
except ImportError as e:  # the bundled core is missing: a copy of the module made without install.sh
    _IMPORT_ERROR = _IMPORT_ERROR or f"the bundled derivation core does not import ({e}); reinstall with install.sh"
    all_specs = None  # type: ignore[assignment]

if not _IMPORT_ERROR:
    from ceph_scale.core.derive import DerivationState
    from ceph_scale.core.saved_rows import UNREADABLE
    from ceph_scale.core.signals.reshard.derive import ReshardState
    from ceph_scale.core.signals.runway.derive import RunwayState

    from .bucket_ops import bucket_ops_reply
    from .checks import CheckOptions, bad_config_check, health_checks, signal_failed_check
    from .collector import Collector, source_schedule
    from .plan_command import plan_reply, size_reply
    from .report import build_report, render_json, render_text
    from .rgw import with_stored_keys
    from .sources import RGW_SOURCES, counters_reply, manager_rados, source_functions
    from .webserver import INDEX, MetricsServer, server_addr_port, url_for

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
TEXT = "text/plain; charset=utf-8"


def _options() -> list[Option]:
    if all_specs is None:
        return []
    return [Option(**spec.as_kwargs()) for spec in all_specs()]


class Module(MgrModule):
    MODULE_OPTIONS = _options()
    NOTIFY_TYPES: list[Any] = []  # no notify(): the module polls on its own schedule
    if command_registry is not None:  # Tentacle: the module names its own command registry
        CLICommand = command_registry

    @staticmethod
    def can_run() -> tuple[bool, str]:
        if _IMPORT_ERROR:
            return False, _IMPORT_ERROR
        return True, ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._config_lock = threading.Lock()
        self.thresholds = Thresholds()
        self.settings = ModuleSettings()
        self.config_errors: list[str] = []
        self.server_error = ""
        self._uri = ""
        self.collector: Optional[Collector] = None
        self.server: Optional[MetricsServer] = None
        self._checks: dict[str, dict] = {}
        self._published: Optional[str] = None
        self._writer = statestore.StateWriter(self.set_store, self.log)
        self._saved_marker: Optional[str] = None
        self._fsid = ""
        self._history_since = time.time()  # forecasts are trusted after enough own history
        self._events_logged: Optional[int] = None

    # --- configuration --------------------------------------------------------

    def _load_config(self) -> None:
        """Read every option; a bad one is rejected with the previous values kept, nothing half-applied."""
        errors = []
        thresholds = settings = None
        try:
            thresholds = read_thresholds(self.get_module_option)
        except ConfigError as e:
            errors.append(f"thresholds rejected, all previous options stay in force: {e}")
        try:
            settings = read_module_settings(self.get_module_option)
        except ConfigError as e:
            errors.append(f"module options rejected, all previous options stay in force: {e}")
        if errors:
            # One `ceph config set` batch may touch both groups: refuse it whole.
            thresholds = settings = None
        with self._config_lock:
            if thresholds is not None:
                if thresholds != self.thresholds:
                    self._history_since = time.time()  # the core restarts its windows
                    self.log.info("scale: thresholds in force: %s", json.dumps(thresholds.as_dict(), sort_keys=True))
                self.thresholds = thresholds
            if settings is not None:
                self.settings = settings
            if errors != self.config_errors:
                for error in errors:
                    self.log.error("scale: %s", error)
                if not errors and self.config_errors:
                    self.log.info("scale: configuration accepted again")
            self.config_errors = errors
        self._publish_health()

    def config_notify(self) -> None:
        self._load_config()
        if self.collector is not None:
            self.collector.poke()

    def _rgw_settings(self) -> "ModuleSettings":
        return with_stored_keys(self.settings, self.get_store)

    def _source_enabled(self, name: str) -> bool:
        return not (name in RGW_SOURCES and self.settings.rgw_source == "off")

    def _cluster_label(self) -> Optional[str]:
        return self.settings.cluster_label or None

    # --- health ---------------------------------------------------------------

    def _publish_health(self) -> None:
        checks = dict(self._checks)
        if self.config_errors:
            checks["SCALE_BAD_CONFIG"] = bad_config_check(self.config_errors)
        if self.collector is not None and self.collector.state.signal_errors:
            checks["SCALE_SIGNAL_FAILED"] = signal_failed_check(self.collector.state.signal_errors)
        if self.server_error:
            checks["SCALE_METRICS_SERVER_DOWN"] = {
                "severity": "warning",
                "summary": "mgr/scale cannot serve /metrics",
                "count": 1,
                "detail": [self.server_error],
            }
        text = json.dumps(checks, sort_keys=True)
        if text != self._published:
            self.set_health_checks(checks)
            self._published = text

    def _judge(self) -> dict:
        """The SCALE_* checks on the signals' judgements of the collector's last derivation."""
        collector = self.collector  # set by serve() before the collection starts
        if collector is None or not collector.families:
            return {}
        opts = CheckOptions.from_settings(self.settings, time.time() - self._history_since)
        return health_checks(collector.state.results, collector.state.thresholds, opts)

    def _after_derive(self, families: list, snap: Any) -> None:
        self._checks = self._judge() if self.settings.enable_health_checks else {}
        self._publish_health()
        self._save_state()

    # --- durable state ----------------------------------------------------------

    def _restore_state(self, collector: "Collector") -> None:
        try:
            data, problems = statestore.decode(self.get_store)
            for p in problems:
                self.log.warning("scale: stored state: %s", p)
            if data is None:
                self.log.info("scale: no stored state; reshard events count from 0")
                return
            for p in collector.state.restore(data):
                self.log.warning("scale: stored state: %s", p)
        except UNREADABLE as e:
            # A broken state must not stop monitoring; the counter then restarts, which
            # Prometheus' rate() handles as a counter reset.
            self.log.error("scale: ignoring unreadable stored state: %s: %s", type(e).__name__, e)
            return
        stored = {statestore.HEADER_KEY: self.get_store(statestore.HEADER_KEY) or ""}
        try:
            stored.update(self.get_store_prefix(statestore.CHUNK_PREFIX) or {})
        except Exception:  # get_store_prefix is older than Pacific, but be safe
            pass
        self._writer.stored = stored
        self._saved_marker = statestore.without_clock(collector.state.durable())
        r = collector.state.of(ReshardState)
        self.log.info("scale: restored state: %d reshard event(s), %d bucket(s) known", r.events, len(r.buckets))

    def _save_state(self) -> None:
        if self.collector is None:
            return
        events = self.collector.state.of(ReshardState).events
        if self._events_logged is not None and events != self._events_logged:
            self.log.info(
                "scale: %d completed bucket reshard(s) seen in all (+%d)", events, events - self._events_logged
            )
        self._events_logged = events
        durable = self.collector.state.durable()
        marker = statestore.without_clock(durable)
        if marker == self._saved_marker:
            return
        self._writer.submit(statestore.encode(durable))
        self._saved_marker = marker

    # --- serving ----------------------------------------------------------------

    def _respond(self, path: str) -> tuple[int, str, bytes]:
        if path in ("/", "/index.html"):
            return 200, "text/html; charset=utf-8", INDEX
        if path != "/metrics":
            return 404, TEXT, b"not found: try /metrics\n"
        collector = self.collector
        if collector is None or not collector.exposition:
            return 503, TEXT, b"mgr/scale: no data collected yet\n"
        return 200, CONTENT_TYPE, collector.exposition

    def _ensure_server(self) -> None:
        assert self.server is not None
        try:
            addr, port = server_addr_port(self.get_localized_module_option)
            error = self.server.ensure(addr, port) or ""
        except ConfigError as e:
            error = f"server_addr/server_port rejected: {e}"
        if not error:
            host = self.get_mgr_ip() if hasattr(self, "get_mgr_ip") else socket.gethostname()
            uri = url_for(addr, port, host)
            if uri != self._uri:
                self.set_uri(uri)  # the standby names it in its 503
                self._uri = uri
        if error != self.server_error:
            if error:
                self.log.error("scale: %s", error)
            self.server_error = error
            self._publish_health()

    def _fsid_value(self) -> str:
        if not self._fsid:
            try:
                self._fsid = str(self.get("mon_map").get("fsid", ""))
            except Exception:
                pass
        return self._fsid

    def make_collector(self) -> "Collector":
        """The sources on the manager's data, wired to this module's options and hooks."""
        collector: Optional[Collector] = None

        def latest(name: str) -> Any:
            runner = collector.runners.get(name) if collector is not None else None
            return runner.part if runner is not None else None

        collector = Collector(
            source_functions(self, self._rgw_settings, latest, lambda: self.thresholds),
            lambda name: source_schedule(self.settings, name),
            lambda: self.thresholds,
            self._cluster_label,
            self._fsid_value,
            self._after_derive,
            self.log,
            enabled=self._source_enabled,
        )
        return collector

    def serve(self) -> None:
        self._load_config()
        self._history_since = time.time()
        collector = self.make_collector()
        self._restore_state(collector)
        self.collector = collector
        self.server = MetricsServer(self._respond, self.log)
        self._ensure_server()
        try:  # made here, before the collection threads could race to make it
            manager_rados(self)
        except Exception as e:  # noqa: BLE001 - the sources that need it fail, saying why
            self.log.error("scale: librados handle: %s", e)
        collector.start()
        self.log.info("scale: collecting every %ds", self.settings.interval)
        while not self._stop.wait(5.0):
            self._ensure_server()
        collector.stop()
        if not self._writer.flush(5.0):
            self.log.warning("scale: the last state was not written: the store did not answer within 5 s")
        self.server.stop()
        self.log.info("scale: stopped")
        self._stopped.set()

    def shutdown(self) -> None:
        self._stop.set()
        # Let serve() stop the collection threads before the base class shuts down the
        # librados handle a reshard-queue read may be using.
        if self.collector is not None:
            self._stopped.wait(15.0)
        super().shutdown()

    # --- commands -------------------------------------------------------------

    @read_command("scale status")
    def scale_status(self, format: Optional[str] = None) -> tuple[int, str, str]:
        """Report the five scale signals, worst offenders first (--format json for machines)"""
        collector = self.collector
        families = list(collector.families) if collector is not None else []
        sources = collector.snapshot.sources if collector is not None and collector.snapshot is not None else ()
        # Judged here, not taken from the published checks: with enable_health_checks off
        # those are empty, and the report must still say WARN where a condition holds.
        checks = self._judge()
        if self.config_errors:
            checks["SCALE_BAD_CONFIG"] = bad_config_check(self.config_errors)
        if collector is not None and collector.state.signal_errors:
            checks["SCALE_SIGNAL_FAILED"] = signal_failed_check(collector.state.signal_errors)
        state = collector.state if collector is not None else DerivationState(self.thresholds)
        opts = CheckOptions.from_settings(self.settings, time.time() - self._history_since)
        report = build_report(families, state.results, state.thresholds, checks=checks, sources=sources, opts=opts)
        if format in ("json", "json-pretty"):
            return 0, render_json(report, pretty=format == "json-pretty"), ""
        if collector is None or not families:
            return 0, render_text(report), "mgr/scale: no data collected yet"
        return 0, render_text(report), ""

    @read_command("scale plan")
    def scale_plan(self, format: Optional[str] = None, size_for: Optional[str] = None) -> tuple[int, str, str]:
        """When each study limit will be reached at its fitted growth, and what to add to hold the
        target date with a failure domain lost (--format json for machines); --size-for
        objects=1e9,object_size=64KiB,ec=4+2,... sizes a cluster not yet built (docs/sizing.md)"""
        if size_for is not None:
            return size_reply(size_for, self.thresholds, format)
        collector = self.collector
        latest = collector.state.of(RunwayState).advice if collector is not None else None
        if latest is None:
            return -errno.EAGAIN, "", "mgr/scale: no data collected yet"
        return plan_reply(latest, self._cluster_label() or self._fsid_value(), format)

    @read_command("scale counters")
    def scale_counters(self) -> tuple[int, str, str]:
        """The per-daemon perf counters the scale signals use, as JSON (for the sidecar where the
        prometheus module does not export them)"""
        return counters_reply(self)

    @read_command("scale bucket-ops")
    def scale_bucket_ops(self, buckets: str) -> tuple[int, str, str]:
        """Each RGW's PUT and GET counts of the buckets named (B1,B2,...), from their per-bucket
        counters, as JSON (for the sidecar's reshard source)"""
        return bucket_ops_reply(self, buckets)


class StandbyModule(MgrStandbyModule):
    """On a standby manager: answer 503 with the active manager's address, like prometheus' standby."""

    MODULE_OPTIONS = Module.MODULE_OPTIONS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stop = threading.Event()
        self.server_error = ""

    def _respond(self, path: str) -> tuple[int, str, bytes]:
        active = ""
        try:
            active = self.get_active_uri() or ""
        except Exception:
            pass
        where = f"the active manager serves {active}metrics" if active else "no active manager has published one yet"
        text = f"this manager (mgr.{self.get_mgr_id()}) is standby for mgr/scale; {where}\n"
        return 503, TEXT, text.encode()

    def serve(self) -> None:
        server = MetricsServer(self._respond, self.log)
        while True:
            try:
                addr, port = server_addr_port(self.get_localized_module_option)
                error = server.ensure(addr, port) or ""
            except Exception as e:
                error = str(e)
            if error != self.server_error:
                if error:
                    self.log.error("scale (standby): %s", error)
                self.server_error = error
            if self._stop.wait(5.0):
                break
        server.stop()

    def shutdown(self) -> None:
        self._stop.set()
