"""The K largest of 100,000 records without building a full sort key for each."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def top_k(k: int, items: Sequence[T], first: Sequence[float], key: Callable[[T], Any]) -> list[T]:
    """heapq.nlargest(k, items, key=key), where key(items[i])[0] == first[i]: only the items at or
    above the k-th largest `first` can be among the k, so only those get their key (with its ties)."""
    floor = heapq.nlargest(k, first)[-1] if k and first else math.inf
    return heapq.nlargest(k, [x for v, x in zip(first, items) if v >= floor], key=key)
