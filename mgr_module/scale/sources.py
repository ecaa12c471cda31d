"""The snapshot parts, built from the manager's own data.

Each source is one function of the manager handle (anything with MgrModule's methods:
`get`, `list_servers`, `get_perf_schema`, `get_latest`, `get_ceph_option`, `mon_command`,
`rados`, ...) and returns the part the core's `inputs` parser makes of the same data the
sidecar reads with `ceph` commands. Names are the sidecar's, so `ceph_scale_source_*`
series match between the producers.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import time
from typing import Any, Callable

from ceph_scale.core import inputs, registry, reshard_queue
from ceph_scale.core.bucket_poll import SAVE_EVERY, BucketPoll
from ceph_scale.core.bucket_poll_limits import poll_inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.parse_base import InputError
from ceph_scale.core.saved_rows import UNREADABLE
from ceph_scale.core.snapshot import ReshardPart
from ceph_scale.io import radosgw_admin
from ceph_scale.io.admin_ops import AdminOpsBuckets
from ceph_scale.io.radosgw_admin import RadosgwAdminBuckets

from . import rgw, statestore
from .bucket_ops import QueuedBucketOps
from .collector import source_schedule
from .manager_access import SourceError, _loads, manager_rados, mgr_get
from .module_parsers import fetch_counters, fetch_counters_fallback, osd_df_from_stats
from .options import ModuleSettings

# The sources that read RGW: not collected while rgw_source is off.
RGW_SOURCES = frozenset(s.name for s in registry.SOURCES if s.rgw)


def seconds_left(timeout: float) -> Callable[[], float]:
    """What is left of `timeout` from now, in seconds (never below 0): a collector's deadline."""
    end = time.monotonic() + timeout
    return lambda: max(0.0, end - time.monotonic())


# --- osd_map: osd_map + osd_stats + crush classes + metadata (= osd df / dump / metadata) --


def collect_osd_map(mgr: Any) -> Any:
    t = time.time()
    dump = mgr_get(mgr, "osd_map")
    df = osd_df_from_stats(mgr_get(mgr, "osd_stats"), mgr_get(mgr, "osd_map_crush"), dump)
    metadata = mgr_get(mgr, "osd_metadata")
    return inputs.osd_map_part(df, dump, metadata, t)


# --- capacity: df (detail) + pool layouts -------------------------------------------


def collect_capacity(mgr: Any) -> Any:
    t = time.time()
    return inputs.capacity_part(mgr_get(mgr, "df"), mgr_get(mgr, "osd_map"), t)


# --- pgs -----------------------------------------------------------------------


def collect_pgs(mgr: Any) -> Any:
    t = time.time()
    return inputs.pg_part(mgr_get(mgr, "pg_stats"), t)


# --- health ----------------------------------------------------------------------


def collect_health(mgr: Any) -> Any:
    t = time.time()
    health = mgr_get(mgr, "health")
    if isinstance(health, dict) and "json" in health:  # the manager wraps it: {"json": "<text>"}
        health = _loads(health["json"], "health.json")
    return inputs.health_part(health, t)


# --- perf counters ---------------------------------------------------------------


def counters_reply(mgr: Any) -> tuple[int, str, str]:
    """`ceph scale counters`, the sidecar's perf source from Reef on: the counters as JSON, or
    one line saying what of the manager's data is malformed (not a traceback)."""
    try:
        counters = fetch_counters(mgr)
    except (InputError, SourceError) as e:
        return -errno.EINVAL, "", f"mgr/scale: counters: {e}"
    return 0, json.dumps(counters, sort_keys=True), ""


def collect_perf(mgr: Any) -> Any:
    t = time.time()
    if hasattr(mgr, "get_perf_schema") and hasattr(mgr, "get_latest"):
        counters = fetch_counters(mgr)
    else:
        counters = fetch_counters_fallback(mgr)
    return inputs.perf_part(counters, t)


# --- settings -------------------------------------------------------------------


def _config_command(mgr: Any, prefix: str, who: str, key: str) -> Any:
    ret, out, err = mgr.mon_command({"prefix": prefix, "who": who, "key": key, "format": "json"})
    if ret != 0:
        raise SourceError(f"{prefix} {who} {key}: {err.strip() or f'error {ret}'}")
    return out


def config_get(mgr: Any, who: str, key: str) -> Any:
    out = _config_command(mgr, "config get", who, key)
    return _loads(out, f"config get {who} {key}") if out.strip() else None


def collect_settings(mgr: Any, settings: ModuleSettings) -> Any:
    """Scrub options as this manager uses them (it raises PG_NOT_SCRUBBED with them); the
    RGW options as the RGWs' config section has them and as every running RGW holds them."""
    t = time.time()
    values = {}
    for option in inputs.SETTING_OPTIONS:
        if option.startswith("rgw_"):
            values[option] = config_get(mgr, settings.rgw_config_section, option)
        else:
            values[option] = mgr.get_ceph_option(option)
    names = inputs.rgw_daemon_names(mgr_get(mgr, "service_map"))
    running = inputs.read_rgw_running(names, lambda who, option: config_show(mgr, who, option))
    return inputs.settings_part(values, t, running, len(names))


