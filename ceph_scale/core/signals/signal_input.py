"""What every signal's `derive(given, state)` is given: one argument, the same for all."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..config import Thresholds
from ..snapshot import Snapshot
from .results import SignalResults


@dataclass(frozen=True)
class SignalInput:
    snap: Snapshot
    th: Thresholds
    # The per-shard object limit buckets are judged by, from wherever it came
    # (derive.shard_limit_and_origin): worked out once, used by the reshard and config families.
    shard_limit: int
    # Every signal's state by name, read only: a signal listed after others in the registry (the
    # plunge and runway signals) reads what they kept from this snapshot.
    states: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # Where each signal leaves its judgement (signals/results.py), for the health checks and the report.
    results: SignalResults = field(default_factory=SignalResults)
