"""Each S3 op's own levels: the baselines of the phases in which its clients asked it, for the
plunge detector (detect.py) when the recent baseline is another phase's [000: each COSBench round
wrote for an hour, then read and ran a mixed load for 15 minutes each].

The baseline is the median of the last `plunge_baseline_seconds`. A phase shorter than it never
holds a majority of its windows, and for half of it after a switch its median is still the phases
before: the resharding run's reshards that hold the writes as a PUT hour starts read as more PUTs
than the GET and mixed phases' baseline, and the study's 15-minute GET phase in a 30-minute
baseline left the GETs a median across the GET and mixed phases (19,103 GET/s where the GET phase
ran 28,800: a node dying in it, -25 %, read as no drop).

So each op keeps a level per phase (`phases`): the baseline's windows grouped by the op's demand
in them (its seconds in flight per second), each group within `plunge_drop_ratio` of the third
most of the windows left (the third, so that a window or two whose completions bunched up, a
stall's, do not set it). A group is a phase where its windows cover LEVEL_SPAN_WINDOWS windows'
seconds in runs (`covered`): a switch's straddling windows or a noisy minute are not one. The op
is judged against the level of the phase that asked it as much as now (detect.judge): the GET
phase's for GETs in the GET phase, the mixed phase's in the mixed phase (a node dying as the mixed
phase begins is then a drop from its first minute: against the baseline alone, its windows became
their own baseline).

A phase's new baseline replaces its kept level unless it reads as a drop against it (`fell`): a
fault present from a phase's first minutes would otherwise be the level within minutes. Each
level is kept for two baselines from its last replacement: the baseline holds a phase for half a
baseline after it ends and again from half a baseline into its next, so other phases of up to a
baseline in between are covered; a phase not seen for longer is gone. A plunge that lasted the
baseline is the cluster's new level: the levels before it go (`clear`).
"""

from __future__ import annotations

import bisect
import dataclasses
import math
import operator
import statistics
from collections.abc import Sequence

from ...config import Thresholds
from .detect import MIN_WINDOWS, OPS, Baseline, Window, throughput_drop
from .rolling import RollingBaseline

LEVEL_SPAN_WINDOWS = 3  # a phase's windows cover this many windows' seconds at least


def gaps(windows: Sequence[Window]) -> list[float]:
    """Each window's time less the one before it."""
    times = [w.t for w in windows]
    return list(map(operator.sub, times[1:], times))


def near_gap(past: Sequence[Window], th: Thresholds) -> float:
    """How far apart two windows of one run may be (covered): one and a half windows, or polls."""
    apart = gaps(past)
    return 1.5 * max(th.plunge_window_seconds, statistics.median(apart) if apart else 0.0)


def phases(past: Sequence[Window], op: str, th: Thresholds, near: float) -> list[list[Window]]:
    """The windows of `past` grouped by their demand for `op`, most first: each group those of the
    windows left within `plunge_drop_ratio` of the third most, where they cover LEVEL_SPAN_WINDOWS
    windows, no two of a run more than `near` apart (near_gap).

    The groups' least demands come from one sort of the demands (`least_demands`), and each
    window's demand is read once: this runs at every poll for each op of the cluster and of each
    of the 12 RGWs."""
    left = [(asked, w) for w in past if (asked := w.busy.get(op, 0.0)) > 0]
    span = LEVEL_SPAN_WINDOWS * th.plunge_window_seconds
    out = []
    for least in least_demands(sorted([asked for asked, _ in left]), th.plunge_drop_ratio):
        group = [w for asked, w in left if asked >= least]
        left = [(asked, w) for asked, w in left if asked < least]
        if covered(group, near) >= span:
            out.append(group)
    return out


def least_demands(asked: list[float], drop: float) -> list[float]:
    """The least demand of each group (phases), most first, from the demands in order (least
    first): each within `drop` of the MIN_WINDOWS-th most of those left, the demands below it the
    next group's. The ones left are the least, so the group's are a run at their end (no demand is
    NaN: each is above 0; a NaN least, of an infinite demand at a ratio of 1, leaves none)."""
    out = []
    n = len(asked)  # asked[:n]: the demands left
    while n >= MIN_WINDOWS:
        least = (1.0 - drop) * asked[n - MIN_WINDOWS]
        out.append(least)
        n = bisect.bisect_left(asked, least, 0, n)
    return out


