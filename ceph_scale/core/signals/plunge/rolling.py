"""The baseline of a list of windows: the median of each rate over them, and the least and most
requests in flight (detect.Baseline), kept as each rate's values in order.

At every 15 s poll the baseline's windows (120 of them over the default 1,800 s) change by one in
and one out, and so do most phases' (levels.py). Taking each median anew sorts every rate of every
window for the cluster and for each of the 12 RGWs at every poll; kept in order, a window in or out
is one insertion or deletion per rate. The values are statistics.median's and min's and max's over
the windows in their order, as printed (tests/unit/signals/plunge/test_rolling.py takes them so).
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterator, Sequence

from .detect import MIN_WINDOWS, OPS, Baseline, Window

# Past this share of the windows changed, sorting anew is no dearer than moving them one by one.
REBUILD_SHARE = 0.5
# Each op's rate keys (op, ops, busy, bytes), made once: the rates are taken of every window in or out.
KEYS = tuple((op, f"ops:{op}", f"busy:{op}", f"bytes:{op}") for op in OPS)


def _rates(w: Window) -> Iterator[tuple[str, float]]:
    """Each rate the baseline takes a median of, as (key, value); a rate the window lacks is left
    out, but an op's ops/s, which are 0 where unread."""
    for op, ops, busy, size in KEYS:
        yield ops, w.ops.get(op, 0.0)
        if op in w.busy:
            yield busy, w.busy[op]
        if op in w.bytes:
            yield size, w.bytes[op]
    if w.in_flight is not None:
        yield "in_flight", w.in_flight
    if w.requests is not None:
        yield "requests", w.requests
    if w.failed is not None:
        yield "failed", w.failed


def _plain(v: float) -> bool:
    """A value whose place in order is its identity: a float, not NaN (unordered) nor -0.0 or an int
    (equal to 0.0 or a float, yet printed otherwise: where equal values sit would then show)."""
    return type(v) is float and v == v and (v != 0.0 or math.copysign(1.0, v) > 0)


def _mid(ordered: list[float]) -> float:
    """statistics.median of values already in order (its arithmetic, so the same float)."""
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def _median(ordered: list[float] | None) -> float | None:
    return _mid(ordered) if ordered else None


class RollingBaseline:
    """The baseline of the windows of each call, from the last call's. Each window object is
    taken once per list (a list repeating one is sorted anew), and not changed once made (Window
    is frozen; rates.py makes a new one at each poll).

    The usual call's windows are the last call's slid on, a few out at the start and a few in at
    the end: `_slid` finds those by the windows' ids in order, and only other calls compare the
    two calls' windows as sets. Which windows go and come is the same either way; the order they
    are moved in does not change the values in order, each a float that only its equals tie."""

    def __init__(self) -> None:
        self.members: list[Window] = []  # the windows the values are of, in the last call's order
        self.ids: list[int] = []  # their ids
        self.values: dict[str, list[float]] = {}  # rate key -> its values over the members, in order
        self.bisectable = False  # every value _plain: one moved in or out finds its place

    def of(self, windows: Sequence[Window]) -> Baseline | None:
        """The baseline of `windows`, or None with fewer than MIN_WINDOWS (a level is not one window),
        from the values kept for the windows of the last call."""
        if len(windows) < MIN_WINDOWS:
            return None
        # Forgotten until this call is done: one that raises midway leaves the next to sort anew.
        members, self.members = self.members, []
        before, self.ids = self.ids, []
        ids = list(map(id, windows))
        slid = _slid(before, ids)
        if slid is not None:  # the usual step: the windows in the same order, some out, some in
            gone, new, distinct = members[:slid], list(itertools.islice(windows, len(before) - slid, None)), True
        else:
            now = dict(zip(ids, windows))
            was = dict(zip(before, members))
            gone = [was[k] for k in was.keys() - now.keys()]
            new = [now[k] for k in now.keys() - was.keys()]
            distinct = len(now) == len(windows)
        moved = (
            self.bisectable
            and distinct
            and len(gone) + len(new) <= REBUILD_SHARE * len(windows)
            and self._move(gone, new)
        )
        if not moved:
            self._rebuild(windows)
        if distinct:  # a repeat's values: no member's alone
            self.members, self.ids = list(windows), ids
        return self._baseline(windows)

    def _move(self, gone: list[Window], new: list[Window]) -> bool:
        """Take the windows gone out and the new ones in; False where a value is not _plain: sorting
        anew then gives what sorting the windows' values in their order gives."""
        moves = [(key, v, False) for w in gone for key, v in _rates(w)]
        moves += [(key, v, True) for w in new for key, v in _rates(w)]
        if not all(_plain(v) for _, v, _ in moves):
            return False
        for key, v, entering in moves:
            in_order = self.values.setdefault(key, [])
            if entering:
                bisect.insort(in_order, v)
            else:
                i = bisect.bisect_left(in_order, v)
                if i == len(in_order) or in_order[i] != v:
                    return False
                del in_order[i]
        return True

    def _rebuild(self, windows: Sequence[Window]) -> None:
        values: dict[str, list[float]] = {}
        for w in windows:
            for key, v in _rates(w):
                values.setdefault(key, []).append(v)
        self.values = {key: sorted(vs) for key, vs in values.items()}
        self.bisectable = all(_plain(v) for vs in values.values() for v in vs)

    def _baseline(self, windows: Sequence[Window]) -> Baseline:
        get = self.values.get
        ops = {op: _mid(self.values[key]) for op, key, _, _ in KEYS}
        busy = {op: m for op, _, key, _ in KEYS if (m := _median(get(key))) is not None}
        sizes = {op: m for op, _, _, key in KEYS if (m := _median(get(key))) is not None}
        flights = get("in_flight")
        floor, peak = (flights[0], flights[-1]) if flights else (None, None)
        if flights and not self.bisectable:  # min and max of equal values: the first, as there
            raw = [w.in_flight for w in windows if w.in_flight is not None]
            floor, peak = min(raw), max(raw)
        return Baseline(
            ops,
            busy,
            _median(flights),
            _median(get("requests")),
            len(windows),
            floor,
            peak,
            sizes,
            failed=_median(get("failed")),
            start=windows[0].t,
        )


def _slid(before: list[int], now: list[int]) -> int | None:
    """How many of the windows `before` (their ids) went out, where `now` is the rest of them in
    their order, then windows not among them, each once; None otherwise (the sets then tell)."""
    if not before or not now:
        return None
    try:
        out = before.index(now[0])
    except ValueError:
        return None
    kept = len(before) - out
    new = now[kept:]
    fresh = set(new)
    if now[:kept] != before[out:] or len(fresh) != len(new) or not fresh.isdisjoint(before):
        return None
    return out


def baseline(windows: Sequence[Window]) -> Baseline | None:
    """The baseline of these windows alone, or None with fewer than MIN_WINDOWS."""
    return RollingBaseline().of(windows)
