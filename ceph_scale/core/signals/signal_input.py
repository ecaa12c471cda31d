"""What every signal's `derive(given, state)` is given: one argument, the same for all."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from ..config import Thresholds
from ..snapshot import Snapshot
from .results import SignalResults

Read = TypeVar("Read")


class UndeclaredRead(LookupError):
    """A signal read the state or result of one its registry row does not list in `needs`."""


class NotItsResult(TypeError):
    """A signal left a result of a class its registry row does not name as its own."""


@dataclass(frozen=True)
class SignalInput:
    snap: Snapshot
    th: Thresholds
    # The per-shard object limit buckets are judged by, from wherever it came
    # (derive.shard_limit_and_origin): worked out once, used by the reshard and config families.
    shard_limit: int
    # Every signal's state by name, read only; a signal reads another's through `state`, which
    # holds it to its declared needs, so that the derivation order can follow them.
    states: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # Where each signal leaves its own judgement (signals/results.py), for the health checks and
    # the report: through `judged`; another signal's is read through `result`.
    results: SignalResults = field(default_factory=SignalResults)
    # The signal given this input, the signals its registry row says it reads, and which signal
    # keeps a state or leaves a result of each class (registry.OWNERS).
    reader: str = ""
    needs: frozenset[str] = frozenset()
    owners: Mapping[type, str] = field(default_factory=lambda: MappingProxyType({}))

    def judged(self, result: object) -> None:
        """The reader's own result of this derivation; refused if its row names another class
        (a signal called on its own, without a reader, may leave its result). None: it judged
        nothing."""
        if result is None:
            return
        owner = self.owners.get(type(result))
        if self.reader and owner != self.reader:
            raise NotItsResult(
                f"signal {self.reader} left a {type(result).__name__}, not the result its registry row names"
            )
        self.results.put(result)

    def state(self, kind: type[Read]) -> Read | None:
        """The state another signal keeps, as it stands after its derivation of this snapshot
        (None where it keeps none here); refused unless the reader declared that signal."""
        found = self.states.get(self._declared(kind, "state"))
        return found if isinstance(found, kind) else None

    def result(self, kind: type[Read]) -> Read | None:
        """The result another signal left in this derivation (None where it judged nothing);
        refused unless the reader declared that signal."""
        self._declared(kind, "result")
        return self.results.get(kind)

    def _declared(self, kind: type, what: str) -> str:
        owner = self.owners.get(kind)
        if owner is None:
            raise UndeclaredRead(f"signal {self.reader} reads a {kind.__name__}, which no registered signal keeps")
        if owner not in self.needs:
            raise UndeclaredRead(
                f"signal {self.reader} reads the {what} of {owner} without declaring it in its needs (core/registry.py)"
            )
        return owner
