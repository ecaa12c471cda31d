"""Each op judged in its own phase, at the studies' scale: the 10B cluster (318 HDD OSDs, 12 RGWs)
under the 1B study's COSBench rounds (tests/unit/study_rounds.py), default thresholds.

The GET phase is 15 minutes of the 30-minute baseline, so the baseline's median never holds a
majority of it: each op keeps a level per phase, from the windows that asked it as much
(levels.phases), and is judged against the phase that asks it as much as now. A plunge in the
mixed phase ends with its fault, not with the phase: the GETs there are a little down against a
baseline of the GET phase's end, and so is their demand (detect.still_down)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.unit.signals.plunge.test_plunge_study import plunge_spans
from tests.unit.study_rounds import GET, MIXED, PUT, Load, StudyCluster, after_rounds


def into_get_phase(seconds: float) -> StudyCluster:
    """A round, the next PUT hour, and `seconds` of its GET phase."""
    return after_rounds(1).run(3600, PUT).run(seconds, GET)


def node_dies(c: StudyCluster, load: Load, seconds: float, kept: float) -> float:
    """A node of 53 OSDs dies under `load`: every request to it waits until its OSDs are marked
    down (15 s, a twentieth of the ops complete), then `kept` of the ops for `seconds` [004]. When
    it died."""
    fault = c.t
    c.run(15, dataclasses.replace(load, slowdown=1 / 0.05))
    c.down(*range(53))
    c.run(seconds, dataclasses.replace(load, slowdown=1 / kept))
    return fault


@pytest.mark.parametrize("kept", [0.70, 0.55])
def test_gets_slower_within_their_own_phase_are_one_plunge_over_with_the_fault(kept):
    """Every GET slower for 5 minutes, 5 minutes into the GET phase (a deep-scrub storm, a slow
    disk): 30 % and 45 % fewer GETs, the workers all still busy. Against a median of the GET and
    mixed phases (19,103 GET/s where the phase ran 28,800), neither was a drop."""
    c = into_get_phase(300)
    fault = c.t
    c.run(300, dataclasses.replace(GET, slowdown=1 / kept)).run(300, GET).run(900, MIXED)
    spans = plunge_spans(c)
    assert len(spans) == 1, spans
    on, off = spans[0]
    assert fault < on <= fault + 60 and fault + 300 < off <= fault + 300 + 120, (on - fault, off - fault)
    assert c.plunges() == {"none": 1}


def test_gets_within_the_threshold_of_their_phase_are_no_plunge():
    """The quiet case beside it: the same GET phase 10 % slower for 5 minutes."""
    c = into_get_phase(300).run(300, dataclasses.replace(GET, slowdown=1 / 0.9)).run(300, GET).run(900, MIXED)
    assert c.plunge_windows() == 0
    assert c.plunges() == {}


def test_a_node_dying_in_the_get_phase_is_a_plunge_blamed_on_its_osds():
    """A node of 53 OSDs dies 5 minutes into the GET phase: every request to it waits until its
    OSDs are marked down, then 25 % fewer GETs [004]."""
    fault = node_dies(c := into_get_phase(300), GET, 585, 0.75)
    spans = plunge_spans(c)
    assert spans and fault < spans[0][0] <= fault + 60, spans
    assert c.plunges() == {"osds_down": 1}


def test_a_stall_in_the_mixed_phase_ends_with_the_stall_not_with_the_phase():
    """One OSD stalls every op for 20 seconds in the middle of the mixed phase, then is marked down.
    The mixed load's GETs read 11 % below a baseline of the GET phase's end, with their demand:
    that is the clients' doing, and the plunge ends once the stall's windows have passed."""
    c = after_rounds(1).run(3600, PUT).run(900, GET).run(450, MIXED)
    fault = c.t
    c.run(15, dataclasses.replace(MIXED, slowdown=1 / 0.3))
    c.down(5)
    c.run(435, dataclasses.replace(MIXED, slowdown=1.01))
    spans = plunge_spans(c)
    assert len(spans) == 1, spans
    on, off = spans[0]
    assert fault < on <= fault + 60 and off <= fault + 180, (on - fault, off - fault)
    assert c.plunges() == {"osds_down": 1}


def test_the_put_hour_after_a_node_died_in_the_get_phase_is_blamed_on_its_osds_not_on_nothing():
    """The PUTs of the next hour read 21 % below their own level, the PUT hour before the node died
    [004]. The OSDs have been down for 25 minutes by then, most of a baseline: judged against the
    state before that level, not the baseline's, they are still what changed."""
    node_dies(c := into_get_phase(300), GET, 585, 0.75)
    c.run(900, dataclasses.replace(MIXED, slowdown=1 / 0.78))
    c.run(3600, dataclasses.replace(PUT, slowdown=1 / 0.79))
    causes = {cause for _, active, cause in c.seen if active}
    assert causes == {"osds_down"}, causes
    assert set(c.plunges()) == {"osds_down"}, c.plunges()


