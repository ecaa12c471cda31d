"""What a signal reads of the others is declared in the registry (`needs`): the derivation order
follows the declarations (ceph_scale/core/signals/order.py), and a read the reader did not
declare is refused (SignalInput.state)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import pytest

from ceph_scale.core import derive as derivation
from ceph_scale.core import registry
from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.fill.result import FillResult
from ceph_scale.core.signals.load.result import LoadResult
from ceph_scale.core.signals.order import RegistryError, derivation_order
from ceph_scale.core.signals.reshard.derive import ReshardState
from ceph_scale.core.signals.results import SignalResults
from ceph_scale.core.signals.signal_input import NotItsResult, SignalInput, UndeclaredRead
from ceph_scale.core.snapshot import Snapshot
from tests.unit.study_snapshot import study_snapshot


@dataclass(frozen=True)
class Toy:
    name: str
    needs: tuple[str, ...] = ()


def names(specs) -> list[str]:
    return [s.name for s in specs]


def test_a_signal_moves_after_what_it_needs_and_the_rest_keep_their_listed_order():
    toys = (Toy("a", ("d",)), Toy("b"), Toy("c", ("a",)), Toy("d"), Toy("e"))
    assert names(derivation_order(toys)) == ["b", "d", "a", "c", "e"]
    free = (Toy("x"), Toy("y"), Toy("z"))
    assert derivation_order(free) == free


@pytest.mark.parametrize(
    ("toys", "message"),
    [
        ((Toy("a", ("b",)), Toy("b", ("c",)), Toy("c", ("a",)), Toy("d")), "a cycle in the needs of a, b, c"),
        ((Toy("a"), Toy("b", ("a", "nope"))), "b needs nope, which no signal is"),
        ((Toy("a", ("a",)),), "a needs itself"),
        ((Toy("a"), Toy("a")), "a registered more than once"),
    ],
)
def test_a_registry_that_cannot_be_ordered_fails_in_one_line(toys, message):
    with pytest.raises(RegistryError) as raised:
        derivation_order(toys)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_the_registry_is_in_an_order_its_needs_allow_and_the_one_it_lists():
    seen: set[str] = set()
    for spec in registry.SIGNALS:
        assert seen.issuperset(spec.needs), spec.name
        seen.add(spec.name)
    assert names(registry.SIGNALS) == [
        "spillover", "fill", "reshard", "bucket_watch", "tenants", "scrub", "load",
        "latency", "degraded", "plunge", "health", "runway",
    ]  # fmt: skip


def given(reader: str, needs: frozenset[str]) -> SignalInput:
    th = Thresholds()
    states = MappingProxyType({"reshard": ReshardState(th)})
    return SignalInput(Snapshot(taken_at=0.0), th, 1, states, reader=reader, needs=needs, owners=registry.OWNERS)


def test_a_declared_read_gets_the_state_and_an_undeclared_one_is_refused_in_one_line():
    assert isinstance(given("plunge", frozenset({"reshard"})).state(ReshardState), ReshardState)
    with pytest.raises(UndeclaredRead) as raised:
        given("fill", frozenset()).state(ReshardState)
    assert str(raised.value) == (
        "signal fill reads the state of reshard without declaring it in its needs (core/registry.py)"
    )


def test_a_state_no_signal_keeps_is_refused():
    class Stray:
        pass

    with pytest.raises(UndeclaredRead, match="reads a Stray, which no registered signal keeps"):
        given("plunge", frozenset({"reshard"})).state(Stray)


def test_a_signal_whose_row_drops_a_need_fails_alone(monkeypatch):
    undeclared = tuple(dataclasses.replace(s, needs=()) if s.name == "runway" else s for s in registry.SIGNALS)
    monkeypatch.setattr(derivation, "SIGNALS", undeclared)
    state = derivation.DerivationState(Thresholds())
    derivation.derive(study_snapshot(1000.0, osds=30, buckets=50), state)
    assert set(state.signal_errors) == {"runway"}
    error = state.signal_errors["runway"]
    assert error.startswith("UndeclaredRead: signal runway reads the state of ") and "without declaring it" in error


def test_another_signals_result_is_read_as_declared():
    fill = FillResult(None, (), (), None)
    reads = dataclasses.replace(given("runway", frozenset({"fill"})), results=SignalResults(fill))
    assert reads.result(FillResult) is fill
    with pytest.raises(UndeclaredRead, match="^signal runway reads the result of load without declaring it"):
        reads.result(LoadResult)


def test_no_signal_reads_the_states_by_name():
    """Every read of another signal goes through the accessors, which hold it to the needs."""
    core = Path(derivation.__file__).parent
    readers = [p for p in (core / "signals").rglob("*.py") if p.name != "signal_input.py"] + list(
        (core / "advisor").glob("*.py")
    )
    assert [str(p) for p in readers if ".states" in p.read_text()] == []


def test_no_signal_reads_the_results_but_through_the_accessor():
    """A derivation leaves its own result through `judged` and reads another's through `result`,
    which holds it to its needs; `given.results` itself is the derivation's, not a signal's."""
    core = Path(derivation.__file__).parent
    readers = list((core / "signals").rglob("*.py")) + list((core / "advisor").glob("*.py"))
    assert [str(p) for p in readers if "given.results" in p.read_text()] == []


def test_a_signal_leaves_only_the_result_its_row_names():
    fill = FillResult(None, (), (), None)
    reads = given("fill", frozenset())
    reads.judged(fill)
    assert reads.results.get(FillResult) is fill
    with pytest.raises(NotItsResult, match="^signal runway left a FillResult, not the result its registry row names"):
        given("runway", frozenset()).judged(fill)


def test_each_result_class_is_one_signals():
    rows = [s for s in registry.SIGNALS if s.result is not None]
    assert len({s.result for s in rows}) == len(rows)
    assert all(registry.OWNERS[s.result] == s.name for s in rows)
    judging = {s.name for s in registry.SIGNALS if s.checks or s.status}
    assert judging <= {s.name for s in rows}, "a signal with checks or a status section names no result"
