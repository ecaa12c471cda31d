"""The plan holds the busiest moment of the last day (core/signals/runway/busiest.py): the 10B
cluster under the 1B study's hourly rounds, through the real derivation."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ceph_scale.core.derive import DerivationState
from ceph_scale.core.signals.runway.busiest import HOUR, Busiest
from ceph_scale.core.signals.runway.derive import RunwayState
from tests.unit.study_rounds import GET, MIXED, POLL, PUT, Load, StudyCluster

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


def restarted(cluster: StudyCluster, saved: dict | None = None) -> StudyCluster:
    """A new process from the state file, as `--once --plan` from cron starts each time."""
    state = DerivationState(cluster.th)
    state.restore(saved if saved is not None else json.loads(json.dumps(cluster.state.durable())))
    cluster.state = state
    return cluster


def test_a_plan_run_from_cron_after_each_phase_holds_the_busiest_phase_too():
    """Each phase ends with a restart from the saved state: the plan still holds the GETs' 425 HDDs
    through the next PUT hour, mixed load and idle half hour (it followed the phase: 374, 397, none)."""
    c = StudyCluster()
    rounds = [(3600, PUT), (900, GET), (900, MIXED)] * 2
    for phase in rounds:
        plan_at_each_phase(restarted(c), [phase])
    seen = [plan_at_each_phase(restarted(c), [phase])[0] for phase in [*rounds[:3], (1800, IDLE)]]
    assert [hdds for hdds, _ in seen] == [425] * 4, seen
    # A broken reading costs only itself; a broken list, only the readings.
    saved = json.loads(json.dumps(c.state.durable()))
    kept = len(saved["runway"]["busiest"])
    saved["runway"]["busiest"] += [["x", 1, 2, 3, 4, 5], [1.0, 2.0], [True, 0, 0, 0, 0, 0], "garbage", [10**400] * 6]
    assert len(restarted(c, saved).state.of(RunwayState).busiest.hours) == kept
    saved["runway"]["busiest"] = {"not": "a list"}
    restarted(c, saved)
    runway = c.state.of(RunwayState)
    assert runway.busiest.hours == {} and len(runway.used.points) == len(saved["runway"]["used"]["points"])


def test_hourly_once_runs_from_cron_hold_the_busiest_hour_of_the_day_and_let_it_go_a_day_later():
    """`--once --plan` from cron: a new process each hour with one derivation, the cluster under
    the rounds in between. A run has no rate of the moment; its reading is the load since the run
    before (the saved trend's last interval), so the plan holds the busiest hour's mean for a day:
    393 HDDs by ops, where it followed the hour (393, 393, 374, ...). Once the clients stop, the
    saved peak goes a day after it was read (a saved reading was only dropped by a new one)."""
    c = StudyCluster()

    def phase(t: float) -> Load:
        into = t % 5400
        return PUT if into < 3600 else GET if into < 4500 else MIXED

    plans = []
    for hour in range(1, 56):
        load_of = phase if hour <= 28 else (lambda t: IDLE)
        for _ in range(round(HOUR / POLL) - 1):
            c.elapse(POLL, load_of(c.t))
        advice = restarted(c).run(POLL, load_of(c.t)).state.of(RunwayState).advice
        assert advice is not None
        plans.append((hour, advice.plan.hdd_by_ops))
    busy = {hdds for hour, hdds in plans if 2 <= hour <= 28}
    assert busy == {393}, plans
    assert all(hdds and hdds >= 374 for hour, hdds in plans if 28 < hour <= 28 + 23), plans
    assert all(hdds == 0 for hour, hdds in plans if hour >= 28 + 24), plans


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


SAVED = Busiest()
for _h in range(30):
    SAVED.add(_h * HOUR + 60, (100.0 * _h, 50.0, 6.5e6, 1e6), _h / 30)
JSONISH = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3)
)


@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(-1, 6), JSONISH), max_size=6),
    st.lists(st.one_of(JSONISH, st.lists(JSONISH, max_size=7)), max_size=3),
)
@settings(max_examples=150, deadline=None)
def test_a_mutated_saved_list_restores_its_sound_readings_and_nothing_else(edits, extra):
    """A day's saved readings with values replaced, entries cut or added: what comes back is
    finite readings of four rates, within a day of each other, each one that was saved or none."""
    data = json.loads(json.dumps(SAVED.to_list()))
    for i, at, value in edits:
        if i < len(data):
            if at < 0:
                data[i] = value
            elif isinstance(data[i], list) and at < len(data[i]):
                data[i][at] = value
    data += extra
    restored = Busiest.from_list(data, 4)
    for hour, (load, t, rates) in restored.hours.items():
        assert len(rates) == 4 and all(math.isfinite(x) for x in (load, t, *rates))
        assert hour == int(t // HOUR)
    assert len(restored.hours) <= 2 * 24 - 1
    untouched = [e for e in data if isinstance(e, list) and e in SAVED.to_list()]
    if len(untouched) == len(data):  # nothing broken: every reading of the last day comes back
        assert restored.rates() == SAVED.rates()
