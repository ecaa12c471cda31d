"""ceph-scale-exporter: the sidecar exporter's command line."""

from __future__ import annotations

import argparse
import ctypes
import faulthandler
import logging
import os
import signal
import sys
import threading
from typing import Any, NoReturn

from ceph_scale.core.advisor import render, whatif_render
from ceph_scale.core.config import SETTINGS, ConfigError
from ceph_scale.core.derive import VERSION
from ceph_scale.core.registry import SOURCES
from ceph_scale.core.signals.runway.derive import RunwayState
from ceph_scale.io import discovery
from ceph_scale.io.admin_ops import AdminOps

from . import artefacts, config_file
from .ceph_client import CephCommandError, RadosClient, make_client
from .collector import Collector, schedule_for
from .gc_tuning import tune_collector
from .http_server import serve
from .sources import ALL_SOURCES, SourceContext
from .startup_checks import (
    StartupNotes,
    check_ceph_conf,
    check_endpoint,
    check_keyring,
    check_state_file,
    conf_fsid,
    endpoint_warnings,
    load_rgw_credentials,
)

log = logging.getLogger("ceph_scale_exporter")
DEFAULT_CEPH_CONF = "/etc/ceph/ceph.conf"
# From SIGTERM to exit at most: within the 10 s a container runtime waits before SIGKILL.
STOP_GRACE_SECONDS = 5.0

EPILOG = """
Secrets: the RGW admin keys are read from --rgw-credentials-file (JSON with
"access_key" and "secret_key") or from the environment variables
CEPH_SCALE_RGW_ACCESS_KEY and CEPH_SCALE_RGW_SECRET_KEY; never from the
command line, where every user of the host could read them.

Sources and their defaults (interval / timeout, seconds):
{sources}
Thresholds (set under `thresholds:` in --config.file; origins in docs/configuration.md):
{thresholds}
"""


