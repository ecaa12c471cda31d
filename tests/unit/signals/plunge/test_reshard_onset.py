"""A reshard in progress long before a drop, its bucket's own ops not counted, against a drop of the
reads too (causes.made_the_drop): the 10B cluster (318 HDD OSDs, 12 RGWs) under the 1B study's
COSBench rounds, with the default thresholds. A reshard blocks writes, not reads [Ceph's dynamic
resharding docs]."""

from __future__ import annotations

import dataclasses

from tests.unit.signals.plunge.test_plunge_study import RESHARDING
from tests.unit.study_rounds import GET, MIXED, PUT, StudyCluster, rounds


def test_an_osd_stall_in_a_mixed_phase_is_blamed_on_it_not_on_a_reshard_in_progress_since_the_get_phase():
    """A bucket resharding since the GET phase began, its own ops not counted and its writes not
    held; 5 minutes into the mixed phase one OSD of 318 stalls every op by 70 %. The reshard was in
    progress for 20 minutes with no drop of its own: a sudden drop now is not its doing (a hold of
    writes would be read as one, detect.held_put). Blamed on the OSD from its mark-down on."""
    c = rounds(StudyCluster(), 1).run(3600, PUT)
    c.resharding = RESHARDING
    c.run(900, GET).run(300, MIXED)
    stall = dataclasses.replace(MIXED, slowdown=1 / 0.3)
    c.run(30, stall)
    c.down(5)
    causes = []
    for _ in range(5):
        c.run(15, stall)
        info = c.info()
        causes.append(info["cause"] if info else None)
    assert causes == ["osds_down"] * 5, causes
    assert c.value("ceph_scale_s3_plunge_cause_score", cause="reshard") is None


def test_a_reshard_that_begins_as_an_osd_stalls_is_still_a_candidate():
    """The quiet case of the rule above: a reshard first seen as the drop begins may have made it;
    more buckets resharding than usual are a candidate beside the OSD, as before."""
    c = rounds(StudyCluster(), 1).run(3600, PUT).run(900, GET).run(300, MIXED)
    c.resharding = RESHARDING
    stall = dataclasses.replace(MIXED, slowdown=1 / 0.3)
    c.run(30, stall)
    c.down(5)
    c.run(15, stall)
    assert c.value("ceph_scale_s3_plunge_cause_score", cause="reshard") is not None
