"""Load per HDD OSD against the measured baseline [004, 000, 003].

The study measured 60 PUT / 90 GET 64 KB S3 ops/s and 34 / 37 MB/s for
128 MB objects per HDD OSD with 4 % flash for the DB. A mixed load is the sum
of its shares: put/60 + get/90 = 1 is the baseline's saturation point.
"""

from __future__ import annotations

from ...config import Thresholds
from ...families import Family, counter, gauge
from ...history import KeyedRates
from ...snapshot import Snapshot
from ..signal_input import SignalInput
from .hdd_hotspots import hdd_hotspots
from .result import Hotspot, LoadResult, PerHddLoad


class LoadState:
    def __init__(self, th: Thresholds) -> None:
        self.rgw = KeyedRates(th.rate_window_seconds)
        self.osd = KeyedRates(th.rate_window_seconds)


def hdd_osds(snap: Snapshot, th: Thresholds) -> int | None:
    if snap.osd_map is None:
        return None
    classes = th.hdd_classes
    return sum(1 for o in snap.osd_map.osds if o.up and o.in_cluster and o.device_class in classes)


def derive(given: SignalInput, state: LoadState) -> list[Family]:
    snap, th = given.snap, given.th
    perf = snap.perf
    if perf is None:
        return []
    families: list[Family] = []
    per_hdd_load: PerHddLoad | None = None
    s3_ops: tuple[float, float] | None = None
    osd_rates = False
    hotspots: tuple[Hotspot, ...] = ()
    hot_count = 0
    hdds = hdd_osds(snap, th)
    if hdds is not None:
        families.append(gauge("hdd_osds", "Up and in HDD OSDs: the denominator of the per-HDD load.").add(hdds))
        # The classes counted as HDDs, for the rules that pick HDD OSDs by device_class.
        classes = gauge(
            "hdd_device_class", "1 for each device class counted as HDD (hdd_device_classes).", "device_class"
        )
        for name in sorted(th.hdd_classes):
            classes.add(1, name)
        families.append(classes)

    families.append(
        gauge(
            "rgw_s3_counters_missing",
            "RGW daemons that report perf counters but none of the S3 op counters the load signal reads.",
        ).add(len(perf.rgw_without_s3_ops))
    )
    if perf.rgw_ops:
        ops_total = counter("rgw_s3_ops", "S3 operations from RGW perf counters.", "instance_id", "op")
        bytes_total = counter("rgw_s3_bytes", "S3 bytes from RGW perf counters.", "instance_id", "op")
        raw: dict[object, float] = {}
        for r in sorted(perf.rgw_ops, key=lambda r: r.instance_id):
            for op, ops, nbytes in (("put", r.put_ops, r.put_bytes), ("get", r.get_ops, r.get_bytes)):
                ops_total.add(ops, r.instance_id, op)
                bytes_total.add(nbytes, r.instance_id, op)
                raw[(r.instance_id, op, "ops")] = ops
                raw[(r.instance_id, op, "bytes")] = nbytes
        state.rgw.update(perf.collected_at, raw)
        families += [ops_total, bytes_total]
        families.append(gauge("rgw_instances", "RGW daemons reporting counters.").add(len(perf.rgw_ops)))

        rates: dict[tuple[str, str], float] = {}
        for instance_id, op, unit in (k for k in raw if isinstance(k, tuple)):
            rate = state.rgw.rate((instance_id, op, unit))
            if rate is not None:
                rates[(op, unit)] = rates.get((op, unit), 0.0) + rate
        if rates:
            ops_rate = gauge("s3_ops_per_second", "Cluster S3 op rate.", "op")
            bytes_rate = gauge("s3_bytes_per_second", "Cluster S3 byte rate.", "op")
            for op in ("put", "get"):
                ops_rate.add(rates.get((op, "ops"), 0.0), op)
                bytes_rate.add(rates.get((op, "bytes"), 0.0), op)
            families += [ops_rate, bytes_rate]
            s3_ops = (rates.get(("put", "ops"), 0.0), rates.get(("get", "ops"), 0.0))
            if hdds:
                put = rates.get(("put", "ops"), 0.0) / hdds
                get = rates.get(("get", "ops"), 0.0) / hdds
                ratio = gauge("s3_load_ratio", "Per-HDD-OSD S3 load / the study's baseline.", "op", "unit")
                mixed = put / th.baseline_put_ops_per_hdd + get / th.baseline_get_ops_per_hdd
                ratio.add(put / th.baseline_put_ops_per_hdd, "put", "ops")
                ratio.add(get / th.baseline_get_ops_per_hdd, "get", "ops")
                ratio.add(rates.get(("put", "bytes"), 0.0) / hdds / th.baseline_put_bytes_per_hdd, "put", "bytes")
                ratio.add(rates.get(("get", "bytes"), 0.0) / hdds / th.baseline_get_bytes_per_hdd, "get", "bytes")
                ratio.add(mixed, "mixed", "ops")
                headroom = gauge(
                    "s3_ops_headroom_per_second",
                    "Ops/s of this op the cluster can add before the mixed load reaches the baseline.",
                    "op",
                )
                headroom.add((1 - mixed) * th.baseline_put_ops_per_hdd * hdds, "put")
                headroom.add((1 - mixed) * th.baseline_get_ops_per_hdd * hdds, "get")
                per_hdd_load = PerHddLoad(
                    put,
                    get,
                    put / th.baseline_put_ops_per_hdd,
                    get / th.baseline_get_ops_per_hdd,
                    mixed,
                    rates.get(("put", "bytes"), 0.0) / hdds / th.baseline_put_bytes_per_hdd,
                    rates.get(("get", "bytes"), 0.0) / hdds / th.baseline_get_bytes_per_hdd,
                    (1 - mixed) * th.baseline_put_ops_per_hdd * hdds,
                    (1 - mixed) * th.baseline_get_ops_per_hdd * hdds,
                )
                families += [ratio, headroom]

    if perf.osd_ops:
        raw = {}
        for c in perf.osd_ops:
            raw[(c.osd_id, "read")] = c.read_ops
            raw[(c.osd_id, "write")] = c.write_ops
        state.osd.update(perf.collected_at, raw)
        per_osd = gauge("osd_ops_per_second", "Client op rate of each OSD.", "ceph_daemon", "op")
        all_ops: dict[int, float] = {}
        for c in sorted(perf.osd_ops, key=lambda c: c.osd_id):
            daemon = f"osd.{c.osd_id}"
            read, write = state.osd.rate((c.osd_id, "read")), state.osd.rate((c.osd_id, "write"))
            if read is None or write is None:
                continue
            per_osd.add(read, daemon, "read").add(write, daemon, "write")
            osd_rates = True
            all_ops[c.osd_id] = read + write
        families.append(per_osd)
        load = per_hdd_load.mixed_ratio if per_hdd_load is not None else None
        hot_families, hotspots, hot_count = hdd_hotspots(snap, th, all_ops, load)
        families += hot_families
    given.judged(LoadResult(hdds, s3_ops, per_hdd_load, osd_rates, hotspots, hot_count))
    return families
