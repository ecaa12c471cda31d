"""Per-daemon perf counters, from the mgr prometheus module's (or ceph-exporter's) text or the
manager's own counter reads, to the perf part.

Ceph registers each of the sets read here whole: BlueFS's db_total_bytes, db_used_bytes and
slow_used_bytes (and wal_used_bytes beside them); the OSD's op_r and op_w; the RGW's put, get,
put_b and get_b (Tentacle: rgw_op's put_obj_ops, ...). Every OSD and RGW of every captured
release has every counter of its sets (*/mgr_prometheus_metrics*.txt, */osd_perf_dump_osd[01].json,
reef|tentacle/osd_counter_dump_osd0.json). BlueFS registers its set whole when it mounts
(src/os/bluestore/BlueFS.cc, _init_logger), a separate DB device or not. So:

- a daemon without any counter of a set does not have the set (an OSD without BlueFS, an RGW
  whose S3 counters are renamed again): it is left out of that set, never counted as 0;
- an OSD with some counters of a set and not others is a cut or reshaped read, and fails the
  source in one line naming the daemon and the counter. All daemons' counters come in one read,
  so a piece missing is that read's fault, not the daemon's; and the OSD signals add up every
  OSD (the DB runway sums db_used + slow_used), so leaving one OSD out would be as wrong as a 0,
  which would hide osd.0's 295 MB of spillover. The source keeps its last good part and is
  reported failed;
- BlueFS's wal_used_bytes is read where the daemon reports it, and is None where it does not:
  the OSD keeps its DB counters, and only what needs the WAL (its BlueFS share of the main
  device) is unread. Without the DB counters beside it, it is a cut read as above;
- an RGW with some S3 counters and not others is counted among the RGWs without S3 counters,
  which the exposition reports per daemon (ceph_scale_rgw_s3_counters_missing): the same as a
  release that renamed the set, and no op of it is read as 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .parse_base import InputError, _count, _float, refuses_bad_shapes
from .snapshot import BlueFsCounters, OsdOpCounters, PerfPart, RgwOpCounters

# Counter paths as the manager names them, and the mgr prometheus module's
# names for the same counters (`ceph_` + path with "." -> "_").
# Tentacle's RGW counts S3 objects ops in the `rgw_op` set (ceph_rgw_op_put_obj_ops, ...).
RENAMED_COUNTERS = {
    "rgw_op.put_obj_ops": "rgw.put",
    "rgw_op.get_obj_ops": "rgw.get",
    "rgw_op.put_obj_bytes": "rgw.put_b",
    "rgw_op.get_obj_bytes": "rgw.get_b",
    "rgw_op.put_obj_lat.sum": "rgw.put_initial_lat.sum",
    "rgw_op.put_obj_lat.count": "rgw.put_initial_lat.count",
    "rgw_op.get_obj_lat.sum": "rgw.get_initial_lat.sum",
    "rgw_op.get_obj_lat.count": "rgw.get_initial_lat.count",
}
# Averaged counters (seconds summed, ops counted): read as "<path>.sum" and "<path>.count",
# the mgr prometheus module's <name>_sum and <name>_count.
# The OSD's client op latencies (`osd.op_r_latency`, `osd.op_w_latency`): a slow OSD among its
# peers, for the plunge's slow_ops cause (signals/plunge/slow_osds.py).
OSD_LATENCY_SET = ("osd.op_r_latency", "osd.op_w_latency")
AVERAGED_COUNTERS = (
    "rgw.put_initial_lat",
    "rgw.get_initial_lat",
    "rgw_op.put_obj_lat",
    "rgw_op.get_obj_lat",
    *OSD_LATENCY_SET,
)
PERF_COUNTERS = (
    "bluefs.db_total_bytes",
    "bluefs.db_used_bytes",
    "bluefs.slow_used_bytes",
    "bluefs.wal_used_bytes",
    "osd.op_r",
    "osd.op_w",
    "rgw.get",
    "rgw.put",
    "rgw.get_b",
    "rgw.put_b",
    "rgw.req",  # every RGW has it: tells an RGW without S3 op counters from no RGW
    "rgw.failed_req",
    "rgw.qlen",
    "rgw.qactive",
    *(f"{path}.{part}" for path in (*AVERAGED_COUNTERS[:2], *OSD_LATENCY_SET) for part in ("sum", "count")),
    *RENAMED_COUNTERS,
)
_PROM_NAMES = {"ceph_" + c.replace(".", "_"): c for c in PERF_COUNTERS}

# The sets read whole (see the module's doc).
BLUEFS_SET = ("bluefs.db_total_bytes", "bluefs.db_used_bytes", "bluefs.slow_used_bytes")
BLUEFS_WAL = "bluefs.wal_used_bytes"
OSD_OPS_SET = ("osd.op_r", "osd.op_w")
RGW_OPS_SET = ("rgw.put", "rgw.get", "rgw.put_b", "rgw.get_b")


_SAMPLE = re.compile(r"^(ceph_[a-zA-Z0-9_]+)\{(.*)\}\s+(\S+)(?:\s+-?\d+)?$")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)')


@refuses_bad_shapes
def counters_from_prometheus_text(text: str) -> dict[str, dict[str, float]]:
    """daemon -> {counter path: value} from the mgr prometheus module's /metrics.

    Only the few families we need are parsed, line by line: at 318 OSDs the
    module's output is megabytes and a full parse would dominate the cycle.
    RGW daemons are keyed "rgw.<instance_id>", as Pacific labels their counters.
    A malformed or cut line among those families refuses the whole input.
    """
    out: dict[str, dict[str, float]] = {}
    # Every line of the format ends with a newline: a last one without is a body cut short,
    # and a cut inside its number would read as a smaller one.
    last = text[text.rfind("\n") + 1 :]
    if last.split("{", 1)[0].split(" ", 1)[0] in _PROM_NAMES:
        raise InputError(f"mgr prometheus: the last line is cut short (no newline): {last[:80]!r}")
    for lineno, line in enumerate(_lines(text), start=1):
        if not line.startswith("ceph_"):
            continue
        name = line.split("{", 1)[0].split(" ", 1)[0]
        path = _PROM_NAMES.get(name)
        if path is None:
            continue
        m = _SAMPLE.match(line)
        if m is None:
            raise InputError(f"mgr prometheus line {lineno}: not a sample: {line[:80]!r}")
        labels = _labels(m.group(2), lineno)
        # Pacific labels RGW counters with instance_id only; OSDs with ceph_daemon.
        daemon = labels.get("ceph_daemon") or (f"rgw.{labels['instance_id']}" if labels.get("instance_id") else None)
        if daemon is None:
            raise InputError(f"mgr prometheus line {lineno}: {name} has neither ceph_daemon nor instance_id")
        if daemon not in out and len(out) >= MAX_DAEMONS:
            raise InputError(f"mgr prometheus line {lineno}: more than {MAX_DAEMONS} daemons")
        out.setdefault(daemon, {})[path] = _float(m.group(3), f"mgr prometheus line {lineno}")
    return out


# Far past any cluster (the 10B study had 318 OSDs and 12 RGWs): what a response can make us hold
# is then bounded by the families read per daemon, not by how the body is cut into daemons.
MAX_DAEMONS = 100_000
_LINES_CHUNK = 1 << 20


def _lines(text: str) -> Iterator[str]:
    """text.splitlines(), a megabyte at a time: the list of every line of a body of short lines
    cost 20x the body. Pieces end just after a newline, so the lines are splitlines' own."""
    start = 0
    while start < len(text):
        cut = text.find("\n", start + _LINES_CHUNK)
        end = len(text) if cut < 0 else cut + 1
        yield from text[start:end].splitlines()
        start = end


