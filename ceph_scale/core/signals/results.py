"""The signals' judgements as typed values, one field per signal that judges: what each
signal's derivation leaves besides its families, for the readers that judge them again in
words (its health checks and its section of `ceph scale status`), so that none of them reads a
metric back by its name. Each signal's type is declared in its folder (`<name>/result.py`).

Each derivation fills its own field of the `SignalResults` it is given (SignalInput.results);
a signal that has no data leaves its field None, and one whose derivation raises has it cleared
(core/derive.py), as its series are absent.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, fields
from typing import get_args, get_type_hints

from .bucket_watch.result import BucketPollResult
from .degraded.result import DegradedResult
from .fill.result import FillResult
from .load.result import LoadResult
from .plunge.result import PlungeResult
from .reshard.result import ReshardResult
from .scrub.result import ScrubResult
from .spillover.result import SpilloverResult
from .tenants.result import UsageSummary


@dataclass
class SignalResults:
    """One field per signal that judges, under the signal's name."""

    fill: FillResult | None = None
    spillover: SpilloverResult | None = None
    scrub: ScrubResult | None = None
    load: LoadResult | None = None
    reshard: ReshardResult | None = None
    bucket_watch: BucketPollResult | None = None
    degraded: DegradedResult | None = None
    plunge: PlungeResult | None = None
    tenants: UsageSummary | None = None

    def of(self, signal: str) -> object | None:
        """The result of the signal of that name; None for a signal that judges nothing."""
        return getattr(self, signal, None) if signal in _NAMES else None

    def clear(self, signal: str) -> None:
        """A signal whose derivation raised judges nothing."""
        if signal in _NAMES:
            setattr(self, signal, None)


_NAMES = frozenset(f.name for f in fields(SignalResults))


def _owners() -> dict[type, str]:
    hints = get_type_hints(SignalResults)
    return {kind: name for name in _NAMES for kind in get_args(hints[name]) if kind is not types.NoneType}


# Which signal leaves a result of each class: what SignalInput.result holds to the reader's needs.
RESULT_OWNERS: dict[type, str] = _owners()