def test_a_node_dying_as_the_mixed_phase_begins_is_a_plunge_through_the_phase():
    """The node dies at the switch from GET to the mixed load. Against the baseline alone, the
    mixed phase's faulted windows became their own baseline within minutes: a plunge of 30 s, then
    nothing for 15 minutes of -25 % GETs. Against the last round's mixed phase, the drop lasts."""
    fault = node_dies(c := after_rounds(1).run(3600, PUT).run(900, GET), MIXED, 885, 0.76)
    spans = plunge_spans(c)
    assert spans and fault < spans[0][0] <= fault + 60, spans
    assert spans[0][1] >= fault + 840, [(a - fault, b - fault) for a, b in spans]
    assert set(c.plunges()) == {"osds_down"}, c.plunges()


def test_a_mixed_phase_as_fast_as_the_last_is_no_plunge_and_a_slower_one_is():
    """The quiet case beside it: rounds whose mixed phases run alike are no plunge, while a mixed
    phase a third slower than the last one's, asked as much, is one."""
    c = after_rounds(2)
    assert c.plunge_windows() == 0 and c.plunges() == {}
    c.run(3600, PUT).run(900, GET).run(900, dataclasses.replace(MIXED, slowdown=1.5))
    assert c.plunges() == {"none": 1}, c.plunges()


def test_an_osd_down_since_before_the_level_that_judged_the_drop_is_not_its_cause():
    """osd.7 goes down in the PUT hour and the ops hold; 35 minutes on, 5 minutes into the GET
    phase, the GETs fall 30 % with no cause the exporter reads. They are judged against the GET
    phase's own level, whose windows ran with osd.7 down: it is the usual state of that level, not
    what changed. (The GETs' other level, last round's mixed phase, is older than the OSD's
    failure: the usual state before it would name the OSD.)"""
    c = after_rounds(1).run(1800, PUT)
    c.down(7)
    c.run(1800, PUT).run(300, GET)
    fault = c.t
    c.run(300, dataclasses.replace(GET, slowdown=1 / 0.70)).run(300, GET)
    spans = plunge_spans(c)
    assert len(spans) == 1 and fault < spans[0][0] <= fault + 60, [(a - fault, b - fault) for a, b in spans]
    assert c.plunges() == {"none": 1}, c.plunges()


def test_an_osd_down_since_within_the_level_that_judged_the_drop_is_its_cause():
    """The firing case beside it: osd.7 goes down as the GETs fall, 5 minutes into the GET phase."""
    c = into_get_phase(300)
    fault = c.t
    c.down(7)
    c.run(300, dataclasses.replace(GET, slowdown=1 / 0.70)).run(300, GET)
    spans = plunge_spans(c)
    assert len(spans) == 1 and fault < spans[0][0] <= fault + 60, [(a - fault, b - fault) for a, b in spans]
    assert c.plunges() == {"osds_down": 1}, c.plunges()


@pytest.mark.parametrize("seconds", [600, 1200])
def test_a_slowdown_across_the_switch_to_the_put_hour_is_one_plunge(seconds):
    """Every op a third slower from the middle of the mixed phase into the PUT hour (a slow disk,
    nothing the exporter reads). At the switch the GETs' clients leave and the PUTs' ramp up: the
    windows that straddle it judge neither, which is no return to the level. One plunge, ending
    with the slowdown, where the mixed phase's plunge ended at the switch and the PUT hour's began
    a minute later: two counted for one fault."""
    c = after_rounds(1).run(3600, PUT).run(900, GET).run(450, MIXED)
    fault = c.t
    c.run(450, dataclasses.replace(MIXED, slowdown=1.5))
    c.run(seconds - 450, dataclasses.replace(PUT, slowdown=1.5)).run(600, PUT)
    spans = plunge_spans(c)
    assert len(spans) == 1, [(a - fault, b - fault) for a, b in spans]
    on, off = spans[0]
    assert fault < on <= fault + 60 and fault + seconds < off <= fault + seconds + 180, (on - fault, off - fault)
    assert c.plunges() == {"none": 1}, c.plunges()
