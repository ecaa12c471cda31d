"""The derivation order, computed from what each signal declares it reads (`needs`): a signal is
derived after every signal it needs, so it reads their states as they stand after this very
snapshot. Among the signals free to go next, the one listed first goes first, so the order is the
listed one wherever the declarations allow it (and the exposition keeps its order)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class RegistryError(ValueError):
    """A signal registry that cannot be derived in any order; its message is one line."""


class Declared(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def needs(self) -> tuple[str, ...]: ...


Spec = TypeVar("Spec", bound=Declared)


def derivation_order(specs: Sequence[Spec]) -> tuple[Spec, ...]:
    """The specs in an order where each follows all it needs; RegistryError names a duplicate, a
    need of no registered signal, a signal that needs itself, or the signals caught in a cycle."""
    names = [s.name for s in specs]
    duplicate = sorted({n for n in names if names.count(n) > 1})
    if duplicate:
        raise RegistryError(f"signal registry: {', '.join(duplicate)} registered more than once")
    known = set(names)
    for s in specs:
        unknown = [n for n in s.needs if n not in known]
        if unknown:
            raise RegistryError(f"signal registry: {s.name} needs {', '.join(unknown)}, which no signal is")
        if s.name in s.needs:
            raise RegistryError(f"signal registry: {s.name} needs itself")
    placed: list[Spec] = []
    done: set[str] = set()
    waiting = list(specs)
    while waiting:
        ready = next((s for s in waiting if done.issuperset(s.needs)), None)
        if ready is None:
            cycle = ", ".join(s.name for s in waiting)
            raise RegistryError(f"signal registry: a cycle in the needs of {cycle}: none can be derived first")
        placed.append(ready)
        done.add(ready.name)
        waiting.remove(ready)
    return tuple(placed)
