"""The spillover signal's section of `ceph scale status`: the OSDs that spill, those whose DB
use reaches its usable size soonest, those whose DB device is below the study's share, and those
whose BlueFS passes bluefs_warn_ratio of the main device."""

from __future__ import annotations

from typing import Any

from ..judging import JsonObject, Judged, Raised, StatusSection, count, section, status_word
from ..wording import duration, number, pct, size
from .result import SpilloverResult


def spillover(r: Judged, checks: Raised, top: int) -> JsonObject:
    spill = r.results.get(SpilloverResult)
    if spill is None:
        return section("NO DATA", ["no BlueFS counters yet (source perf)"], {}, [])
    db_osds = count(len(spill.osds))
    spilling = count(spill.spillover_osds)
    total = count(spill.spilled_bytes)
    below = count(spill.share_below_min_osds)
    minimum = r.th.bluefs_db_share_min_ratio
    lines = [
        f"{number(spilling)} of {number(db_osds)} OSDs with a DB device spill onto the slow device, "
        f"{size(total)} in total",
        f"{number(below)} OSD(s) with a DB share below {pct(minimum)} of the data device",
        oversized_line(spill, r.th.bluefs_warn_ratio),
    ]
    offenders: list[dict[str, Any]] = []
    for osd in sorted(spill.osds, key=lambda o: (-o.spilled_bytes, o.ceph_daemon)):
        if osd.spilled_bytes <= 0:
            continue
        offenders.append(
            {
                "ceph_daemon": osd.ceph_daemon,
                "spilled_bytes": float(osd.spilled_bytes),
                "db_size_bytes": float(osd.db_size_bytes),
                "db_used_bytes": float(osd.db_used_bytes),
                "db_usable_bytes": float(osd.db_usable_bytes),
                "db_share_ratio": osd.db_share_ratio,
            }
        )
    for o in offenders[:top]:
        lines.append(
            f"  {o['ceph_daemon']}: {size(o['spilled_bytes'])} spilled; DB {size(o['db_size_bytes'] or 0)}, "
            f"{size(o['db_used_bytes'] or 0)} used, {size(o['db_usable_bytes'] or 0)} usable by whole levels"
        )
    soon = sorted((e.seconds, e.ceph_daemon) for e in spill.next_level if e.seconds > 0)
    for s, d in soon[:top]:
        lines.append(f"  {d}: DB use passes its usable size in {duration(s)}")
    shares = [(o.ceph_daemon, o.db_share_ratio) for o in spill.osds if o.db_share_ratio is not None]
    for d, ratio in sorted(shares, key=lambda kv: kv[1])[:top]:
        if ratio < minimum:
            lines.append(f"  {d}: DB share {pct(ratio)} (< {pct(minimum)})")
    for past in spill.oversized[:top]:
        lines.append(f"  {past.ceph_daemon}: BlueFS {size(past.used_bytes)}, {pct(past.ratio)} of the main device")
    raised = ("SCALE_DB_SHARE_LOW", "SCALE_BLUEFS_SPILL_SOON", "SCALE_BLUEFS_OVERSIZED")
    warn = bool(spilling) or any(code in checks for code in raised)
    data: dict[str, Any] = {
        "db_osds": db_osds,
        "spillover_osds": spilling,
        "spilled_bytes": total,
        "db_share_below_min_osds": below,
        "bluefs_oversized_osds": count(len(spill.oversized)),
        "bluefs_main_device_share_unread_osds": count(spill.main_share_unread_osds),
    }
    return section(status_word(True, warn), lines, data, offenders)


def oversized_line(spill: SpilloverResult, ratio: float) -> str:
    """The OSDs past the ratio, the highest share and the OSDs not judged (never read as 0)."""
    line = (
        f"{number(count(len(spill.oversized)))} OSD(s) with BlueFS (DB + WAL + spilled) above {pct(ratio)} "
        "of the main device"
    )
    if spill.main_share_max is not None:
        line += f"; the highest {spill.main_share_max.ceph_daemon} at {pct(spill.main_share_max.ratio)}"
    if spill.main_share_unread_osds:
        line += f"; {number(count(spill.main_share_unread_osds))} not known (no main device size or WAL counter)"
    return line


SECTION = StatusSection("1. BlueFS / RocksDB spillover", spillover)
