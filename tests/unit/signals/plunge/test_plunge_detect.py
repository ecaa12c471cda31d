"""The plunge detector's judgement, as properties: clients that send less are never a cluster
fault; a cluster that slows down or stalls under the same demand always is; units do not matter."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.plunge.detect import (
    CLUSTER,
    DEMAND,
    LEVEL,
    UNKNOWN,
    Baseline,
    OpVerdict,
    Window,
    clients_left,
    judge,
)
from ceph_scale.core.signals.plunge.rolling import baseline

TH = Thresholds()
rates = st.floats(min_value=TH.plunge_min_ops_per_second, max_value=1e6)
latencies = st.floats(min_value=1e-4, max_value=10.0)
# Ops kept, as a share of the baseline, for a drop past the threshold (and not a rounding away).
kept = st.floats(min_value=0.0, max_value=(1 - TH.plunge_drop_ratio) * 0.999)


def steady(put: float, get: float, put_lat: float, get_lat: float, flight: float) -> Baseline:
    w = Window(0.0, {"put": put, "get": get}, {"put": put * put_lat, "get": get * get_lat}, flight, put + get)
    found = baseline([w, w, w])
    assert found is not None
    return found


@given(rates, rates, latencies, latencies, st.floats(0.1, 1000), kept)
def test_clients_sending_less_is_never_a_cluster_fault(put, get, put_lat, get_lat, flight, k):
    """Everything the clients do scales down together; latency stays: their demand fell."""
    base = steady(put, get, put_lat, get_lat, flight)
    now = Window(1.0, {"put": put * k, "get": get * k}, {"put": put * k * put_lat, "get": get * k * get_lat},
                 flight * k, (put + get) * k)  # fmt: skip
    for v in judge(now, base, TH).values():
        assert v.kind == DEMAND
        assert v.drop == pytest.approx(1 - k)


@given(rates, rates, latencies, latencies, st.floats(0.1, 1000), st.floats(0.01, 0.79))
def test_a_slower_cluster_under_the_same_demand_is_a_plunge(put, get, put_lat, get_lat, flight, k):
    """Closed-loop clients: ops fall by k, each op takes 1/k as long (Little's law); the same
    requests are in flight."""
    base = steady(put, get, put_lat, get_lat, flight)
    now = Window(1.0, {"put": put * k, "get": get * k}, {"put": put * put_lat, "get": get * get_lat}, flight,
                 (put + get) * k)  # fmt: skip
    verdicts = judge(now, base, TH)
    assert {v.kind for v in verdicts.values()} == {CLUSTER}


@given(rates, rates, latencies, latencies, st.floats(0.1, 1000), st.floats(1.0, 3.0))
def test_a_stall_is_a_plunge_though_no_op_completes(put, get, put_lat, get_lat, flight, more):
    """Ops hang (an OSD down, a bucket resharding): none completes, so no latency is summed, but
    the requests wait in the RGW."""
    base = steady(put, get, put_lat, get_lat, flight)
    now = Window(1.0, {"put": 0.0, "get": 0.0}, {"put": 0.0, "get": 0.0}, flight * more, 0.0)
    assert {v.kind for v in judge(now, base, TH).values()} == {CLUSTER}


# Away from the threshold itself, where a rounding of the scaled rates may land on either side.
off_threshold = st.floats(0.0, 1.0).filter(lambda k: abs(1 - k - TH.plunge_drop_ratio) > 1e-9)


@given(rates, rates, latencies, latencies, st.floats(0.1, 1000), off_threshold, st.floats(1e-3, 1e3))
def test_the_verdict_does_not_depend_on_units(put, get, put_lat, get_lat, flight, k, scale):
    """Rates scaled by the same factor in the window and its baseline: the same verdict."""
    base = steady(put, get, put_lat, get_lat, flight)
    now = Window(1.0, {"put": put * k, "get": get}, {"put": put * put_lat, "get": get * get_lat * k}, flight * k,
                 (put + get) * k)  # fmt: skip
    scaled_base = steady(put * scale, get * scale, put_lat, get_lat, flight * scale)
    scaled = Window(1.0, {o: v * scale for o, v in now.ops.items()}, {o: v * scale for o, v in now.busy.items()},
                    flight * k * scale, (put + get) * k * scale)  # fmt: skip
    th = Thresholds(plunge_min_ops_per_second=0)
    assert {o: v.kind for o, v in judge(now, base, th).items()} == {
        o: v.kind for o, v in judge(scaled, scaled_base, th).items()
    }


def test_a_small_dip_is_the_level_an_idle_op_is_not_judged_and_nothing_to_tell_is_unknown():
    base = steady(100, 1, 0.02, 0.002, 4)
    now = Window(1.0, {"put": 85.0, "get": 0.0}, {"put": 1.7}, 4, 86)
    assert judge(now, base, TH)["put"].kind == LEVEL
    assert "get" not in judge(now, base, TH)  # 1 op/s is below plunge_min_ops_per_second
    blind = Baseline({"put": 100.0, "get": 0.0}, {}, None, None, 3)
    assert judge(Window(1.0, {"put": 10.0, "get": 0.0}), blind, TH)["put"].kind == UNKNOWN


def test_a_baseline_needs_three_windows_and_is_their_median():
    w = [Window(float(i), {"put": r, "get": 0.0}) for i, r in enumerate((100.0, 5.0, 110.0))]
    assert baseline(w[:2]) is None
    found = baseline(w)
    assert found is not None and found.ops["put"] == 100.0  # one lull does not move it


# Requests Pacific's RGW keeps counted in `qlen` for good: one per request whose client hung up
# before the reply (ceph tracker 48358, fixed in later releases). The gauge never reads less.
leaked = st.floats(0.0, 1e4)


@given(rates, rates, latencies, latencies, st.floats(0.1, 1000), leaked, kept)
def test_clients_sending_less_is_a_demand_drop_whatever_the_gauge_kept(put, get, put_lat, get_lat, flight, stuck, k):
    base = steady(put, get, put_lat, get_lat, stuck + flight)
    now = Window(1.0, {"put": put * k, "get": get * k}, {"put": put * k * put_lat, "get": get * k * get_lat},
                 stuck + flight * k, (put + get) * k)  # fmt: skip
    assert {v.kind for v in judge(now, base, TH).values()} == {DEMAND}


@given(rates, rates, latencies, latencies, st.floats(0.1, 1000), leaked, st.floats(1.0, 3.0))
def test_a_stall_is_a_plunge_whatever_the_gauge_kept(put, get, put_lat, get_lat, flight, stuck, more):
    base = steady(put, get, put_lat, get_lat, stuck + flight)
    now = Window(1.0, {"put": 0.0, "get": 0.0}, {"put": 0.0, "get": 0.0}, stuck + flight * more, 0.0)
    assert {v.kind for v in judge(now, base, TH).values()} == {CLUSTER}


@given(rates, rates, latencies, latencies, st.floats(0.1, 1000), kept)
def test_clients_moving_to_the_other_op_at_the_same_concurrency_is_never_a_cluster_fault(
    put, get, put_lat, get_lat, flight, k
):
    """A COSBench round's switch [000]: the PUTs give up (1 - k) of their concurrency to GETs. The
    requests in flight hold and the requests received rise (GETs are faster), yet the PUTs' demand
    fell: the GETs took what the PUTs left."""
    base = steady(put, get, put_lat, get_lat, flight)
    moved = (1 - k) * put * put_lat  # requests in flight that went from PUT to GET
    get_now = get + moved / get_lat
    now = Window(1.0, {"put": put * k, "get": get_now}, {"put": put * k * put_lat, "get": get_now * get_lat},
                 flight, put * k + get_now)  # fmt: skip
    assert judge(now, base, TH)["put"].kind == DEMAND


@given(rates, latencies, st.floats(0.1, 1000), st.floats(1.0, 1e3), kept)
def test_fewer_larger_objects_at_the_same_concurrency_are_not_a_drop(put, put_lat, flight, larger, k):
    """The same workers PUT objects `larger` times the size: fewer ops, each slower, while the bytes
    per second hold or rise. The throughput did not fall."""
    w = Window(0.0, {"put": put, "get": 0.0}, {"put": put * put_lat}, flight, put, bytes={"put": put * 65536})
    base = baseline([w, w, w])
    assert base is not None
    ops = put * max(k, 1 / larger)  # no fewer bytes than before
    now = Window(1.0, {"put": ops, "get": 0.0}, {"put": put * put_lat}, flight, ops,
                 bytes={"put": ops * 65536 * larger})  # fmt: skip
    assert judge(now, base, TH)["put"].kind == LEVEL


@given(rates, latencies, latencies, kept, kept)
def test_an_op_back_at_its_own_level_is_no_drop_and_a_stall_under_it_is_a_plunge(put, put_lat, get_lat, k, s):
    """A COSBench round back to PUT [000]: the baseline is still the mixed phase's, where the PUTs
    had a share k of the workers, and the PUTs' own level (levels.py) is their hour's. Back at that
    level, nothing fell (nor did the GETs: the clients left them). A reshard that holds the writes
    (a share s of the PUTs complete, the same workers waiting) is a plunge, though more PUTs
    complete than in the mixed phase."""
    flight = put * put_lat
    get = (1 - k) * flight / get_lat  # the GETs took what the PUTs left of the workers
    own = steady(put, 0.0, put_lat, get_lat, flight)
    base = dataclasses.replace(steady(put * k, get, put_lat, get_lat, flight), own={"put": (own,)})
    back = Window(1.0, {"put": put, "get": 0.0}, {"put": flight, "get": 0.0}, flight, put)
    assert CLUSTER not in {v.kind for v in judge(back, base, TH).values()}
    held = Window(1.0, {"put": put * s, "get": 0.0}, {"put": flight, "get": 0.0}, flight, put * s)
    assert judge(held, base, TH)["put"].kind == CLUSTER


def failing_none(put: float, get: float, put_lat: float, get_lat: float, flight: float) -> Baseline:
    """steady(), its RGW counting failed requests: none failed."""
    w = Window(0.0, {"put": put, "get": get}, {"put": put * put_lat, "get": get * get_lat}, flight, put + get, 0.0)
    found = baseline([w, w, w])
    assert found is not None
    return found


@given(rates, rates, latencies, latencies, st.floats(0.1, 1000), kept)
def test_a_stall_that_fails_fast_is_a_plunge(put, get, put_lat, get_lat, flight, k):
    """The requests still arrive and fail at once: fewer ops complete, few are in flight, and the
    requests received hold, the failed ones among them."""
    base = failing_none(put, get, put_lat, get_lat, flight)
    now = Window(1.0, {"put": put * k, "get": get * k}, {"put": put * k * put_lat, "get": get * k * get_lat},
                 flight * k, put + get, (put + get) * (1 - k))  # fmt: skip
    assert {v.kind for v in judge(now, base, TH).values()} == {CLUSTER}


@given(rates, latencies, kept, st.floats(0.0, 1e6))
def test_other_kinds_of_request_the_clients_send_instead_are_no_demand_for_an_op(put, put_lat, k, others):
    """The mixed phase after a PUT hour [000]: fewer PUTs, and list and delete requests (not judged
    ops) in their place, none failed. Those are other work: the PUTs' demand fell with them."""
    base = failing_none(put, 0.0, put_lat, 1e-3, put * put_lat)
    now = Window(1.0, {"put": put * k, "get": 0.0}, {"put": put * k * put_lat}, None, put * k + others, 0.0)
    assert judge(now, base, TH)["put"].kind == DEMAND


def test_a_switch_is_marked_where_the_clients_leave_an_op_whose_rate_still_falls():
    """detect.clients_left: the clients' drop of an op whose rate fell from the window before marks
    a switch of phase, kept from its first window while the drop stays theirs; an op already at 0
    (nothing to fall from), or whose rate rises as a fault ends, marks none, so that a verdict
    flickering back to DEMAND cannot hold a plunge on."""
    demand = {"get": OpVerdict("get", 0.6, 0.3, DEMAND)}
    falling, earlier = Window(60.0, {"put": 100.0, "get": 50.0}), Window(45.0, {"put": 100.0, "get": 80.0})
    assert clients_left({}, demand, falling, earlier, TH) == {"get": 60.0}
    assert clients_left({"get": 45.0}, demand, falling, earlier, TH) == {"get": 45.0}
    assert clients_left({"get": 45.0}, {"get": OpVerdict("get", 0.1, 0.9, LEVEL)}, falling, earlier, TH) == {}
    idle = Window(60.0, {"put": 100.0, "get": 0.0})
    assert clients_left({}, demand, idle, dataclasses.replace(idle, t=45.0), TH) == {}
    assert clients_left({}, demand, falling, dataclasses.replace(falling, t=45.0, ops={"get": 40.0}), TH) == {}
    assert clients_left({}, demand, falling, None, TH) == {}
