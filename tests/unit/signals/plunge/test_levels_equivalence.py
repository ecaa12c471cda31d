"""The phases of an op's demand (levels.phases) and a measure's usual value (measure.Measure) are
what taking them anew gives: each group re-sorted from the windows left, each span filtered poll by
poll, as they were taken before they were made cheaper per poll."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.plunge.detect import MIN_WINDOWS, Window
from ceph_scale.core.signals.plunge.levels import LEVEL_SPAN_WINDOWS, near_gap, phases
from ceph_scale.core.signals.plunge.measure import Measure

# Demands of a few phases (repeated values: ties at a group's least), none, and odd ones.
DEMAND = st.one_of(
    st.sampled_from([0.0, -1.0, 9_078.0, 4_539.0, 4_000.0, 2_000.0, 1.0]),
    st.floats(min_value=0, max_value=1e4, allow_nan=False),
    st.sampled_from([math.inf, 0, 3]),
)


def phases_anew(past: Sequence[Window], op: str, th: Thresholds, near: float) -> list[list[Window]]:
    """levels.phases as it was: the windows left sorted anew for each group."""
    left = [w for w in past if w.busy.get(op, 0.0) > 0]
    out = []
    while len(left) >= MIN_WINDOWS:
        asked = sorted((w.busy[op] for w in left), reverse=True)
        least = (1.0 - th.plunge_drop_ratio) * asked[MIN_WINDOWS - 1]
        group = [w for w in left if w.busy[op] >= least]
        left = [w for w in left if w.busy[op] < least]
        if sum(b.t - a.t for a, b in zip(group, group[1:]) if b.t - a.t <= near) >= (
            LEVEL_SPAN_WINDOWS * th.plunge_window_seconds
        ):
            out.append(group)
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.floats(1, 120), st.one_of(st.none(), DEMAND)), max_size=80),
    st.sampled_from([0.25, 0.5, 1.0]),
)
def test_the_phases_are_those_sorted_anew_for_each_group(steps, ratio):
    th = Thresholds(plunge_drop_ratio=ratio)
    t, past = 0.0, []
    for gap, demand in steps:
        t += gap
        past.append(Window(t, {"put": 1.0}, {} if demand is None else {"put": demand}))
    near = near_gap(past, th)
    got, want = phases(past, "put", th, near), phases_anew(past, "put", th, near)
    assert [[id(w) for w in g] for g in got] == [[id(w) for w in g] for g in want]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.floats(0, 60), st.sampled_from([-30.0, math.nan])),  # mostly forward
            st.one_of(st.floats(-1e6, 1e6), st.sampled_from([0, -0.0, 2])),
            st.floats(-300, 900),
            st.floats(0, 900),
        ),
        max_size=60,
    )
)
def test_the_usual_value_is_the_median_of_the_polls_in_the_span(polls):
    m, t = Measure(600.0), 0.0
    for step, value, back, span in polls:
        t += step
        m.add(t, value)
        start = t - back
        want = [v for p, v in m.points if start <= p <= start + span]
        got = m.usual(start, start + span)
        assert repr(got) == repr(statistics.median(want) if want else 0.0)
