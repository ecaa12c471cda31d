"""Each S3 op's own level: the baseline in which its clients last asked it most, for the plunge
detector (detect.py) when the recent baseline is another phase's [000: each COSBench round wrote
for an hour, then read and ran a mixed load for 15 minutes each].

The baseline is the median of the last `plunge_baseline_seconds`. For half of it after a switch to
PUT, that median is still the GETs' and the mixed load's, where few PUTs ran: the resharding run's
reshards that hold the writes as a PUT hour starts (half the PUTs the same workers wrote an hour
before) read as more PUTs than the baseline's, no drop. The PUTs' own level is the baseline of
their own hour, kept while the other phases run.

A baseline becomes the op's level when the op's demand in it (its seconds in flight per second,
busy) is at least the kept level's less `plunge_drop_ratio`: the level follows the op's own
phases, while a phase that asks it less leaves the level of its own phase in place. The level is
kept for two baselines: the baseline holds an op's phase for half a baseline after the phase
ends and again from half a baseline into its next, so other phases of up to a baseline in between
(the study's 30 minutes) are covered; an op idle longer is judged against the recent baseline only.
A plunge that lasted the baseline is the cluster's new level: the levels before it go
(`clear`).

An op's level is taken from the windows in which its clients asked it most (`asked_most`), not
from the median of all of the baseline's: a phase shorter than the baseline never holds a
majority of its windows. The study's 15-minute GET phase in a 30-minute baseline left the GETs'
level a median across the GET and mixed phases, 19,103 GET/s where the GET phase ran 28,800: a
node dying in the GET phase (-25 %) read as no drop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ...config import Thresholds
from .detect import OPS, Baseline, Window, baseline

MIN_WINDOWS = 3  # detect.baseline's: a level is not one window


def asked_most(past: Sequence[Window], op: str, th: Thresholds) -> list[Window]:
    """The windows whose demand for `op` (its seconds in flight per second) is within
    `plunge_drop_ratio` of the third most: the op's own phase. The third, so that a window or two
    whose completions bunched up (a stall's) do not set it; empty where fewer windows asked it."""
    asked = sorted((w.busy.get(op, 0.0) for w in past), reverse=True)
    if len(asked) < MIN_WINDOWS or asked[MIN_WINDOWS - 1] <= 0:
        return []
    least = (1.0 - th.plunge_drop_ratio) * asked[MIN_WINDOWS - 1]
    return [w for w in past if w.busy.get(op, 0.0) >= least]


class OpLevels:
    def __init__(self) -> None:
        self.kept: dict[str, tuple[float, Baseline]] = {}  # op -> (when it was the op's level, the baseline)

    def update(self, t: float, op: str, base: Baseline, th: Thresholds) -> None:
        """Take the baseline at t as the op's level where the op is asked as much as in its kept one."""
        busy, ops = base.busy.get(op), base.ops.get(op, 0.0)
        if busy is None or busy <= 0 or ops <= 0 or ops < th.plunge_min_ops_per_second:
            return
        kept = self.fresh(t, th).get(op)
        if kept is None or busy >= (1.0 - th.plunge_drop_ratio) * kept.busy.get(op, 0.0):
            self.kept[op] = (t, base)

    def fresh(self, t: float, th: Thresholds) -> dict[str, Baseline]:
        """The levels kept no longer than two baselines."""
        return {op: b for op, (since, b) in self.kept.items() if t - since <= 2 * th.plunge_baseline_seconds}

    def attach(self, t: float, base: Baseline, th: Thresholds) -> Baseline:
        """The baseline with the ops' own levels where they are not this baseline itself."""
        own = {op: b for op, b in self.fresh(t, th).items() if b is not base}
        return dataclasses.replace(base, own=own) if own else base

    def baseline(self, past: Sequence[Window], t: float, th: Thresholds) -> Baseline | None:
        """The baseline of `past` (detect.baseline), with each op's own level attached where it is not
        this baseline: the baseline of the windows that asked the op most (`asked_most`)."""
        base = baseline(past)
        if base is not None:
            # A level is a phase's own, from a baseline of at least half its span. A history begun
            # anew (a plunge that became the new level) has a few windows, whose median steps through
            # the partial windows of a switch of phase one at a time: each step within
            # `plunge_drop_ratio` of the last, it would walk the op's level down to the next phase's.
            if past[-1].t - past[0].t >= th.plunge_baseline_seconds / 2:
                for op in OPS:
                    own = asked_most(past, op, th)
                    level = base if len(own) == len(past) else baseline(own, MIN_WINDOWS)
                    if level is not None:
                        self.update(t, op, level, th)
            base = self.attach(t, base, th)
        return base

    def clear(self) -> None:
        self.kept.clear()
