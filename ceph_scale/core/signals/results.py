"""The signals' judgements as typed values, one per signal that judges: what each signal's
derivation leaves besides its families, for the readers that judge them again in words (its
health checks and its section of `ceph scale status`), so that none of them reads a metric back
by its name. Each signal's type is declared in its folder (`<name>/result.py`) and named by its
registry row (`SignalSpec.result`), which is all that makes it a result: no list here to extend.

Each derivation leaves its own through `SignalInput.judged`; a signal that has no data leaves
none, and one whose derivation raises has its own cleared (core/derive.py), as its series are
absent.
"""

from __future__ import annotations

from typing import TypeVar

Result = TypeVar("Result")


class SignalResults:
    """The results of one derivation, one per result class (each signal's own)."""

    def __init__(self, *results: object) -> None:
        self._by_kind: dict[type, object] = {type(r): r for r in results}

    def put(self, result: object) -> None:
        self._by_kind[type(result)] = result

    def get(self, kind: type[Result]) -> Result | None:
        """The result of that class; None where its signal judged nothing."""
        found = self._by_kind.get(kind)
        return found if isinstance(found, kind) else None

    def clear(self, kind: type | None) -> None:
        """A signal whose derivation raised judges nothing."""
        if kind is not None:
            self._by_kind.pop(kind, None)
