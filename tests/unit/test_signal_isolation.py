"""A signal whose derivation raises takes only its own series with it: the other signals are
served, the failing one is said to fail (ceph_scale_signal_success 0, a failure counter, one
log line when it begins and one when it ends), and it comes back once it derives again."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.fill import derive as fill
from tests.unit.study_snapshot import study_snapshot


def samples(families, name: str) -> dict[tuple, float]:
    return {
        tuple(sorted(zip(f.label_names, values, strict=True))): value
        for f in families
        if f.name == name
        for suffix, values, value in f.samples
        if not suffix
    }


def by_signal(families, name: str) -> dict[str, float]:
    return {dict(k)["signal"]: v for k, v in samples(families, name).items()}


def test_a_failing_signal_leaves_the_others_served_and_says_so(monkeypatch):
    th = Thresholds()
    state = DerivationState(th)
    healthy = derive(study_snapshot(1000.0), state, th)
    assert set(by_signal(healthy, "ceph_scale_signal_success").values()) == {1}
    assert samples(healthy, "ceph_scale_cluster_used_ratio")
    assert state.signal_error_changes() == []

    def broken(given, state):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(fill, "derive", broken)
    for i in (1, 2):
        failing = derive(study_snapshot(1000.0 + 60 * i), state, th)
        assert not samples(failing, "ceph_scale_cluster_used_ratio")  # absent, never zero
        assert samples(failing, "ceph_scale_bluefs_spilled_bytes") == samples(
            healthy, "ceph_scale_bluefs_spilled_bytes"
        )
        success = by_signal(failing, "ceph_scale_signal_success")
        assert success.pop("fill") == 0 and set(success.values()) == {1}
        assert by_signal(failing, "ceph_scale_signal_failures")["fill"] == i
        changes = state.signal_error_changes()
        if i == 1:  # one line when it begins to fail, naming where it raised
            assert len(changes) == 1 and changes[0][0], changes
            assert "signal fill: derivation failed: ZeroDivisionError: float division by zero at" in changes[0][1]
            assert "test_signal_isolation.py:" in changes[0][1]
        else:  # not one a cycle
            assert changes == []

    monkeypatch.undo()
    again = derive(study_snapshot(1200.0), state, th)
    assert samples(again, "ceph_scale_cluster_used_ratio")
    assert by_signal(again, "ceph_scale_signal_success")["fill"] == 1
    assert by_signal(again, "ceph_scale_signal_failures")["fill"] == 2  # a counter: it keeps its count
    assert state.signal_error_changes() == [(False, "signal fill: derived again")]