def config_show(mgr: Any, who: str, key: str) -> Any:
    """A running daemon's value, as the manager holds it from the daemon's reports. A manager
    command: the monitor hands it to the active manager, this one."""
    return _loads(_config_command(mgr, "config show", who, key), f"config show {who} {key}")


# --- RGW: buckets and the reshard queue ------------------------------------------


def rgw_mode(settings: ModuleSettings) -> str:
    """'admin_api', 'radosgw_admin' or 'off' for the bucket stats."""
    mode = settings.rgw_source
    if mode == "auto":
        if settings.rgw_endpoint:
            return "admin_api"
        if rgw.radosgw_admin_available():
            return "radosgw_admin"
        raise rgw.RgwError(
            "no way to read RGW bucket stats: set mgr/scale/rgw_endpoint, rgw_access_key and rgw_secret_key "
            "(Admin Ops API), or install radosgw-admin on the manager hosts"
        )
    return mode


def _radosgw_admin(mgr: Any, args: list[str], timeout: float) -> Any:
    conf = mgr.get_ceph_conf_path() if hasattr(mgr, "get_ceph_conf_path") else ""
    argv = rgw.radosgw_admin_argv(str(conf or ""), str(mgr.get_ceph_option("keyring") or ""), mgr.get_mgr_id(), args)
    return radosgw_admin.run(argv, timeout)


class BucketPolling:
    """The bucket poll (core/bucket_poll.py) inside the manager: over the Admin Ops API or
    radosgw-admin, with the index generations (reshards, Reef+) from the index pools on
    ioctxs kept for the module's life (a stat given up on may still complete). Its state is
    kept in the manager's store every SAVE_EVERY seconds, so a failover goes on from it.
    Every read of a poll (Admin Ops, radosgw-admin, index stats) ends within its timeout."""

    def __init__(self, latest: Callable[[str], Any], thresholds: Callable[[], Thresholds]) -> None:
        self.latest = latest
        self.thresholds = thresholds
        self.poll: BucketPoll | None = None
        self.stored: dict[str, str] = {}
        self.saved_at = 0.0
        self.pools: list[str] = []
        self.exists: Callable[[str], bool] | None = None
        self.exists_error = ""
        self.time_left: Callable[[], float] = lambda: 0.0  # the poll in progress's

    def collect(self, mgr: Any, settings: ModuleSettings, timeout: float | None = None) -> Any:
        """One poll within `timeout` seconds; None: the buckets source's scheduled timeout."""
        t = time.time()
        self.time_left = seconds_left(source_schedule(settings, "buckets").timeout if timeout is None else timeout)
        reader = self._reader(mgr, settings)
        if self.poll is None:
            self.poll = self._restore(mgr)
            self.saved_at = t
        limits, queued = poll_inputs(self.thresholds(), self.latest("settings"), self.latest("reshard"))
        part = self.poll.poll(t, reader, limits, queued, self.time_left, self._exists(mgr))
        if self.exists is None and self.exists_error:  # the index pools could not be opened
            part = dataclasses.replace(part, generation_error=self.exists_error)
        if t - self.saved_at >= SAVE_EVERY:
            self._save(mgr)
            self.saved_at = t
        return part

    def _reader(self, mgr: Any, settings: ModuleSettings) -> Any:
        mode = rgw_mode(settings)
        if mode == "admin_api":
            return AdminOpsBuckets(
                rgw.admin_ops_client(
                    settings.rgw_endpoint,
                    settings.rgw_access_key,
                    settings.rgw_secret_key,
                    settings.rgw_region,
                    settings.rgw_verify_tls,
                    settings.rgw_max_response_mb,
                )
            )
        if mode == "radosgw_admin":
            conf = mgr.get_ceph_conf_path() if hasattr(mgr, "get_ceph_conf_path") else ""
            keyring = str(mgr.get_ceph_option("keyring") or "")
            return RadosgwAdminBuckets(
                lambda args: rgw.radosgw_admin_argv(str(conf or ""), keyring, mgr.get_mgr_id(), args)
            )
        raise rgw.RgwError(f"bucket stats are disabled (mgr/scale/rgw_source is {mode})")

    def _exists(self, mgr: Any) -> Callable[[str], bool] | None:
        pools = rgw.rgw_index_pools([p.get("pool_name", "") for p in mgr_get(mgr, "osd_map").get("pools", [])])
        if pools != self.pools or self.exists is None:
            if isinstance(self.exists, rgw.IndexStats):
                self.exists.retire()
            try:
                self.exists = rgw.rados_exists_checker(manager_rados(mgr), pools, self._probe_timeout)
                self.exists_error = ""
            except Exception as e:  # a pool vanished: the counts fall back to observed changes
                self.exists, self.exists_error = None, f"{type(e).__name__}: {e}"
            self.pools = pools
        return self.exists

    def _probe_timeout(self) -> float:
        """Each stat bounded on its own, and together by half of what the poll has left."""
        return min(rgw.PROBE_TIMEOUT, self.time_left() / 2)

    def _restore(self, mgr: Any) -> BucketPoll:
        try:
            data, problems = statestore.decode_poll(mgr.get_store)
            for p in problems:
                mgr.log.warning("scale: stored bucket poll state: %s", p)
            if data is None:
                return BucketPoll()
            read: list[str] = []
            poll = BucketPoll.from_dict(data, read)
            for p in read:
                mgr.log.warning("scale: stored bucket poll state: %s", p)
            self.stored = dict(mgr.get_store_prefix(statestore.POLL_CHUNK_PREFIX) or {})
            self.stored[statestore.POLL_HEADER_KEY] = mgr.get_store(statestore.POLL_HEADER_KEY) or ""
            mgr.log.info("scale: restored the bucket poll's state of %d bucket(s)", len(poll.entries))
            return poll
        except UNREADABLE as e:
            # Without it every bucket is read again, at the budget's pace: slower, never wrong.
            mgr.log.error("scale: ignoring unreadable bucket poll state: %s: %s", type(e).__name__, e)
            return BucketPoll()

    def _save(self, mgr: Any) -> None:
        assert self.poll is not None
        entries = statestore.encode_poll(self.poll.to_dict())
        for key, value in statestore.plan_writes(self.stored, entries, statestore.POLL_HEADER_KEY):
            mgr.set_store(key, value)
        self.stored = entries


