"""SCALE_DB_SHARE_LOW and SCALE_BLUEFS_SPILL_SOON on a hand-made spillover result
(ceph_scale/core/signals/spillover/check.py)."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.spillover.check import CHECKS, check_db_share, check_spill_soon
from ceph_scale.core.signals.spillover.result import DbOsd, LevelEta, SpilloverResult

GIB = 1024.0**3


def spill(shares=(0.05, 0.01), soon=()) -> SpilloverResult:
    osds = tuple(DbOsd(f"osd.{i}", 0.0, 30 * GIB, 10 * GIB, 28 * GIB, share) for i, share in enumerate(shares))
    below = sum(1 for s in shares if s < 0.04)
    return SpilloverResult(osds, tuple(soon), 0, 0.0, below)


def test_the_folders_three_checks():
    assert [c.code for c in CHECKS] == ["SCALE_DB_SHARE_LOW", "SCALE_BLUEFS_SPILL_SOON", "SCALE_BLUEFS_OVERSIZED"]


def test_db_share_lists_the_osds_below_the_studys_minimum():
    assert check_db_share(spill(shares=(0.05,)), Thresholds(), CheckOptions()) is None
    c = check_db_share(spill(), Thresholds(), CheckOptions())
    assert (
        c is not None
        and c["count"] == 1
        and c["detail"] == ["osd.1: DB device is 1.0 % of the data device (study: at least 4.0 %)"]
    )


def test_spill_soon_within_the_horizon_and_once_forecasts_are_trusted():
    soon = spill(soon=(LevelEta("osd.0", 86400.0), LevelEta("osd.1", 30 * 86400.0)))
    c = check_spill_soon(soon, Thresholds(), CheckOptions())
    assert c is not None and c["count"] == 1 and c["detail"][0].startswith("osd.0: DB use passes the usable 28.0 GiB")
    assert check_spill_soon(soon, Thresholds(), CheckOptions(history_seconds=60)) is None
