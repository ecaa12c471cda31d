"""The plan holds the busiest moment of the last day (core/signals/runway/busiest.py): the 10B
cluster under the 1B study's hourly rounds, through the real derivation."""

from __future__ import annotations

from ceph_scale.core.signals.runway.busiest import HOUR, Busiest
from ceph_scale.core.signals.runway.derive import RunwayState
from tests.unit.study_rounds import GET, MIXED, PUT, Load, StudyCluster

IDLE = Load(other=1.0)  # clients that only list: no PUT, no GET


def plan_at_each_phase(cluster: StudyCluster, phases) -> list[tuple[int | None, int | None]]:
    out = []
    for seconds, load in phases:
        cluster.run(seconds, load)
        advice = cluster.state.of(RunwayState).advice
        assert advice is not None
        out.append((advice.plan.hdd_by_ops, advice.plan.rgw_needed))
    return out


def test_the_plan_by_ops_holds_the_busiest_phase_of_the_rounds():
    # Sized on the load of the moment, the plan asked 374 HDDs at the end of a PUT hour, 425 after
    # the GETs (28,800/s at 90 an HDD), 397 after the mixed load, and none while the clients idled.
    c = StudyCluster()
    rounds = [(3600, PUT), (900, GET), (900, MIXED)] * 2
    plan_at_each_phase(c, rounds)
    seen = plan_at_each_phase(c, [*rounds[:3], (1800, IDLE)])
    assert [hdds for hdds, _ in seen] == [425] * 4, seen
    # 28,800 GET/s at 500 an RGW [000], a sixth of them lost: 70 (69 where the growth of a
    # periodic load is withheld and the figure is today's).
    assert all(rgws in (69, 70) for _, rgws in seen), seen


def test_a_steady_load_plans_for_itself():
    # The quiet case beside it: a load that does not change plans what it is, neither more nor less.
    c = StudyCluster()
    seen = plan_at_each_phase(c, [(3600, PUT), (3600, PUT)])
    assert seen[0] == seen[1] and seen[1][0] == 374, seen


def test_a_reading_is_kept_a_day():
    busiest = Busiest()
    busiest.add(0.0, (1.0, 2.0, 3.0, 4.0), 0.9)
    busiest.add(HOUR, (5.0, 0.0, 6.0, 0.0), 0.5)
    assert busiest.rates() == (1.0, 2.0, 3.0, 4.0)
    busiest.add(24 * HOUR, (7.0, 0.0, 8.0, 0.0), 0.1)  # the first hour is past the day
    assert busiest.rates() == (5.0, 0.0, 6.0, 0.0) and len(busiest.hours) == 2
    busiest.add(2 * HOUR, (9.0, 0.0, 9.0, 0.0), 0.2)  # a clock stepped back: the day's peak stays
    assert set(busiest.hours) == {1, 2, 24} and busiest.rates() == (5.0, 0.0, 6.0, 0.0)
    busiest.add(60 * HOUR, (1.0, 0.0, 1.0, 0.0), 0.05)  # a day on: only the new reading
    busiest.add(60 * HOUR, (float("nan"), 0.0, 0.0, 0.0), 9.0)  # not finite: no reading
    assert busiest.rates() == (1.0, 0.0, 1.0, 0.0) and set(busiest.hours) == {60}