def _labels(text: str, lineno: int) -> dict[str, str]:
    labels: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        m = _LABEL.match(text, pos)
        if m is None or m.end() == pos:
            raise InputError(f"mgr prometheus line {lineno}: bad labels near {text[pos : pos + 40]!r}")
        labels[m.group(1)] = re.sub(r"\\(.)", lambda e: "\n" if e.group(1) == "n" else e.group(1), m.group(2))
        pos = m.end()
    return labels


def _whole_set(c: dict[str, Any], names: tuple[str, ...], daemon: str) -> dict[str, int] | None:
    """The set's counters as counts, or None if the daemon has none of them; some of them only
    is an InputError naming the first one missing."""
    present = [n for n in names if n in c]
    if not present:
        return None
    for n in names:
        if n not in c:
            raise InputError(f"perf[{daemon}].{n}: missing (the daemon has {present[0]})")
    return {n: _count(c[n], f"perf[{daemon}].{n}") for n in names}


def _bluefs(c: dict[str, Any], osd_id: int, daemon: str) -> BlueFsCounters | None:
    """The OSD's BlueFS counters, the WAL's where reported (see the module's doc)."""
    fs = _whole_set(c, BLUEFS_SET, daemon)
    if fs is None:
        if BLUEFS_WAL in c:
            raise InputError(f"perf[{daemon}].{BLUEFS_SET[0]}: missing (the daemon has {BLUEFS_WAL})")
        return None
    wal = _count(c[BLUEFS_WAL], f"perf[{daemon}].{BLUEFS_WAL}") if BLUEFS_WAL in c else None
    return BlueFsCounters(
        osd_id=osd_id,
        db_total_bytes=fs["bluefs.db_total_bytes"],
        db_used_bytes=fs["bluefs.db_used_bytes"],
        slow_used_bytes=fs["bluefs.slow_used_bytes"],
        wal_used_bytes=wal,
    )


def _s3_set(c: dict[str, Any], daemon: str) -> dict[str, int] | None:
    """The RGW's S3 counters, or None if it lacks any of them (reported as missing, see above)."""
    if not all(n in c for n in RGW_OPS_SET):
        return None
    return _whole_set(c, RGW_OPS_SET, daemon)


