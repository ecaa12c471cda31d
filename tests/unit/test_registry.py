"""The registry (ceph_scale/core/registry.py) is what every part reads: a source or signal
declared there, and only there, reaches the sidecar, the derivation, the validator and the
report; one declared nowhere else is refused at once."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
from pathlib import Path
from types import SimpleNamespace

import pytest

from ceph_scale.core import inputs, registry
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.families import gauge
from ceph_scale.core.snapshot import Snapshot
from exporter.sidecar.sources import ALL_SOURCES, Source

REPO = Path(__file__).resolve().parents[2]


def load_validator():
    spec = importlib.util.spec_from_file_location("rules_validate", REPO / "rules" / "validate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sidecar_collects_every_registered_source_with_its_declared_schedule():
    assert tuple(s.name for s in ALL_SOURCES) == registry.SOURCE_NAMES
    snapshot_fields = {f.name for f in dataclasses.fields(Snapshot)}
    for collector in ALL_SOURCES:
        spec = registry.SOURCE_BY_NAME[collector.name]
        assert collector.field == spec.name and spec.name in snapshot_fields
        assert (collector.default_interval, collector.default_timeout) == (spec.interval, spec.timeout)
        assert spec.timeout <= spec.interval


def test_each_source_declares_a_parser_of_its_inputs_and_collection_time():
    for spec in registry.SOURCES:
        assert spec.inputs, spec.name
        inspect.signature(spec.parser).bind(*spec.inputs, 0.0)  # raises if the arity is not theirs
        assert getattr(inputs, spec.parser.__name__, None) is spec.parser, spec.name


def test_the_sources_that_read_rgw_are_the_ones_on_the_modules_rgw_interval():
    """rgw_source=off stops exactly the sources rgw_interval schedules."""
    rgw = {s.name for s in registry.SOURCES if s.rgw}
    assert rgw and rgw == {s.name for s in registry.SOURCES if s.module_interval_option == "rgw_interval"}


def test_a_collector_of_an_unregistered_source_is_refused_when_defined():
    with pytest.raises(TypeError, match="not in core/registry.py"):
        type("LatencySource", (Source,), {"name": "latency"})


def test_derive_runs_every_registered_signal_and_keeps_its_durable_state(monkeypatch):
    """A signal added to the registry alone is derived, its state kept and restored."""

    class CountingState:
        def __init__(self, th: Thresholds) -> None:
            self.calls = 0

        def to_dict(self) -> dict:
            return {"calls": self.calls}

        @classmethod
        def from_dict(cls, data: dict, problems: list[str]) -> CountingState:
            state = cls(Thresholds())
            state.calls = int(data.get("calls", 0))
            return state

    def derive_example(given, state: CountingState):
        state.calls += 1
        return [gauge("example_calls", "Derivations seen by the example signal.").add(state.calls)]

    example = registry.SignalSpec("example", SimpleNamespace(derive=derive_example), CountingState)
    monkeypatch.setattr(registry, "SIGNALS", registry.SIGNALS + (example,))
    monkeypatch.setattr("ceph_scale.core.derive.SIGNALS", registry.SIGNALS)
    th = Thresholds()
    state = DerivationState(th)
    for t in (1.0, 2.0):
        families = derive(Snapshot(taken_at=t), state, th)
    assert [f.samples[0][2] for f in families if f.name == "ceph_scale_example_calls"] == [2.0]
    saved = state.durable()
    assert saved["example"] == {"calls": 2} and "reshard" in saved
    restored = DerivationState(th)
    assert restored.restore(saved) == []
    assert restored.signals["example"].calls == 2
    restored.retune(dataclasses.replace(th, fill_target_ratio=0.7))  # no `retuned`: a fresh state
    assert restored.signals["example"].calls == 0


def test_the_validator_knows_the_registered_signals_and_wants_each_routed(monkeypatch):
    validate = load_validator()
    assert validate.SIGNALS == set(registry.ALERT_SIGNALS)
    text = (REPO / "rules" / "alertmanager" / "alertmanager.yml").read_text()
    assert validate.signal_routes(text) == []
    monkeypatch.setattr(validate, "SIGNALS", validate.SIGNALS | {"iops"})
    assert validate.signal_routes(text) == ["alertmanager.yml: alerts of signal 'iops' reach no team's receiver"]
    routed = text.replace('"reshard|tenants|load|latency|plunge"', '"reshard|tenants|load|latency|plunge|latency2"')
    assert validate.signal_routes(routed) == [
        "alertmanager.yml: signal 'latency2' is not a registered signal",
        "alertmanager.yml: alerts of signal 'iops' reach no team's receiver",
    ]