def covered(windows: Sequence[Window], near: float) -> float:
    """The seconds the windows cover in runs whose windows are no more than `near` apart (one and a
    half windows, or polls where they are sparser: the replays poll every 2 minutes): windows far
    apart (one before a plunge, two at a switch after it) are no phase."""
    return sum(gap for gap in gaps(windows) if gap <= near)


def alike(a: float, b: float, th: Thresholds) -> bool:
    """Demands of the same phase: within `plunge_drop_ratio` of each other."""
    return min(a, b) >= (1.0 - th.plunge_drop_ratio) * max(a, b)


def fell(level: Baseline, kept: Baseline, op: str, th: Thresholds) -> bool:
    """Whether `level` reads as a drop of `op` against `kept`, as a window would (detect._verdict)."""
    return kept.ops.get(op, 0.0) > 0 and throughput_drop(level.ops, level.bytes, kept, op) >= th.plunge_drop_ratio


class OpLevels:
    def __init__(self) -> None:
        self.kept: dict[str, list[tuple[float, Baseline]]] = {}  # op -> (when last taken, level) per phase
        self.rolling = RollingBaseline()  # the baseline's windows
        self.groups: dict[tuple[str, int], RollingBaseline] = {}  # (op, phase by rank) -> its windows

    def update(self, t: float, op: str, level: Baseline, th: Thresholds) -> None:
        """Take `level` at t as the op's level of its phase, unless it reads as a drop against it."""
        busy, ops = level.busy.get(op), level.ops.get(op, 0.0)
        if busy is None or busy <= 0 or ops <= 0 or ops < th.plunge_min_ops_per_second:
            return
        pairs = self._fresh(op, t, th)
        alikes = [i for i, (_, b) in enumerate(pairs) if alike(busy, b.busy.get(op, 0.0), th)]
        if not alikes:
            pairs.append((t, level))
        else:
            same = min(alikes, key=lambda i: abs(math.log(busy / pairs[i][1].busy[op])))
            if not fell(level, pairs[same][1], op, th):
                pairs[same] = (t, level)
        self.kept[op] = pairs

    def _fresh(self, op: str, t: float, th: Thresholds) -> list[tuple[float, Baseline]]:
        """The op's levels taken no longer than two baselines ago, with when."""
        return [(since, b) for since, b in self.kept.get(op, []) if t - since <= 2 * th.plunge_baseline_seconds]

    def fresh(self, t: float, th: Thresholds) -> dict[str, list[Baseline]]:
        """The levels kept no longer than two baselines."""
        out = {op: [b for _, b in self._fresh(op, t, th)] for op in self.kept}
        return {op: levels for op, levels in out.items() if levels}

    def attach(self, t: float, base: Baseline, th: Thresholds) -> Baseline:
        """The baseline with the ops' own levels where they are not this baseline itself."""
        own = {op: tuple(b for b in levels if b is not base) for op, levels in self.fresh(t, th).items()}
        own = {op: levels for op, levels in own.items() if levels}
        return dataclasses.replace(base, own=own) if own else base

    def baseline(self, past: Sequence[Window], t: float, th: Thresholds) -> Baseline | None:
        """The baseline of `past` (rolling.py), with each op's levels of its phases attached
        where they are not this baseline."""
        base = self.rolling.of(past)
        if base is not None:
            # A level is a phase's own, from a baseline of at least half its span. A history begun
            # anew (a plunge that became the new level) has a few windows, whose median steps through
            # the partial windows of a switch of phase one at a time: each step within
            # `plunge_drop_ratio` of the last, it would walk the op's level down to the next phase's.
            if past[-1].t - past[0].t >= th.plunge_baseline_seconds / 2:
                near = near_gap(past, th)
                for op in OPS:
                    for rank, group in enumerate(phases(past, op, th, near)):
                        if (op, rank) not in self.groups:
                            self.groups[op, rank] = RollingBaseline()
                        level = base if len(group) == len(past) else self.groups[op, rank].of(group)
                        if level is not None:
                            self.update(t, op, level, th)
            base = self.attach(t, base, th)
        return base

    def clear(self) -> None:
        self.kept.clear()
        self.rolling, self.groups = RollingBaseline(), {}  # the windows before go with the levels