def collect_reshard(
    mgr: Any, settings: ModuleSettings, timeout: float, running: Any = None, ops: QueuedBucketOps | None = None
) -> Any:
    """The queue within `timeout` seconds, with its buckets' own op counters read by `ops`.
    `running`: the settings source's last part, whose running RGWs say how many queue objects
    they write to."""
    part = _reshard_queue(mgr, settings, timeout, running)
    if ops is None:
        return part
    counted, unread = ops.read(mgr, part.entries, part.collected_at)
    return dataclasses.replace(part, bucket_ops=counted, bucket_ops_unread=unread)


def _reshard_queue(mgr: Any, settings: ModuleSettings, timeout: float, running: Any) -> ReshardPart:
    t = time.time()
    time_left = seconds_left(timeout)
    if settings.rgw_source == "radosgw_admin":
        raw = _radosgw_admin(mgr, ["reshard", "list"], timeout)
        return inputs.reshard_part(_loads(raw, "reshard list"), t)
    pools = settings.log_pools()
    if not pools:
        dump = mgr_get(mgr, "osd_map")
        pools = rgw.rgw_log_pools([p.get("pool_name", "") for p in dump.get("pools", [])])
    if not pools:
        raise rgw.RgwError("no RGW log pool (*.rgw.log) in the OSD map; set mgr/scale/rgw_log_pools")
    # `config get` goes through mon_command, which takes no deadline: the runner bounds it.
    num_logs = reshard_queue.queue_log_count(
        running, lambda: config_get(mgr, settings.rgw_config_section, "rgw_reshard_num_logs")
    )
    reader = rgw.rados_omap_reader(manager_rados(mgr), time_left)
    try:
        entries = rgw.read_reshard_queue(reader, pools, num_logs)
    finally:
        reader.close()  # type: ignore[attr-defined]
    return ReshardPart(collected_at=t, entries=tuple(entries))


def source_functions(
    mgr: Any,
    settings: Callable[[], ModuleSettings],
    latest: Callable[[str], Any] = lambda name: None,
    thresholds: Callable[[], Thresholds] = Thresholds,
) -> dict[str, Callable[[float], Any]]:
    """Each source's collector, `collect(timeout)` with the timeout of its schedule; `latest(name)`
    is another source's last good part (the bucket poll reads the reshard queue's and the settings')."""
    buckets = BucketPolling(latest, thresholds)
    queued_ops = QueuedBucketOps()
    # The manager's own data (`get`, the perf counter calls) and `mon_command` (`config get`,
    # `config show`) take no deadline: those collectors leave the timeout to the runner, which
    # gives up on a hung one at its timeout. The RGW reads end at it themselves.
    functions: dict[str, Callable[[float], Any]] = {
        "osd_map": lambda timeout: collect_osd_map(mgr),
        "capacity": lambda timeout: collect_capacity(mgr),
        "perf": lambda timeout: collect_perf(mgr),
        "pgs": lambda timeout: collect_pgs(mgr),
        "settings": lambda timeout: collect_settings(mgr, settings()),
        "health": lambda timeout: collect_health(mgr),
        "buckets": lambda timeout: buckets.collect(mgr, settings(), timeout),
        "reshard": lambda timeout: collect_reshard(mgr, settings(), timeout, latest("settings"), queued_ops),
    }
    if set(functions) != set(registry.SOURCE_NAMES):
        raise RuntimeError(f"module collectors {sorted(functions)} do not match the registry's sources")
    return {name: functions[name] for name in registry.SOURCE_NAMES}
