"""S3 throughput plunges and their likely cause [000, 001, 004].

The study's headline symptom: throughput fell from ~5.4K to ~3.9K ops/s with "sudden plunges" at
each dynamic reshard [000]; deep scrubbing at a high rate caused "a brief, significant drop" in
PUT and GET [001]; spillover growth cut write ops [000]; one failed node cost 21 % of PUT and 25 %
of GET ops/s [004]. Each cause has its own signal; this one says which of them was active while
the S3 ops fell, so that nobody correlates five boards by eye.

Detection (plunge_detect.py, on windows of the RGW counters from plunge_rates.py): an op rate
below the median of the windows of the last `plunge_baseline_seconds` by `plunge_drop_ratio`, with
the clients' demand still there, over two refreshes of the counters. A plunge starts one window
before the first such window, holds the baseline it started from, and ends when no op has been
down by half the threshold over two refreshes (the windows straddling a switch of phase are no
return: detect.clients_left), or after `plunge_baseline_seconds` (the new level is then the
cluster's) unless its named cause ends by itself (a reshard, deep scrubs, data
moving), was seen as the plunge began and is still seen (a reshard: of the same bucket), up to
`plunge_cause_hold_seconds`.
Each op is judged against its own level too (levels.py): at a switch back to PUT, the baseline
is still the other phases'. A drop the clients made (demand fell with the ops, or went to another
op at a workload switch) is reported as a demand drop: no plunge, no cause. Fewer ops of larger
objects, the bytes per second held, are no drop.

Attribution (plunge_evidence.py, plunge_causes.py): the causes active during the plunge, ranked by
overlap and the study's effect size. Evidence keeps arriving for one window after the plunge
ends (a bucket poll may come later than the end of a short plunge); then the plunge is counted
under its top cause. A cause first seen more than a window after the plunge was read yields to
those seen as it began (an OSD down minutes into a deep-scrub storm does not take it over).
Everything is one series per cause, never per event.

Each RGW is judged on its own counters too (per_rgw.py): some RGWs plunging while the cluster's
ops hold is a plunge blamed on them (cause `rgw`), which cluster sums would hide. Slow ops come
from the health checks (slow_ops.py); OSDs down or deep scrubbing are named only where they serve
the S3 ops' pools, by the PG dump's acting sets (placement.py).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from ...config import Thresholds
from ...families import Family, counter, gauge
from ..reshard.derive import ReshardState
from ..scrub.derive import ScrubState
from ..signal_input import SignalInput
from .causes import CAUSES, HELD_CAUSES, NO_KNOWN_CAUSE, Candidate, rank, yields
from .detect import CLUSTER, DEMAND, Baseline, OpVerdict, Window, clients_left, judge, returning, still_down
from .evidence import EvidenceTracker
from .levels import OpLevels
from .per_rgw import RgwPlunges
from .rates import RgwRates
from .result import PlungeCause, PlungeResult

ONE_RGW = "rgw"  # a plunge of some RGWs while the cluster's ops held: the RGW, its host, its network
ALL_CAUSES = (*CAUSES, ONE_RGW, NO_KNOWN_CAUSE)
EVIDENCE_MAX_CHARS = 200


@dataclass
class Plunge:
    start: float
    base: Baseline  # the baseline it started from, held while it lasts
    peak: dict[str, float]  # op -> its largest drop
    end: float | None = None
    declared: float = 0.0  # the window it was read over two refreshes at (start is backdated)
    since: dict[str, float] = field(default_factory=dict)  # op -> the start of the own level that judged its drop
    candidates: list[Candidate] = field(default_factory=list)

    @property
    def cause(self) -> str:
        return self.candidates[0].cause if self.candidates else NO_KNOWN_CAUSE

    @property
    def judged_since(self) -> float:
        return judged_since(self.start, self.since.values())

    @property
    def evidence(self) -> str:
        if not self.candidates:
            return (
                "no reshard, deep-scrub burst, spillover growth, OSD down or out, slow ops or slow OSDs, recovery "
                "or fill seen"
            )
        return self.candidates[0].told(EVIDENCE_MAX_CHARS)


def judged_since(start: float, levels: Iterable[float]) -> float:
    """Since when what a drop from `start` is judged against holds: `start`, or the earliest of
    `levels`, the starts of the own levels (levels.py) that judged the ops' drops (levels_of). The
    causes' usual state is the one before it: a node's 53 OSDs down since the GET phase are no
    usual state for a PUT hour judged against the PUT hour before them (it read 'none' at the next
    PUT hour, 21 % down), while an OSD down through the windows of the level that judged the drop
    is that level's usual state, whatever the op's older levels (another phase's) ran without."""
    return min([start, *levels])


def levels_of(verdicts: Iterable[OpVerdict]) -> dict[str, float]:
    """op -> the start of the own level each verdict was judged against, where one was."""
    return {v.op: v.since for v in verdicts if v.since is not None}


class PlungeState:
    def __init__(self, th: Thresholds) -> None:
        self.rates = RgwRates(th.plunge_window_seconds)
        self.windows: deque[tuple[Window, bool]] = deque()  # (window, part of a plunge)
        self.evidence = EvidenceTracker(th)
        self.plunge: Plunge | None = None
        self.last: Plunge | None = None  # the latest plunge counted, for `ceph scale status`
        self.verdicts: dict[str, OpVerdict] = {}
        self.base: Baseline | None = None
        self.demand_drop = False
        self.slower_since: float | None = None  # the first of the windows in a row read as slower
        self.calm_since: float | None = None  # the first of the windows in a row a plunge was not on
        self.demand_seen_at: dict[str, float] = {}  # op -> the last window its drop read as the clients'
        self.left: dict[str, float] = {}  # op -> the window its clients left it at (detect.clients_left)
        self.levels = OpLevels()
        self.counts = dict.fromkeys(ALL_CAUSES, 0)
        self.demand_drops = 0
        self.rgws = RgwPlunges(th)

    def retuned(self, th: Thresholds) -> PlungeState:
        """New windows start a new history; the counts go on."""
        fresh = PlungeState(th)
        fresh.counts, fresh.demand_drops, fresh.last = dict(self.counts), self.demand_drops, self.last
        fresh.rgws.ended = self.rgws.ended
        return fresh

    def step(self, w: Window, th: Thresholds) -> None:
        """Judge one new window."""
        while self.windows and self.windows[0][0].t < w.t - th.plunge_window_seconds - th.plunge_baseline_seconds:
            self.windows.popleft()
        p = self.plunge if self.plunge is not None and self.plunge.end is None else None
        if p is not None:
            base: Baseline | None = p.base
        else:
            past = [x for x, in_plunge in self.windows if not in_plunge and x.t <= w.t - th.plunge_window_seconds]
            base = self.levels.baseline(past, w.t, th)
        self.base = base
        self.verdicts = judge(w, base, th, self.evidence.reshards.held(w.t)) if base is not None else {}
        in_plunge = False
        pending: float | None = None
        self.left = clients_left(self.left, self.verdicts, w, self.windows[-1][0] if self.windows else None, th)
        switching = bool(returning(self.left, w.t, th, self.rates.refresh_seconds()))
        if p is not None:
            going = still_down(self.verdicts, th)
            calm = not going and not switching  # a switch of phase is no return to the level
            self.calm_since = None if not calm else (w.t if self.calm_since is None else self.calm_since)
            if self.calm_since is not None and w.t - self.calm_since >= self.rates.refresh_seconds():
                p.end = self.calm_since  # back, over two refreshes of the counters as for the start
            elif w.t - p.start > th.plunge_baseline_seconds and not self._cause_holds(p, w.t, th):
                p.end = w.t
                self.windows.clear()  # the new level: the next baseline is made of it
            if p.end is not None:
                # A new plunge is read over two refreshes again, from windows after this one's end.
                self.slower_since = None
                if p.end - p.start > th.plunge_baseline_seconds:
                    # Held past the baseline, it leaves no window in the baseline: the levels
                    # kept from before it go with them.
                    self.levels.clear()
            else:
                in_plunge = True
                for v in going:
                    p.peak[v.op] = max(p.peak.get(v.op, 0.0), v.drop)
                for op, level_start in levels_of(going).items():
                    p.since[op] = min(p.since.get(op, level_start), level_start)
        else:
            # An op whose window still holds its clients' own drop is not read slower: clients
            # coming back at once read as demand while the window's op rate is still low. Per op:
            # at a switch to PUT the GETs' drop is the clients', the PUTs' stall is not.
            back = returning(self.demand_seen_at, w.t, th, self.rates.refresh_seconds())
            slower = {v.op: v.drop for v in self.verdicts.values() if v.kind == CLUSTER and v.op not in back}
            # Once read slower, still so while an op stays down by half the threshold (the end's
            # rule): a stall of a few seconds moves a window's rate by more than the threshold in
            # one window and by a little less in the next.
            still = any(v.op not in back for v in still_down(self.verdicts, th))
            # Read so over two refreshes of the counters at least: a window that straddles a change
            # in demand can read as a slower cluster until the next refresh (the ops, the latency and
            # the requests in flight do not move in step within it).
            since = self.slower_since
            if slower and since is not None and w.t - since >= self.rates.refresh_seconds() and base is not None:
                if self.plunge is not None:  # the last one is still taking evidence: it is over now
                    self._count(self.plunge)
                # The first of those windows began when the drop may have: a cause must have been
                # active since then (its effect reaches the counters up to a window later).
                self.plunge = Plunge(
                    start=since - th.plunge_window_seconds,
                    base=base,
                    peak=slower,
                    declared=w.t,
                    since=levels_of(v for v in self.verdicts.values() if v.op in slower),
                )
                self.calm_since = None
                in_plunge = True
            if slower:
                self.slower_since = w.t if since is None else since
                if not in_plunge and base is not None:
                    # Read slower, not yet over two refreshes: the causes seen at the next poll
                    # are judged as they will be once it is a plunge.
                    fell = levels_of(v for v in self.verdicts.values() if v.op in slower)
                    pending = judged_since(self.slower_since - th.plunge_window_seconds, fell.values())
            elif not still:
                self.slower_since = None
        down = any(v.drop >= th.plunge_drop_ratio / 2 for v in self.verdicts.values())
        if in_plunge:
            self.demand_drop = False
        elif any(v.kind == DEMAND for v in self.verdicts.values()):
            self.demand_drops += 0 if self.demand_drop else 1
            self.demand_drop = True
            self.demand_seen_at.update((v.op, w.t) for v in self.verdicts.values() if v.kind == DEMAND)
        elif not down:  # as a plunge, a demand drop ends when no op is down by half the threshold
            self.demand_drop = False
        self.windows.append((w, in_plunge))
        self.evidence.hold(self.plunge.judged_since if in_plunge and self.plunge is not None else pending)

    def _cause_holds(self, p: Plunge, t: float, th: Thresholds) -> bool:
        """A plunge past the baseline is the new level unless its named cause is one that ends by
        itself (HELD_CAUSES), was seen as the plunge began and is still seen (for a reshard, of the
        same bucket), up to `plunge_cause_hold_seconds`: a reshard that holds the writes longer
        than the baseline is not a level the cluster settled at, and ends with the reshard. A node
        down for days is: its plunge ends after the baseline."""
        within = t - p.start <= th.plunge_cause_hold_seconds
        return within and p.cause in HELD_CAUSES and self.evidence.still_seen(p.cause, p.start, p.declared, t)

    def attribute(self, now: float, th: Thresholds) -> None:
        """Rank the causes of the current (or just ended) plunge; count it once its evidence is in."""
        p = self.plunge
        if p is None:
            return
        end = p.end if p.end is not None else now
        reads_fell = p.peak.get("get", 0.0) >= th.plunge_drop_ratio
        window = th.plunge_window_seconds
        # A cause first seen more than a window after the plunge was read did not make it: it yields
        # to the causes seen as it began. An OSD that went down 5 minutes into a deep-scrub storm
        # grew its overlap with every OSD-map poll and took the storm over, the named cause
        # flickering between the two as each source polled.
        late = p.declared + window
        p.candidates = rank(
            p.start,
            end,
            p.peak,
            self.evidence.current(now),
            lambda e: yields(e, p.start, window, reads_fell) or e.start > late,
        )
        if p.end is not None and now >= p.end + th.plunge_window_seconds:
            self._count(p)

    def _count(self, p: Plunge) -> None:
        self.counts[p.cause] += 1
        self.last, self.plunge = p, None

    @property
    def active(self) -> bool:
        """A plunge of the cluster's ops, or of some RGWs' while the cluster's held."""
        return (self.plunge is not None and self.plunge.end is None) or bool(self.rgws.confined())

    def confined(self) -> Plunge | None:
        """The plunge of some RGWs while the cluster's ops held, as a plunge blamed on them."""
        found = self.rgws.confined()
        if not found or (self.plunge is not None and self.plunge.end is None):
            return None
        text = self.rgws.evidence()
        return Plunge(
            found[0].start, found[0].base, dict(found[0].peak), candidates=[Candidate(ONE_RGW, 1.0, 1.0, None, text)]
        )


def derive(given: SignalInput, state: PlungeState) -> list[Family]:
    snap, th = given.snap, given.th
    state.evidence.observe(snap, given.state(ReshardState), given.state(ScrubState), th)
    perf = snap.perf
    if perf is None or not perf.rgw_ops:
        return []
    window = state.rates.add(perf.collected_at, perf.rgw_ops)
    if window is not None:
        state.step(window, th)
    state.rgws.add(perf.collected_at, perf.rgw_ops, state.plunge is not None and state.plunge.end is None)
    state.counts[ONE_RGW] = state.rgws.ended
    state.attribute(max(snap.taken_at, perf.collected_at), th)

    active = gauge("s3_plunge_active", "1 while S3 ops are down against their recent baseline, the demand still there.")
    demand = gauge("s3_demand_drop_active", "1 while S3 ops are down because clients asked less: no cluster fault.")
    active.add(1 if state.active else 0)
    demand.add(1 if state.demand_drop else 0)
    drop = gauge(
        "s3_plunge_drop_ratio",
        "S3 throughput below the baseline, as a share of it: ops/s, or bytes/s where they fell less (negative: above).",
        "op",
    )
    clients = gauge("s3_plunge_demand_ratio", "The clients' demand now / in the baseline (Little's law).", "op")
    for op, v in sorted(state.verdicts.items()):
        drop.add(v.drop, op)
        if v.demand is not None:
            clients.add(v.demand, op)
    score = gauge("s3_plunge_cause_score", "How well each candidate cause explains the current plunge (0..1).", "cause")
    info = gauge("s3_plunge_info", "1 for the likely cause of the current plunge, its evidence.", "cause", "evidence")
    p = state.plunge or state.confined()
    scores: list[tuple[str, float]] = []
    if p is not None:
        scores = [(c.cause, c.score) for c in p.candidates] or [(NO_KNOWN_CAUSE, 1.0)]
        for cause, value in scores:
            score.add(value, cause)
        info.add(1, p.cause, p.evidence)
    plunges = counter("s3_plunges", "S3 throughput plunges counted when over, by their likely cause.", "cause")
    for cause in ALL_CAUSES:
        plunges.add(state.counts[cause], cause)
    drops = counter("s3_demand_drops", "S3 op drops the clients made (demand fell with the ops).")
    drops.add(state.demand_drops)
    given.judged(
        PlungeResult(
            state.active,
            state.demand_drop,
            {op: v.drop for op, v in sorted(state.verdicts.items())},
            {op: v.demand for op, v in sorted(state.verdicts.items()) if v.demand is not None},
            tuple(scores),
            PlungeCause(p.cause, p.evidence) if p is not None else None,
            {cause: state.counts[cause] for cause in ALL_CAUSES},
            state.demand_drops,
            state.evidence.reshards.own_ops.summary(),
            state.evidence.reshards.own_ops.counts_now,
        )
    )
    return [active, demand, drop, clients, score, info, plunges, drops]