def _latency(c: dict[str, Any], op: str, daemon: str) -> dict[str, Any]:
    """The op's latency sum and count, both or neither (an RGW read without the averaged counters)."""
    where = f"perf[{daemon}].rgw.{op}_initial_lat"
    parts = {part: c.get(f"rgw.{op}_initial_lat.{part}") for part in ("sum", "count")}
    if parts["sum"] is None and parts["count"] is None:
        return {}
    for part, value in parts.items():
        if value is None:
            raise InputError(f"{where}.{part}: missing (the daemon has the other half)")
    total = _float(parts["sum"], where + ".sum")
    if total < 0:
        raise InputError(f"{where}.sum: expected at least 0, got {total}")
    return {f"{op}_latency_sum": total, f"{op}_latency_count": _count(parts["count"], where + ".count")}


def _osd_latency(c: dict[str, Any], daemon: str) -> dict[str, Any]:
    """The OSD's read and write latencies (seconds summed, ops counted), all four halves or none
    (an OSD read without them: its latency unread, never 0); some only is a cut read."""
    halves = [f"{path}.{part}" for path in OSD_LATENCY_SET for part in ("sum", "count")]
    present = [h for h in halves if h in c]
    if not present:
        return {}
    out: dict[str, Any] = {}
    for op, path in zip(("read", "write"), OSD_LATENCY_SET):
        for part in ("sum", "count"):
            if f"{path}.{part}" not in c:
                raise InputError(f"perf[{daemon}].{path}.{part}: missing (the daemon has {present[0]})")
        seconds = _float(c[f"{path}.sum"], f"perf[{daemon}].{path}.sum")
        if seconds < 0:
            raise InputError(f"perf[{daemon}].{path}.sum: expected at least 0, got {seconds}")
        out[f"{op}_latency_sum"] = seconds
        out[f"{op}_latency_count"] = _count(c[f"{path}.count"], f"perf[{daemon}].{path}.count")
    return out


def _demand(c: dict[str, Any], daemon: str) -> dict[str, Any]:
    """Requests in flight, received and failed, where the RGW reports them (every release here);
    one not reported stays None (unread), never 0."""
    out: dict[str, Any] = {}
    queued = c.get("rgw.qlen", c.get("rgw.qactive"))
    if queued is not None:
        out["in_flight"] = _count(queued, f"perf[{daemon}].rgw.qlen")
    if "rgw.req" in c:
        out["requests"] = _count(c["rgw.req"], f"perf[{daemon}].rgw.req")
    if "rgw.failed_req" in c:
        out["failed_requests"] = _count(c["rgw.failed_req"], f"perf[{daemon}].rgw.failed_req")
    return out


@refuses_bad_shapes
def perf_part(counters: dict[str, dict[str, float]], collected_at: float) -> PerfPart:
    """counters: daemon name ("osd.3", "rgw.<id>") -> {counter path: value}."""
    if not isinstance(counters, dict):
        raise InputError(f"perf: expected an object of daemons, got {type(counters).__name__}")
    bluefs, osd_ops, rgw_ops, rgw_without_ops = [], [], [], []
    for daemon, raw in sorted(counters.items()):
        if not isinstance(raw, dict):
            raise InputError(f"perf[{daemon}]: expected an object of counters, got {type(raw).__name__}")
        c = {RENAMED_COUNTERS.get(path, path): value for path, value in raw.items()}
        kind, _, ident = daemon.partition(".")
        if kind == "osd":
            osd_id = _count(ident, f"perf[{daemon}]")
            fs = _bluefs(c, osd_id, daemon)
            if fs is not None:
                bluefs.append(fs)
            ops = _whole_set(c, OSD_OPS_SET, daemon)
            if ops is not None:
                osd_ops.append(
                    OsdOpCounters(
                        osd_id=osd_id,
                        read_ops=ops["osd.op_r"],
                        write_ops=ops["osd.op_w"],
                        **_osd_latency(c, daemon),
                    )
                )
        elif kind in ("rgw", "client"):
            s3 = _s3_set(c, daemon)
            if s3 is None and ("rgw.req" in c or any(n in c for n in RGW_OPS_SET)):
                rgw_without_ops.append(ident)
            elif s3 is not None:
                rgw_ops.append(
                    RgwOpCounters(
                        instance_id=ident,
                        get_ops=s3["rgw.get"],
                        put_ops=s3["rgw.put"],
                        get_bytes=s3["rgw.get_b"],
                        put_bytes=s3["rgw.put_b"],
                        **_latency(c, "get", daemon),
                        **_latency(c, "put", daemon),
                        **_demand(c, daemon),
                    )
                )
    return PerfPart(
        collected_at=collected_at,
        bluefs=tuple(bluefs),
        osd_ops=tuple(osd_ops),
        rgw_ops=tuple(rgw_ops),
        rgw_without_s3_ops=tuple(rgw_without_ops),
    )
