"""A week of growth with a delete wave, through the whole pipeline (delete_wave_week.yml): raw use
grows 0.5 % a day and 5 % of the data is deleted over 4 hours at day 5 [issue 27: "a delete wave
reads as never"]. The exporter's fill runway is held to the simulated cluster's own at every
step from its first fit on, before, during and after the wave; the capacity ticket opens once and
stays open through it; nothing else is raised (the quiet case: deletes are no incident)."""

from __future__ import annotations

import math
import statistics

import pytest

from ceph_scale.core.config import Thresholds
from replay.cluster import SimCluster
from replay.run import Result
from replay.simulate import START

FIRST_FIT = 2 * 3600  # forecast_min_span_seconds (1 h) and the trend's first points
WAVE_AT = 5 * 86400
TOLERANCE = 0.001  # of the runway (a day is 1.4 %): the simulated fill is a line, and so is the fit
EVERY = 3600  # the truth is checked once an hour of the week (each a SimCluster step)


def truths(r: Result) -> dict[float, float]:
    """The runway to the fill target at the growth around the wave, from the simulated cluster:
    (target - its raw fill now) / the scenario's growth, once an hour."""
    (spec,) = r.scenario.clusters
    growth = (spec.fill[1] - spec.fill[0]) / r.scenario.span  # of the raw capacity, a second
    target = Thresholds().fill_target_ratio
    sim = SimCluster(spec, START, r.scenario.span)
    out = {}
    for t in range(int(START + FIRST_FIT), int(START + r.scenario.span) + 1, EVERY):
        sim.move_to(t)
        out[float(t)] = (target - statistics.fmean(sim.fill.values())) / growth
    return out


def test_the_fill_runway_is_the_growth_around_the_wave_before_during_and_after_it(delete_wave_week):
    shown = dict(delete_wave_week.traces[("growing", "fill_runway")])
    checked = 0
    for t, truth in truths(delete_wave_week).items():
        runway = shown.get(t)
        assert runway is not None, f"no fill runway at {delete_wave_week.offset(t)}"
        assert math.isfinite(runway), f'"never" at {delete_wave_week.offset(t)} (the truth: {truth / 86400:.1f} days)'
        assert runway == pytest.approx(truth, rel=TOLERANCE), (delete_wave_week.offset(t), runway / 86400)
        checked += 1
    assert checked >= 7 * 24 - 2


def test_the_capacity_ticket_opens_once_and_stays_open_through_the_wave(delete_wave_week):
    (ticket,) = delete_wave_week.notifications
    assert ticket.alertname == "CephScaleRunwayShort" and ticket.receiver == "ceph-scale-ticket"
    assert ticket.start < START + WAVE_AT and ticket.end is None
    # The quiet case: the wave's deletes and backfill raise nothing else, and page no one.
    assert {f.alert for f in delete_wave_week.fired} == {"CephScaleRunwayShort"}
    assert delete_wave_week.pages() == []
