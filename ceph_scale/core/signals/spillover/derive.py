"""BlueFS / RocksDB spillover [004, 000].

RocksDB puts a level on the DB device only if the whole level fits, so the
DB space that is really usable is the sum of the levels that fit, not the
device size: an 80 GB DB with the default 256 MB level base uses 28.4 GB
(L1..L3) and spills L4 to the HDD.
"""

from __future__ import annotations

from ...config import Thresholds
from ...families import Family, gauge
from ...history import KeyedSeries
from ...snapshot import Osd
from ..signal_input import SignalInput
from .oversized import main_share_families, main_shares
from .result import DbOsd, LevelEta, SpilloverResult


def level_sizes(th: Thresholds) -> list[int]:
    return [th.rocksdb_level_base_bytes * th.rocksdb_level_multiplier**i for i in range(th.rocksdb_levels)]


def usable_db_bytes(db_size: int, th: Thresholds) -> int:
    """Sum of the leading levels L1..Lk that fit whole in db_size."""
    usable = 0
    for size in level_sizes(th):
        if usable + size > db_size:
            break
        usable += size
    return usable


class SpilloverState:
    def __init__(self, th: Thresholds) -> None:
        self.db_used = KeyedSeries(th.bluefs_growth_window_seconds, th.forecast_min_span_seconds)
        self.slopes: dict[int, float] = {}  # the last fitted growth of each OSD not spilling (the runway reads it)


def has_dedicated_db(osd: Osd | None, db_total: int) -> bool:
    if osd is not None and osd.dedicated_db is not None:
        return osd.dedicated_db
    # Without metadata, a DB size reported by BlueFS means a DB device.
    return db_total > 0


def derive(given: SignalInput, state: SpilloverState) -> list[Family]:
    snap, th = given.snap, given.th
    families: list[Family] = []
    perf = snap.perf
    if perf is None or not perf.bluefs:
        return families
    osds = {o.osd_id: o for o in snap.osd_map.osds} if snap.osd_map else {}

    spilled = gauge("bluefs_spilled_bytes", "BlueFS bytes spilled over to the slow device.", "ceph_daemon")
    db_size = gauge("bluefs_db_size_bytes", "BlueFS DB device size.", "ceph_daemon")
    db_used = gauge("bluefs_db_used_bytes", "BlueFS bytes used on the DB device.", "ceph_daemon")
    usable = gauge(
        "bluefs_db_usable_bytes", "DB bytes usable by RocksDB: the sum of the levels that fit whole.", "ceph_daemon"
    )
    share = gauge("bluefs_db_share_ratio", "DB device size as a share of the data device (4 % rule).", "ceph_daemon")
    share_smallest = gauge(
        "bluefs_db_share_smallest_ratio",
        "DB device size as a share of the data device, of the top-K smallest below bluefs_db_share_min_ratio.",
        "ceph_daemon",
    )
    spilled_top = gauge(
        "bluefs_spilled_top_bytes",
        "BlueFS bytes spilled over to the slow device, of the top-K OSDs that spill the most.",
        "ceph_daemon",
    )
    next_level = gauge(
        "bluefs_db_next_level_seconds",
        "Predicted seconds until DB use exceeds the usable level size (top-K soonest of the OSDs not spilling).",
        "ceph_daemon",
    )

    dedicated = [(c, osds.get(c.osd_id)) for c in sorted(perf.bluefs, key=lambda c: c.osd_id)]
    dedicated = [(c, osd) for c, osd in dedicated if has_dedicated_db(osd, c.db_total_bytes)]
    state.db_used.update(perf.collected_at, {c.osd_id: c.db_used_bytes + c.slow_used_bytes for c, _ in dedicated})

    state.slopes = {}
    eta: list[tuple[float, str]] = []
    below: list[tuple[float, str]] = []  # the DB shares under bluefs_db_share_min_ratio
    judged: list[DbOsd] = []
    for c, osd in dedicated:
        daemon = f"osd.{c.osd_id}"
        spilled.add(c.slow_used_bytes, daemon)
        db_size.add(c.db_total_bytes, daemon)
        db_used.add(c.db_used_bytes, daemon)
        usable_bytes = usable_db_bytes(c.db_total_bytes, th)
        usable.add(usable_bytes, daemon)
        data_bytes = (osd.data_device_bytes or osd.size_bytes) if osd else 0
        ratio: float | None = None
        if data_bytes > 0 and c.db_total_bytes > 0:
            ratio = c.db_total_bytes / data_bytes
            share.add(ratio, daemon)
            if ratio < th.bluefs_db_share_min_ratio:
                below.append((ratio, daemon))
        judged.append(DbOsd(daemon, c.slow_used_bytes, c.db_total_bytes, c.db_used_bytes, usable_bytes, ratio))
        # Already spilling: counted by bluefs_spillover_osds, not listed here, so that the
        # top-K keeps showing the OSDs still ahead when most spill (296 of 318 at 10B [004]).
        # Past the strict level size but not spilling (Pacific's use_some_extra volume
        # selector lets a level use spare DB space): the next spill comes when the device is full.
        if c.slow_used_bytes > 0:
            continue
        limit = usable_bytes if c.db_used_bytes < usable_bytes else c.db_total_bytes
        slope = state.db_used.slope(c.osd_id)
        if slope is not None:
            state.slopes[c.osd_id] = slope
        if slope is not None and slope > 0:
            eta.append((max(0.0, limit - c.db_used_bytes) / slope, daemon))
    eta.sort()
    # The alerts name the OSDs that spill most, and the smallest DB shares, from these few series,
    # not from every OSD's: at 100 clusters of 318 OSDs, that read was 1.8 ms an alert, every round.
    most = sorted((d for d in judged if d.spilled_bytes > 0), key=lambda d: (-d.spilled_bytes, d.ceph_daemon))
    spill_count, spill_sum = len(most), sum(d.spilled_bytes for d in most)
    for d in most[: th.osd_top_hot]:
        spilled_top.add(d.spilled_bytes, d.ceph_daemon)
    share_below = len(below)
    for ratio_of, daemon in sorted(below)[: th.osd_top_hot]:
        share_smallest.add(ratio_of, daemon)
    for seconds, daemon in eta[: th.osd_top_hot]:
        next_level.add(seconds, daemon)
    db_osds = len(dedicated)
    soonest = tuple(LevelEta(daemon, seconds) for seconds, daemon in eta[: th.osd_top_hot])
    oversized, unread, highest = main_shares(sorted(perf.bluefs, key=lambda c: c.osd_id), osds, th)
    given.judged(
        SpilloverResult(tuple(judged), soonest, spill_count, spill_sum, share_below, oversized, unread, highest)
    )

    families += [spilled, spilled_top, db_size, db_used, usable, share, share_smallest, next_level]
    families.append(gauge("bluefs_spillover_osds", "OSDs with BlueFS bytes on the slow device.").add(spill_count))
    families.append(gauge("cluster_bluefs_spilled_bytes", "BlueFS spilled bytes over all OSDs.").add(spill_sum))
    families.append(gauge("bluefs_db_osds", "OSDs with a dedicated DB device.").add(db_osds))
    families.append(
        gauge("bluefs_db_share_below_min_osds", "OSDs whose DB share is below bluefs_db_share_min_ratio.").add(
            share_below
        )
    )
    families += main_share_families(oversized, unread, highest, th)
    return families
