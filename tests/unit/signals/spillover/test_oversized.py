"""BlueFS's share of the main device against bluefs_warn_ratio (newer Ceph's
BLUESTORE_BLUEFS_OVERSIZED), at the studies' scale: 318 HDD OSDs of 16 TB with DB devices of 80 to
440 GB (ceph_scale/core/signals/spillover/oversized.py, its check and its status line)."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.spillover.check import check_oversized
from ceph_scale.core.signals.spillover.result import SpilloverResult
from ceph_scale.core.signals.spillover.status import SECTION
from ceph_scale.core.snapshot import BlueFsCounters, FullRatios, Osd, OsdMapPart, PerfPart, Snapshot
from tests.unit.signals.derived import samples
from tests.unit.signals.judged import judged

GB = 10**9
TB = 16 * 10**12  # the 10B cluster's HDDs [004]
DB_SIZES = (80 * GB, 170 * GB, 260 * GB, 350 * GB, 440 * GB)


def study_bluefs(i: int) -> BlueFsCounters:
    """The study's spillover: 296 of 318 OSDs spill, 80+ GB each [004, 000]; WAL on its own 1 GB."""
    db = DB_SIZES[i % 5]
    spilling = i < 296
    used = int(db * 0.9) if spilling else db // 3
    slow = (80 + 3 * (i % 100)) * GB if spilling else 0  # 80 to 377 GB
    return BlueFsCounters(i, db, used, slow, GB // 2)


def snapshot(bluefs, osds=None, t: float = 1000.0) -> Snapshot:
    osds = osds or tuple(Osd(c.osd_id, "hdd", f"h{c.osd_id // 53}", True, True, TB, TB // 2, True, TB) for c in bluefs)
    return Snapshot(
        taken_at=t,
        osd_map=OsdMapPart(t, tuple(osds), FullRatios(0.85, 0.9, 0.95)),
        perf=PerfPart(t, bluefs=tuple(bluefs)),
    )


def derived(snap: Snapshot, th: Thresholds | None = None):
    th = th or Thresholds()
    state = DerivationState(th)
    families = derive(snap, state, th, cluster="study")
    return families, state.results.get(SpilloverResult)


def test_the_studys_spillover_is_not_oversized():
    """296 of 318 spill, each with at most about 400 GB of BlueFS of 16 TB (2.5 %): quiet."""
    bluefs = [study_bluefs(i) for i in range(318)]
    families, spill = derived(snapshot(bluefs))
    assert spill.spillover_osds == 296
    assert spill.oversized == () and samples(families, "ceph_scale_bluefs_oversized_osds") == {(): 0.0}
    assert spill.main_share_unread_osds == 0
    # The highest alone is exported, below the ratio: how close the fleet is.
    highest = min(bluefs, key=lambda c: (-(c.db_used_bytes + c.wal_used_bytes + c.slow_used_bytes), f"osd.{c.osd_id}"))
    share = samples(families, "ceph_scale_bluefs_main_device_share_ratio")
    assert share == {(("ceph_daemon", f"osd.{highest.osd_id}"),): spill.main_share_max.ratio}
    assert 0.02 < spill.main_share_max.ratio < 0.06
    assert check_oversized(spill, Thresholds(), CheckOptions()) is None


def test_past_960_gb_on_a_16_tb_osd_is_oversized_wal_included():
    bluefs = [study_bluefs(i) for i in range(318)]
    db = 440 * GB  # osd.4, osd.9: 440 GB DB devices, full
    bluefs[4] = BlueFsCounters(4, db, db, 521 * GB, 0)  # 961 GB: past 6 % of 16 TB
    bluefs[9] = BlueFsCounters(9, db, db, 520 * GB, 0)  # 960 GB: at the ratio, not past it
    bluefs[14] = BlueFsCounters(14, db, db, 519 * GB, 2 * GB)  # 959 GB + 2 GB of WAL: past
    families, spill = derived(snapshot(bluefs))
    assert [o.ceph_daemon for o in spill.oversized] == ["osd.14", "osd.4"]  # highest first
    assert spill.oversized[0].ratio == 961 * GB / TB
    assert samples(families, "ceph_scale_bluefs_oversized_osds") == {(): 2.0}
    assert samples(families, "ceph_scale_bluefs_main_device_share_ratio") == {
        (("ceph_daemon", "osd.14"),): 961 * GB / TB,
        (("ceph_daemon", "osd.4"),): 961 * GB / TB,
    }
    c = check_oversized(spill, Thresholds(), CheckOptions())
    assert c is not None and c["severity"] == "warning" and c["count"] == 2
    assert c["summary"] == "2 OSD(s) with BlueFS using more than 6.0 % of the main device"
    assert c["detail"][0].startswith("osd.14: BlueFS uses 895.0 GiB (DB + WAL + spilled), 6.0 % of the 14.6 TiB")
    # A ratio raised to 7 % (as `bluestore_bluefs_warn_ratio` may be): none past.
    _, raised = derived(snapshot(bluefs), Thresholds.from_mapping({"bluefs_warn_ratio": 0.07}))
    assert raised.oversized == ()


def test_an_osd_without_a_db_device_is_judged_on_its_bluefs_too():
    """BlueFS on the main device alone: its DB counters are the main device's; Ceph's check counts it."""
    osd = Osd(0, "hdd", "h0", True, True, TB, TB // 2, False, TB)
    _, spill = derived(snapshot([BlueFsCounters(0, TB, 1000 * GB, 0, 0)], osds=(osd,)))
    assert [o.ceph_daemon for o in spill.oversized] == ["osd.0"] and spill.osds == ()


def test_an_osd_whose_share_cannot_be_computed_is_unread_never_0():
    bluefs = [study_bluefs(i) for i in range(4)]
    bluefs[1] = BlueFsCounters(1, 440 * GB, 440 * GB, 900 * GB)  # no WAL counter
    bluefs[2] = BlueFsCounters(2, 440 * GB, 440 * GB, 900 * GB, 0)
    osds = [Osd(c.osd_id, "hdd", "h0", True, True, TB, TB // 2, True, TB) for c in bluefs]
    osds[2] = Osd(2, "hdd", "h0", True, True, TB, TB // 2, True, None)  # no main device size
    families, spill = derived(snapshot(bluefs, osds=osds))
    assert spill.oversized == () and spill.main_share_unread_osds == 2
    assert samples(families, "ceph_scale_bluefs_main_device_share_unread_osds") == {(): 2.0}
    assert all("osd.1" not in str(k) and "osd.2" not in str(k) for k in
               samples(families, "ceph_scale_bluefs_main_device_share_ratio"))  # fmt: skip
    # Without the OSD map, no OSD's main device is known: every one unread.
    _, blind = derived(Snapshot(taken_at=1000.0, perf=PerfPart(1000.0, bluefs=tuple(bluefs))))
    assert blind.main_share_unread_osds == 4 and blind.main_share_max is None


def test_per_osd_series_stay_within_the_top_k_when_the_fleet_is_past():
    """The 10B fleet grown past 6 %: 318 OSDs counted, osd_top_hot series, the check lists them all."""
    bluefs = [BlueFsCounters(i, 440 * GB, 440 * GB, (600 + i) * GB, GB) for i in range(318)]
    families, spill = derived(snapshot(bluefs))
    assert samples(families, "ceph_scale_bluefs_oversized_osds") == {(): 318.0}
    shown = samples(families, "ceph_scale_bluefs_main_device_share_ratio")
    assert len(shown) == Thresholds().osd_top_hot
    assert (("ceph_daemon", "osd.317"),) in shown and (("ceph_daemon", "osd.0"),) not in shown
    c = check_oversized(spill, Thresholds(), CheckOptions())
    assert c["count"] == 318 and c["detail"][-1] == "... and 308 more"


def test_the_status_line_says_how_many_are_past_and_how_many_unread():
    bluefs = [study_bluefs(i) for i in range(10)]
    bluefs[3] = BlueFsCounters(3, 440 * GB, 440 * GB, 600 * GB, GB)
    bluefs[5] = BlueFsCounters(5, 440 * GB, 100 * GB, 0)
    _, spill = derived(snapshot(bluefs))
    section = SECTION.build(judged(spillover=spill), {"SCALE_BLUEFS_OVERSIZED": {}}, 5)
    assert section["lines"][2] == (
        "1 OSD(s) with BlueFS (DB + WAL + spilled) above 6.0 % of the main device; the highest osd.3 at 6.5 %; "
        "1 not known (no main device size or WAL counter)"
    )
    assert "  osd.3: BlueFS 969.5 GiB, 6.5 % of the main device" in section["lines"]
    assert section["data"]["bluefs_oversized_osds"] == 1 and section["status"] == "WARN"
