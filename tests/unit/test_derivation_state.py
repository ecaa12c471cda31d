"""The derivation state's typed accessor, and what a producer says when a signal it prints failed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState
from ceph_scale.core.registry import SIGNALS
from ceph_scale.core.signals.reshard.derive import ReshardState
from ceph_scale.core.signals.runway.derive import RunwayState
from exporter.sidecar.main import NoPlan, plan_text


def test_every_kept_state_is_reached_by_its_class_as_that_class() -> None:
    state = DerivationState(Thresholds())
    kept = [(s.name, s.state) for s in SIGNALS if s.state is not None]
    assert kept
    for name, kind in kept:
        assert state.of(kind) is state.signals[name]


def test_a_class_no_signal_keeps_is_refused() -> None:
    with pytest.raises(KeyError):
        DerivationState(Thresholds()).of(dict)


def test_a_state_replaced_by_another_class_is_refused_not_handed_on() -> None:
    state = DerivationState(Thresholds())
    state.signals["reshard"] = RunwayState(Thresholds())
    with pytest.raises(TypeError, match="reshard keeps a RunwayState, not a ReshardState"):
        state.of(ReshardState)


def test_a_plan_asked_of_a_failed_runway_signal_says_why_instead_of_printing_nothing() -> None:
    state = DerivationState(Thresholds())
    state.signal_errors["runway"] = "ValueError: no capacity at derive.py:90"
    with pytest.raises(NoPlan, match="no plan: ValueError: no capacity at derive.py:90"):
        plan_text(SimpleNamespace(state=state, families=[]), "text")  # type: ignore[arg-type]