class Parser(argparse.ArgumentParser):
    """A bad argument is one line naming it, not the whole usage: the usage is --help's."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    sources = ""
    for s in SOURCES:
        sources += f"  {s.name:<10} {s.interval:>5g} / {min(s.timeout, s.interval):g}  {s.doc}\n"
    thresholds = "".join(f"  {s.name} = {s.default}: {s.doc}\n" for s in SETTINGS)
    p = Parser(
        prog="ceph-scale-exporter",
        description="Exports the signals Ceph's scale tests found decisive at billions of objects "
        "(BlueFS spillover, fill to 80 %, RGW resharding, scrub backlog, load per HDD OSD).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG.format(sources=sources, thresholds=thresholds),
    )
    p.add_argument("--web.listen-address", dest="listen", default=":9928", help="address to serve on (default :9928)")
    p.add_argument(
        "--web.telemetry-path", dest="path", default="/metrics", help="path of the metrics (default /metrics)"
    )
    p.add_argument(
        "--web.config.file", dest="web_config", default=None, help="exporter-toolkit web config (TLS, basic auth)"
    )
    p.add_argument("--config.file", dest="config_file", default=None, help="YAML file: thresholds, sources, RGW")
    p.add_argument(
        "--ceph-conf",
        default=None,
        help=f"ceph.conf (default $CEPH_CONF or {DEFAULT_CEPH_CONF})",
    )
    p.add_argument(
        "--ceph-user",
        default=os.environ.get("CEPH_SCALE_USER", "admin"),
        help="cephx user, e.g. ceph-scale for client.ceph-scale (default $CEPH_SCALE_USER or admin); "
        "the keyring is looked up as Ceph does unless --ceph-keyring is given",
    )
    p.add_argument("--ceph-keyring", default=None, help="keyring file (default: Ceph's usual lookup)")
    p.add_argument(
        "--ceph-client",
        choices=("auto", "rados", "cli"),
        default="auto",
        help="librados or the ceph CLI (default auto)",
    )
    p.add_argument(
        "--perf-discovery",
        default=None,
        help="find the ceph-exporters: orchestrator (cephadm's `orch ps`) or dns:NAME:PORT (every address of NAME)",
    )
    p.add_argument("--rgw-endpoint", default=None, help="RGW Admin Ops endpoint, e.g. http://rgw:8080")
    p.add_argument("--rgw-credentials-file", default=None, help="JSON file with access_key and secret_key")
    p.add_argument("--rgw-region", default=None, help="SigV4 region (default us-east-1)")
    p.add_argument(
        "--radosgw-admin",
        default="radosgw-admin",
        help="radosgw-admin command, when rgw.reshard_backend is radosgw-admin (split on spaces)",
    )
    p.add_argument("--cluster-label", default=None, help="value of the cluster label (default: the fsid)")
    p.add_argument(
        "--state-file", default=None, help="where reshard counting state survives restarts (one serving exporter each)"
    )
    p.add_argument("--disable-source", action="append", default=[], help="do not run this source (repeatable)")
    p.add_argument("--once", action="store_true", help="collect every source once, print the metrics, exit")
    p.add_argument(
        "--plan",
        nargs="?",
        const="text",
        choices=("text", "json"),
        default=None,
        help="with --once: print, instead of the metrics, when each study limit will be reached and what to add "
        "to hold the target date (docs/runway.md); its growth comes from --state-file's history: the serving "
        "exporter's (read, left as it is), or its own from cron",
    )
    p.add_argument(
        "--size-for",
        metavar="SPEC",
        default=None,
        help="size a cluster not yet built and exit, no Ceph needed (docs/sizing.md): SPEC is key=value,... e.g. "
        "objects=1e9,object_size=64KiB,ec=4+2,put_ops=6000,get_ops=9000,growth=5e6,hdd_size=16TB,hdds_per_host=16; "
        "thresholds from --config.file; --plan json for JSON",
    )
    p.add_argument("--log.level", dest="log_level", default="info", choices=("debug", "info", "warning", "error"))
    p.add_argument("--version", action="version", version=f"ceph-scale-exporter {VERSION}")
    p.add_argument(
        "--artefacts",
        action="store_true",
        help="print where the rules, dashboards and ceph-mgr module that ship with this exporter are, and exit",
    )
    return p


def build_collector(args: argparse.Namespace, notes: StartupNotes) -> Collector:
    names = {s.name for s in ALL_SOURCES}
    cfg = config_file.parse(read_config_file(args.config_file), names)
    if args.perf_discovery is not None:
        cfg.perf_discovery = discovery.parse_rule(args.perf_discovery, "--perf-discovery")
        config_file.check_one_perf_setting(cfg, "--perf-discovery")
    for name in args.disable_source:
        if name not in names:
            raise ConfigError(f"--disable-source {name}: unknown source; known: {', '.join(sorted(names))}")
        cfg.sources.setdefault(name, {})["enabled"] = False
    label_setting = "--cluster-label" if args.cluster_label is not None else "cluster_label"
    cluster_label = args.cluster_label if args.cluster_label is not None else cfg.cluster_label
    if cluster_label is not None and not cluster_label.strip():
        raise ConfigError(f"{label_setting}: expected a non-empty value (default: the cluster fsid)")
    for setting, value in (("--ceph-user", args.ceph_user), ("--radosgw-admin", args.radosgw_admin)):
        if not value.strip():
            raise ConfigError(f"{setting}: expected a non-empty value")
    if not args.path.startswith("/"):
        raise ConfigError(f"--web.telemetry-path {args.path!r}: expected a path starting with /")
    state_file = args.state_file or cfg.state_file
    state_setting = "--state-file" if args.state_file else "state_file"
    # A --once run on a file a serving exporter holds reads it and leaves it as it is.
    save_state = check_state_file(state_file, state_setting, notes, once=args.once) if state_file else False
    rgw = build_admin_ops(args, cfg, notes)

    named = "--ceph-conf" if args.ceph_conf else ("$CEPH_CONF" if os.environ.get("CEPH_CONF") else None)
    conf_path = args.ceph_conf or os.environ.get("CEPH_CONF") or DEFAULT_CEPH_CONF
    conf = check_ceph_conf(conf_path, named, notes)
    check_keyring(args.ceph_keyring, args.ceph_user, conf or {}, notes)
    fsid = conf_fsid(conf or {})
    if cluster_label is None and not fsid:
        notes.warnings.append(
            f"cluster label unknown until the osd_map source reads the fsid ({conf_path} names none): "
            "the first series lack it; set --cluster-label or cluster_label"
        )
    ceph = make_client(args.ceph_client, conf_path if conf is not None else None, args.ceph_user, args.ceph_keyring)
    ctx = SourceContext(
        ceph=ceph,
        rgw=rgw,
        mgr_prometheus_url=cfg.mgr_prometheus_url,
        perf_urls=cfg.perf_urls,
        perf_discovery=cfg.perf_discovery,
        radosgw_admin_argv=tuple(args.radosgw_admin.split()),
        rgw_config_section=cfg.rgw_config_section,
        rgw_log_pool=str(cfg.rgw.get("log_pool", "default.rgw.log")),
        rgw_index_pool=str(cfg.rgw.get("index_pool", "default.rgw.buckets.index")),
        reshard_backend=str(
            cfg.rgw.get("reshard_backend", "rados" if isinstance(ceph, RadosClient) else "radosgw-admin")
        ),
        thresholds=cfg.thresholds,
        state_file=state_file,
        save_state=save_state,
    )
    specs = []
    for cls in ALL_SOURCES:
        opts = cfg.sources.get(cls.name, {})
        if not opts.get("enabled", True):
            continue
        if cls.name == "buckets" and rgw is None:
            log.info("source buckets disabled: no RGW endpoint/credentials")
            continue
        source = cls(ctx)
        specs.append((source, schedule_for(source, opts)))
    # Nothing here talks to Ceph: the server is up (and a bad web config refused) before the
    # first command, which may wait on an unreachable monitor. The series carry the cluster
    # label from the first exposition: the operator's, else the fsid ceph.conf names, else the
    # one the OSD map names once the osd_map source has read it.
    collector = Collector(
        specs, cfg.thresholds, cluster_label=cluster_label, state_file=state_file, fsid=fsid, save_state=save_state
    )
    ctx.latest = collector.latest_part
    ctx.fsid = collector.cluster_fsid
    return collector


def read_config_file(path: str | None) -> Any:
    if not path:
        return None
    import yaml  # python3-yaml

    try:
        with open(path, encoding="utf-8") as f:
            return yaml.safe_load(f)
    except OSError as e:
        raise ConfigError(f"--config.file {path}: cannot be read: {e.strerror or type(e).__name__}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        said = " ".join(str(e).split())
        raise ConfigError(f"--config.file {path}: invalid YAML: {said}") from None


def build_admin_ops(args: argparse.Namespace, cfg: config_file.FileConfig, notes: StartupNotes) -> AdminOps | None:
    """The RGW Admin Ops client, when an endpoint is set; its keys are then required."""
    endpoint_setting = "--rgw-endpoint" if args.rgw_endpoint else "rgw.endpoint"
    endpoint = args.rgw_endpoint or cfg.rgw.get("endpoint")
    creds_setting = "--rgw-credentials-file" if args.rgw_credentials_file else "rgw.credentials_file"
    creds_file = args.rgw_credentials_file or cfg.rgw.get("credentials_file")
    if not endpoint:
        if creds_file:
            raise ConfigError(f"{creds_setting} is set but no RGW endpoint: set --rgw-endpoint or rgw.endpoint")
        return None
    check_endpoint(endpoint, endpoint_setting)
    creds = load_rgw_credentials(creds_file, creds_setting, notes)
    if creds is None:
        raise ConfigError(
            f"{endpoint_setting} is set but no credentials: use --rgw-credentials-file or the environment"
        )
    verify_tls = bool(cfg.rgw.get("verify_tls", True))
    endpoint_warnings(endpoint, verify_tls, notes)
    return AdminOps(
        endpoint,
        creds.access_key,
        creds.secret_key,
        region=args.rgw_region or cfg.rgw.get("region", "us-east-1"),
        verify_tls=verify_tls,
        **({"max_response_mb": cfg.rgw["max_response_mb"]} if "max_response_mb" in cfg.rgw else {}),
    )


class NoPlan(Exception):
    """The derivation gave no advice to print."""


def plan_text(collector: Collector, form: str) -> str:
    """The advice of the derivation just made, as `ceph scale plan` prints it."""
    advice = collector.state.of(RunwayState).advice
    if advice is None:  # the runway signal failed: said, never a plan of nothing
        raise NoPlan(f"no plan: {collector.state.signal_errors.get('runway', 'the runway signal gave none')}")
    cluster = next((f.samples[0][1][0] for f in collector.families if f.label_names[:1] == ("cluster",)), "")
    return render.as_json(advice, cluster, pretty=True) + "\n" if form == "json" else render.as_text(advice, cluster)


def size_for(args: argparse.Namespace) -> int:
    """`--size-for`: the sizing of a cluster not yet built, with the thresholds of --config.file."""
    try:
        if args.once:
            raise ConfigError("--size-for needs no cluster: not with --once")
        cfg = config_file.parse(read_config_file(args.config_file), {s.name for s in ALL_SOURCES})
        sys.stdout.write(
            whatif_render.report(args.size_for, cfg.thresholds, "json-pretty" if args.plan == "json" else "text")
        )
    except ConfigError as e:
        print(f"ceph-scale-exporter: {e}", file=sys.stderr)
        return 2
    return 0


def bound_malloc_arenas() -> None:
    """glibc makes a malloc arena per thread that allocates at once, up to 8 per core, and keeps
    them: a monitor outage's librados threads grew RSS 19 % in an hour (45 to 61 MB) that 2 arenas
    hold flat. MALLOC_ARENA_MAX, when set, is the operator's."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return
    try:
        ctypes.CDLL(None).mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):  # not glibc: its allocator has no such pools
        pass


