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
