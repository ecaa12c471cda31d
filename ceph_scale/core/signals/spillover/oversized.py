"""BlueFS's share of the main device: DB + WAL + spilled bytes over the main device's size, past
bluefs_warn_ratio. Newer Ceph raises BLUESTORE_BLUEFS_OVERSIZED on the same sum against its
bluestore_bluefs_warn_ratio (ceph/ceph PRs 68242, 68243); this computes it on every release from
the counters already read, so the two agree wherever both run.

At billions of objects the RocksDB metadata grows with the objects (the 10B cluster's DB use
passed L4 and spilled L5 [004]): space the main device's data capacity does not show.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...config import Thresholds
from ...families import Family, gauge
from ...snapshot import BlueFsCounters, Osd
from .result import MainShare


def main_share(c: BlueFsCounters, osd: Osd | None) -> MainShare | None:
    """The OSD's share, or None when it cannot be computed: no main device size, no WAL counter."""
    main = osd.data_device_bytes if osd is not None else None
    if not main or main <= 0 or c.wal_used_bytes is None:
        return None
    used = c.db_used_bytes + c.wal_used_bytes + c.slow_used_bytes
    return MainShare(f"osd.{c.osd_id}", used / main, float(used), float(main))


def main_shares(
    counters: Iterable[BlueFsCounters], osds: dict[int, Osd], th: Thresholds
) -> tuple[tuple[MainShare, ...], int, MainShare | None]:
    """(the OSDs past bluefs_warn_ratio, highest first; the OSDs unread; the highest judged)."""
    judged: list[MainShare] = []
    unread = 0
    for c in counters:
        share = main_share(c, osds.get(c.osd_id))
        if share is None:
            unread += 1
        else:
            judged.append(share)
    judged.sort(key=lambda s: (-s.ratio, s.ceph_daemon))
    oversized = tuple(s for s in judged if s.ratio > th.bluefs_warn_ratio)
    return oversized, unread, (judged[0] if judged else None)


def main_share_families(
    oversized: tuple[MainShare, ...], unread: int, highest: MainShare | None, th: Thresholds
) -> list[Family]:
    # Per OSD only those past the ratio, at most osd_top_hot, or the highest alone while none is:
    # at 318 OSDs one series each would be a tenth of the exposition's series budget, the count
    # says how many are past, and the highest says how close the fleet is.
    per_osd = gauge(
        "bluefs_main_device_share_ratio",
        "BlueFS used (DB + WAL + spilled) as a share of the main device: the OSDs past "
        "bluefs_warn_ratio (top-K highest), or the highest OSD while none is.",
        "ceph_daemon",
    )
    shown = oversized[: th.osd_top_hot] if oversized else (highest,) if highest is not None else ()
    for share in shown:
        per_osd.add(share.ratio, share.ceph_daemon)
    return [
        per_osd,
        gauge(
            "bluefs_oversized_osds",
            "OSDs whose BlueFS use (DB + WAL + spilled) exceeds bluefs_warn_ratio of the main device.",
        ).add(len(oversized)),
        gauge(
            "bluefs_main_device_share_unread_osds",
            "OSDs with BlueFS counters whose share of the main device is not known (no main device size "
            "or no WAL counter).",
        ).add(unread),
    ]
