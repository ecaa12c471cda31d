"""The spillover signal (core/signals/spillover/derive.py): the DB's whole RocksDB levels [004] and the
OSDs still ahead of a spill."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.spillover.derive import usable_db_bytes
from tests.unit.signals.derived import samples
from tests.unit.signals.parts import GiB, MiB


def test_level_rule_counts_only_whole_levels():
    th = Thresholds()
    # [004]: L1 256 MB, L2 2.56 GB, L3 25.6 GB, L4 256 GB: an 80 GB DB holds L1..L3 only.
    assert usable_db_bytes(80 * 10**9, th) == 256 * MiB * 111
    assert usable_db_bytes(256 * MiB, th) == 256 * MiB
    assert usable_db_bytes(1 * GiB, th) == 256 * MiB
    assert usable_db_bytes(255 * MiB, th) == 0
    # The remedy [004]: a larger level base uses more of the device.
    big = Thresholds.from_mapping({"rocksdb_level_base_bytes": 700 * MiB})
    assert usable_db_bytes(80 * 10**9, big) == 700 * MiB * 11


def test_the_soonest_spill_list_shows_the_osds_still_ahead_when_half_already_spill():
    """159 of 318 OSDs spill (the study's 10B cluster: 296): the top-K lists the others."""
    from tests.unit.study_snapshot import rich_families

    soonest = samples(rich_families(), "ceph_scale_bluefs_db_next_level_seconds")
    assert len(soonest) == Thresholds().osd_top_hot
    for labels, seconds in soonest.items():
        osd_id = int(dict(labels)["ceph_daemon"].removeprefix("osd."))
        assert seconds > 0 and osd_id % 2 == 0, (labels, seconds)  # odd ids spill in this state


def _derived(counters_of) -> list:
    """The spillover families of the study's 318-OSD snapshot (16 TB data devices), with
    counters_of(osd_id) -> (DB size, DB used, spilled) bytes for each OSD."""
    from dataclasses import replace

    from ceph_scale.core.signals.signal_input import SignalInput
    from ceph_scale.core.signals.spillover.derive import SpilloverState, derive
    from ceph_scale.core.snapshot import BlueFsCounters
    from tests.unit.study_snapshot import study_snapshot

    th = Thresholds()
    snap = study_snapshot(1000.0)
    assert snap.perf is not None

    def counters(i: int) -> BlueFsCounters:
        size, used, spilled = counters_of(i)
        return BlueFsCounters(i, size, used, spilled, 0)

    bluefs = tuple(counters(i) for i in range(318))
    snap = replace(snap, perf=replace(snap.perf, bluefs=bluefs))
    return derive(SignalInput(snap, th, 100_000), SpilloverState(th))


def _spilling(spilled_of) -> dict:
    """The spilled-top family of the study's 318-OSD snapshot, with spilled_of(osd_id) bytes each."""
    families = _derived(lambda i: (440 * 10**9, 100 * 10**9, spilled_of(i)))
    return {
        "top": samples(families, "ceph_scale_bluefs_spilled_top_bytes"),
        "all": samples(families, "ceph_scale_bluefs_spilled_bytes"),
        "count": samples(families, "ceph_scale_bluefs_spillover_osds"),
    }


def test_the_osds_that_spill_most_are_the_top_k_of_296_spilling_of_318():
    """The 10B cluster: 296 of 318 OSDs spill, by different amounts; the alert's annotation reads
    these few series rather than all 318 (the dearest annotation of a fleet's rules)."""
    got = _spilling(lambda i: 0 if i < 22 else (i * 7919 % 997 + 1) * 10**7)
    assert got["count"] == {(): 296}
    spilling = {labels: v for labels, v in got["all"].items() if v > 0}
    largest = sorted(spilling.items(), key=lambda kv: -kv[1])[: Thresholds().osd_top_hot]
    assert len(got["top"]) == Thresholds().osd_top_hot
    assert got["top"] == dict(largest)


def test_no_osd_is_listed_among_those_that_spill_most_while_none_spills():
    got = _spilling(lambda i: 0)
    assert got["count"] == {(): 0}
    assert got["top"] == {}


def test_fewer_spilling_osds_than_k_are_all_listed():
    got = _spilling(lambda i: (i + 1) * 10**9 if i in (5, 300) else 0)
    assert got["top"] == {(("ceph_daemon", "osd.5"),): 6 * 10**9, (("ceph_daemon", "osd.300"),): 301 * 10**9}


def test_the_smallest_db_shares_below_the_minimum_are_the_bottom_k_of_318():
    """DB shares from 1 % to 6.1 % over the 318 OSDs: the alert's annotation reads the K smallest
    of those below bluefs_db_share_min_ratio (4 %) from these few series, not all 318."""
    th = Thresholds()
    # DBs of 160 GB to 973 GB, in no order of OSD id: 1 % to 6.1 % of the 16 TB data devices.
    families = _derived(lambda i: (int((100 + (i * 7919 % 318) * 1.6) * 1.6 * 10**9), 10**9, 0))
    shares = samples(families, "ceph_scale_bluefs_db_share_ratio")
    below = sorted((v, labels) for labels, v in shares.items() if v < th.bluefs_db_share_min_ratio)
    assert len(below) > th.osd_top_hot
    assert samples(families, "ceph_scale_bluefs_db_share_below_min_osds") == {(): len(below)}
    assert samples(families, "ceph_scale_bluefs_db_share_smallest_ratio") == {
        labels: v for v, labels in below[: th.osd_top_hot]
    }
    whole = _derived(lambda i: (10**12, 10**9, 0))
    assert samples(whole, "ceph_scale_bluefs_db_share_smallest_ratio") == {}
