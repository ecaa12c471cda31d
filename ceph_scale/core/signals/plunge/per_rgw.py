"""A plunge of one RGW: each RGW's own counters judged against its own baseline [issue 27: a
plunge confined to one RGW of 12 disappears in cluster sums].

The perf counters are per daemon: each RGW gets the cluster's detection (detect.py) on its own
windows. One RGW of 12 whose ops stop is 8 % of the cluster's, under `plunge_drop_ratio`; against
its own baseline it is all of them, its clients' requests still waiting in it. An RGW plunges
when it reads slower over two refreshes of the counters, and is over when no op of it has been
down by half the threshold over two refreshes, or after `plunge_baseline_seconds` (its new level).
Each op is judged against its own level on that RGW too (levels.py): one RGW's writes stalling as
a PUT hour starts are down against its last PUT hour, not up against the GETs its baseline holds.
What is told of it, in the plunge's evidence: which RGW, its drop, and how many of the others
held. No series per RGW: the plunge's own series (one per cause) name it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ...config import Thresholds
from ...snapshot import RgwOpCounters
from .detect import CLUSTER, DEMAND, Baseline, OpVerdict, Window, clients_left, judge, returning, still_down
from .evidence import percent
from .levels import OpLevels
from .rates import RgwRates


@dataclass
class RgwPlunge:
    start: float
    base: Baseline
    peak: dict[str, float] = field(default_factory=dict)  # op -> its largest drop
    with_cluster: bool = False  # the cluster's ops plunged too at some time: not confined to it


class OneRgw:
    def __init__(self, th: Thresholds) -> None:
        self.rates = RgwRates(th.plunge_window_seconds)
        self.windows: deque[tuple[Window, bool]] = deque()
        self.levels = OpLevels()
        self.verdicts: dict[str, OpVerdict] = {}
        self.plunge: RgwPlunge | None = None
        self.slower_since: float | None = None
        self.calm_since: float | None = None
        self.demand_seen_at: dict[str, float] = {}  # op -> the last window its drop read as the clients'
        self.left: dict[str, float] = {}  # op -> the window its clients left it at (detect.clients_left)

    def step(self, w: Window, th: Thresholds) -> RgwPlunge | None:
        """Judge one window; the plunge it ended, if it did."""
        while self.windows and self.windows[0][0].t < w.t - th.plunge_window_seconds - th.plunge_baseline_seconds:
            self.windows.popleft()
        p = self.plunge
        if p is not None:
            base: Baseline | None = p.base
        else:
            done = w.t - th.plunge_window_seconds  # the windows ended by this one's start
            past = [x for x, on in self.windows if not on and x.t <= done]
            base = self.levels.baseline(past, w.t, th)
        self.verdicts = judge(w, base, th) if base is not None else {}
        going = still_down(self.verdicts, th)
        refresh = self.rates.refresh_seconds()
        # Seen in a plunge too: a plunge that a switch of phase ended (its op's demand fell) is
        # followed by the op's return, which must not start this RGW's plunge before the cluster's
        # (all 12 RGWs then read as a plunge confined to them, blamed on `rgw`).
        self.demand_seen_at.update((v.op, w.t) for v in self.verdicts.values() if v.kind == DEMAND)
        self.left = clients_left(self.left, self.verdicts, w, self.windows[-1][0] if self.windows else None, th)
        ended = None
        if p is not None:
            calm = not going and not returning(self.left, w.t, th, refresh)  # a switch is no return to the level
            self.calm_since = None if not calm else (w.t if self.calm_since is None else self.calm_since)
            if self.calm_since is not None and w.t - self.calm_since >= refresh:
                ended, self.plunge = p, None
            elif w.t - p.start > th.plunge_baseline_seconds:
                ended, self.plunge = p, None
                self.windows.clear()  # the new level: the next baseline is made of it
                self.levels.clear()
            else:
                for v in going:
                    p.peak[v.op] = max(p.peak.get(v.op, 0.0), v.drop)
        else:
            # Per op, as the cluster's (derive.PlungeState): at a switch to PUT the GETs' drop is
            # the clients', the PUTs' stall is not.
            back = returning(self.demand_seen_at, w.t, th, refresh)
            slower = {v.op: v.drop for v in self.verdicts.values() if v.kind == CLUSTER and v.op not in back}
            going = [v for v in going if v.op not in back]
            since = self.slower_since
            if slower and since is not None and w.t - since >= refresh and base is not None:
                self.plunge = RgwPlunge(since - th.plunge_window_seconds, base, dict(slower))
                self.calm_since = None
            if slower:
                self.slower_since = w.t if since is None else since
            elif not going:
                self.slower_since = None
        self.windows.append((w, self.plunge is not None))
        return ended


class RgwPlunges:
    def __init__(self, th: Thresholds) -> None:
        self.th = th
        self.rgws: dict[str, OneRgw] = {}
        self.ended = 0  # RGW plunges over while the cluster's ops held (confined to their RGWs)

    def add(self, t: float, counters: tuple[RgwOpCounters, ...], cluster_plunging: bool) -> None:
        seen = set()
        for r in counters:
            seen.add(r.instance_id)
            one = self.rgws.setdefault(r.instance_id, OneRgw(self.th))
            w = one.rates.add(t, (r,))
            ended = one.step(w, self.th) if w is not None else None
            for p in (ended, one.plunge):
                if p is not None and cluster_plunging:
                    p.with_cluster = True
            if ended is not None and not ended.with_cluster:
                self.ended += 1
        for gone in set(self.rgws) - seen:  # an RGW no longer reporting: nothing to judge it by
            del self.rgws[gone]
        if len(self.rgws) < 2:  # one RGW is the cluster: its plunge is the cluster's
            for one in self.rgws.values():
                if one.plunge is not None:
                    one.plunge.with_cluster = True

    def plunging(self) -> dict[str, OneRgw]:
        """The RGWs whose own ops plunge while the cluster's held (confined to them), by RGW."""
        return {
            i: one for i, one in sorted(self.rgws.items()) if one.plunge is not None and not one.plunge.with_cluster
        }

    def confined(self) -> list[RgwPlunge]:
        """Their plunges, earliest first."""
        return sorted((one.plunge for one in self.plunging().values() if one.plunge), key=lambda p: p.start)

    def evidence(self) -> str:
        """'RGW 14250 (1 of 12): PUT -100%, its clients' requests waiting in it; the other 11 held'."""
        down = self.plunging()
        if not down:
            return ""
        parts = []
        for instance, one in list(down.items())[:3]:
            ops = ", ".join(
                f"{op.upper()} -{percent(d)}"
                for op, d in sorted((one.plunge.peak if one.plunge else {}).items(), reverse=True)
            )
            parts.append(f"RGW {instance} {ops}")
        more = f" and {len(down) - 3} more" if len(down) > 3 else ""
        held = len(self.rgws) - len(down)
        share = f"{len(down)} of {len(self.rgws)} RGWs, their clients still waiting"
        return f"{'; '.join(parts)}{more} ({share}); the other {held} held"