def exit_within_grace(status: int) -> threading.Timer:
    """Armed before anything that could block (a log line into a full pipe, a stuck call at exit,
    a librados shutdown): the process is gone within STOP_GRACE_SECONDS, with `status`, whatever
    it was doing."""
    grace = threading.Timer(STOP_GRACE_SECONDS, os._exit, args=(status,))
    grace.daemon = True
    grace.start()
    return grace


def main(argv: list[str] | None = None) -> int:
    bound_malloc_arenas()
    tune_collector()
    args = build_parser().parse_args(argv)
    if args.size_for is not None:
        return size_for(args)
    if args.artefacts:
        try:
            sys.stdout.write(artefacts.describe())
        except FileNotFoundError as e:
            print(f"ceph-scale-exporter: {e}", file=sys.stderr)
            return 1
        return 0
    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        format="ts=%(asctime)s level=%(levelname)s logger=%(name)s msg=%(message)s",
    )
    notes = StartupNotes()
    try:
        if args.plan and not args.once:
            raise ConfigError("--plan goes with --once")
        collector = build_collector(args, notes)
        if args.once:
            for line in notes.warnings:
                log.warning("%s", line)
            status = 1  # until the output is written
            try:
                body = collector.collect_all_once()
                sys.stdout.buffer.write(plan_text(collector, args.plan).encode() if args.plan else body)
                sys.stdout.flush()
                status = 0
            finally:
                # Its sources closed (librados shut down) before the interpreter exits, as when
                # serving: a --once run that exited with its librados handle open aborted now and
                # then after printing everything ("terminate called without an active exception",
                # exit -6: librados' threads alive as the process tore down).
                grace = exit_within_grace(status)
                collector.stop()
                grace.cancel()
            return status
        server = serve(args.listen, args.path, collector, args.web_config)
    except (ConfigError, OSError, CephCommandError) as e:
        log.error("cannot start: %s", e)
        return 2
    except NoPlan as e:
        log.error("%s", e)
        return 1
    # Said once everything is known to start: a refusal is then the only line.
    for line in notes.warnings:
        log.warning("%s", line)
    done = threading.Event()

    def stop(_signum, _frame):
        done.set()

    # Before "serving" is said, so that a stop sent on that line is heard.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # As a Go exporter on SIGQUIT: every thread's stack on stderr (it runs on), to see what a hang waits on.
    faulthandler.register(signal.SIGQUIT, all_threads=True)
    collector.start()
    log.info("serving %s on %s (version %s)", args.path, args.listen, VERSION)
    # Woken every half second: Python runs a signal's handler only in the main thread, and a
    # SIGTERM the kernel hands to a worker thread does not wake a main thread blocked in an
    # untimed wait (seen: still waiting 17 s after SIGTERM, its handler never run).
    while not done.wait(0.5):
        pass
    exit_within_grace(0)
    log.info("shutting down")
    collector.stop()
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
