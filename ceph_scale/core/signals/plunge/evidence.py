"""What each known cause of a plunge was doing, and when: evidence for core/signals/plunge/causes.py.

Each time a source brings a new part, every cause it tells about is judged active or not, and an
active one leaves an interval from that source's previous poll to this one (it may have been on
for all of it). A condition counts only when it is new against the recent past, the median of its
polls over the baseline before the current window: a cluster that has had an OSD down for a week,
or scrubbed 28 PGs at a time all along [004], did not plunge for it now.

- reshard: buckets resharding, more of them than usual at a poll (plunge/reshard_cause.py): at
  100,000 buckets some bucket is nearly always resharding. A bucket whose own ops did not fall
  is no cause; where they were not counted, that is said (plunge/own_ops.py);
- deep_scrub: PGs deep scrubbing now plus deep scrubs completed since the last PG poll (a scrub of
  a small PG lasts less than a poll), at least `plunge_deep_scrub_above_usual_ratio` times and one
  more than usual [001];
- spillover: BlueFS spilled bytes grew over the last window, faster than over the baseline [000];
- osds_down: an in OSD newly down, or a larger share of the in OSDs down than usual. The study's
  degraded-state table gives the drop expected for that share once they are marked down [004];
  one newly down stalled the requests to its PGs until then (up to osd_heartbeat_grace), which
  may explain any drop;
- slow_ops: more slow requests than usual in Ceph's SLOW_OPS check (requests older than
  osd_op_complaint_time, which closed-loop clients pile onto, so that they may explain any
  drop), or more OSDs than usual with BlueStore's slow-operation alert (plunge/slow_ops.py), or
  more OSDs than usual answering far slower than their peers over the last perf window, holding
  PGs of the S3 ops' pools (plunge/slow_osds.py);
- recovery: more PGs recovering, backfilling (or waiting to) or remapped than usual, or OSDs
  marked out or back in (their data starts to move at once);
- fill: more up and in OSDs at or past `fill_target_ratio` than usual [001, 000].
"""

from __future__ import annotations

from collections import deque

from ...config import Thresholds
from ...snapshot import Snapshot
from ..degraded.derive import expected_drop
from ..reshard.derive import ReshardState
from ..scrub.derive import ScrubState
from .causes import Evidence
from .measure import Measure
from .placement import Placement
from .reshard_cause import ReshardEvidence
from .slow_ops import bluestore_slow, slow_ops
from .slow_osds import LatencyWindow, SlowHistory

MIB = 1024**2
# How long an OSD that stopped answering may stall the requests to its PGs before its peers have it
# marked down: Ceph's osd_heartbeat_grace default (20 s), counted from the oldest unanswered
# heartbeat, plus osd_heartbeat_interval's (6 s) for the second reporter. A hung OSD of the test
# cluster was marked down 25.0, 26.9 and 27.0 s after it froze.
OSD_STALL_BEFORE_DOWN = 20.0 + 6.0
# Ceph's osd_op_complaint_time default: a request is reported slow once it is this old.
OSD_OP_COMPLAINT_TIME = 30.0
STALL = {"put": 1.0, "get": 1.0}  # requests that wait: closed-loop clients pile onto them


def percent(share: float) -> str:
    """A share as an operator reads it: 0.3% of 318 OSDs is one, not 0%, and 99.7% is not all."""
    return f"{share:.1%}" if 0 < abs(share) < 0.1 or 0.995 <= abs(share) < 1 else f"{share:.0%}"


class EvidenceTracker:
    def __init__(self, th: Thresholds) -> None:
        self.window = th.plunge_window_seconds
        self.baseline = th.plunge_baseline_seconds
        # A held plunge's causes are still judged against the baseline before its start (`hold`).
        self.keep = max(self.baseline, th.plunge_cause_hold_seconds) + self.baseline + 3 * self.window
        self.held_since: float | None = None
        self.polled: dict[str, float] = {}  # source part -> its last collection time
        self.measures: dict[str, Measure] = {}
        self.evidence: deque[Evidence] = deque()
        self.deep_completed: int | None = None
        self.down_before: set[int] | None = None  # the in OSDs down at the last OSD map poll
        self.spilled: deque[tuple[float, int, dict[int, int]]] = deque()  # (t, total, per OSD) over a window
        self.placement = Placement()
        self.latencies = LatencyWindow(th.plunge_slow_osd_factor, th.plunge_slow_osd_floor_seconds)
        self.slow_history = SlowHistory(self.keep)
        self.reshards = ReshardEvidence(self.keep, th)

    # --- helpers

    def fresh(self, part: str, t: float) -> float | None:
        """The previous poll of `part` if `t` is a new one, else None."""
        before = self.polled.get(part)
        if before is not None and t <= before:
            return None
        self.polled[part] = t
        return before if before is not None else t

    def usual(self, name: str, t: float, value: float, began: float | None = None) -> float:
        """The usual value of a measure before this poll's window, or before the plunge in progress,
        or before `began`, when what is measured began (a cause that lasts is not its own usual
        state: a reshard of 53 minutes is the plunge's cause to its end, though the baseline is 30
        minutes), then record this poll."""
        m = self.measures.setdefault(name, Measure(self.keep))
        end = min([t - self.window] + [x for x in (self.held_since, began) if x is not None])
        usual = m.usual(end - self.baseline, end)
        m.add(t, value)
        return usual

    def seen(
        self, cause: str, start: float, end: float, text: str, effect: dict[str, float] | None = None,
        strength: float = 1.0, subject: str = "", also: frozenset[str] = frozenset(), onset: float | None = None,
    ) -> None:  # fmt: skip
        self.evidence.append(Evidence(cause, start, end, text, effect, strength, subject, also, onset))

    def current(self, now: float) -> list[Evidence]:
        while self.evidence and self.evidence[0].end < now - self.keep:
            self.evidence.popleft()
        return list(self.evidence)

    def hold(self, since: float | None) -> None:
        """Judge each cause against the usual state before `since`, a plunge's start (None: none on)."""
        self.held_since = since

    def still_seen(self, cause: str, since: float, declared: float, now: float) -> bool:
        """Whether the cause of a plunge that began at `since` (backdated to its first slower
        window) and was read at `declared` is seen lately: its latest evidence ended no longer ago
        than one interval between its source's polls (the evidence's own span) and a window of
        slack, so a poll that did not see it ends it within that time.

        The cause must have been seen as the plunge began: evidence from `since` up to one of its
        polls and a window after `declared` (a cause's first poll may come after the drop was read:
        on Reef the queue's entry says it is processed only once a bucket poll saw the bucket
        resharding). A cause that came later did not make the drop. Where the evidence names its
        subjects (a reshard's bucket), only those seen then count: at 100,000 buckets other buckets
        reshard now and then, a poll or two each, and none of them is the reshard that holds the
        writes."""
        mine = [e for e in self.evidence if e.cause == cause]
        begun = max(since, declared)
        first = [e for e in mine if e.end >= since and e.start <= begun + (e.end - e.start) + self.window]
        if not first:
            return False
        subjects = {s for e in first for s in e.subjects()}
        if "" not in subjects:
            mine = [e for e in mine if subjects.intersection(e.subjects())]
        end, span = max((e.end, e.end - e.start) for e in mine)
        return now <= end + span + self.window

    # --- the causes

    def observe(self, snap: Snapshot, reshard: ReshardState | None, scrub: ScrubState | None, th: Thresholds) -> None:
        """Each cause's evidence in this snapshot, and in the states the reshard and scrub signals
        kept from it (the plunge signal declares both in its needs)."""
        self.placement.observe(snap)
        self.reshards.observe(self, snap, reshard)
        self._scrub_and_recovery(snap, scrub, th)
        self._spillover(snap)
        self._osds(snap, th)
        self._slow(snap)
        self._slow_osds(snap)

    def _scrub_and_recovery(self, snap: Snapshot, scrub: ScrubState | None, th: Thresholds) -> None:
        pgs = snap.pgs
        if pgs is None or scrub is None or (before := self.fresh("pgs", pgs.collected_at)) is None:
            return
        t = pgs.collected_at
        activity = getattr(scrub, "activity", {})
        completed = int(getattr(scrub, "completed", {}).get("deep_scrub", 0))
        done = completed - self.deep_completed if self.deep_completed is not None else 0
        self.deep_completed = completed
        deep = activity.get("deep_scrub", 0) + max(0, done)
        usual = self.usual("deep_scrub", t, deep)
        if deep >= max(usual * th.plunge_deep_scrub_above_usual_ratio, usual + 1):
            told = f"{deep} PG deep scrubs running or completed since the last poll (usually {usual:g})"
            where = self.placement.scrubbing(snap)
            why = self.placement.unknown(t) or ("" if where.osds else "none running now")
            if why:
                told += f", their OSDs unconfirmed ({why})"
            elif not where.rgw_pgs_on:
                told = ""  # none of their OSDs serves the S3 ops' pools: not their cause
            else:
                share = percent(where.rgw_pgs_on / where.rgw_pgs)
                told += f", {where.of_rgw:,} running on RGW PGs, on {len(where.osds)} OSDs serving {share} of them"
            if told:
                self.seen("deep_scrub", before, t, told, strength=deep)
        moving = {k: activity.get(k, 0) for k in ("recovery", "backfill", "remapped")}
        recovering = sum(moving.values())
        usual = self.usual("recovery", t, recovering)
        if recovering > usual:
            told = ", ".join(f"{n} {k}" for k, n in moving.items() if n)
            noun = "PG" if recovering == 1 else "PGs"
            text = f"{recovering} {noun} moving data ({told}; usually {usual:g})"
            self.seen("recovery", before, t, text, strength=recovering)

    def _spillover(self, snap: Snapshot) -> None:
        perf = snap.perf
        if perf is None or not perf.bluefs or (before := self.fresh("perf", perf.collected_at)) is None:
            return
        t = perf.collected_at
        per_osd = {c.osd_id: c.slow_used_bytes for c in perf.bluefs}
        total = sum(per_osd.values())
        self.spilled.append((t, total, per_osd))
        while len(self.spilled) > 2 and self.spilled[1][0] <= t - self.window:
            self.spilled.popleft()
        m = self.measures.setdefault("spilled", Measure(self.keep))
        m.add(t, total)
        t0, total0, per_osd0 = self.spilled[0]
        if t - t0 <= 0 or total <= total0:
            return
        # The baseline's growth over a window's time: from its first poll to the window's start.
        past = [(pt, v) for pt, v in m.points if t - self.window - self.baseline <= pt <= t0]
        usual = (past[-1][1] - past[0][1]) / (past[-1][0] - past[0][0]) if len(past) > 1 else 0.0
        if (total - total0) / (t - t0) <= max(0.0, usual):
            return
        osd, grew = max(((o, b - per_osd0.get(o, b)) for o, b in per_osd.items()), key=lambda x: (x[1], -x[0]))
        self.seen(
            "spillover", before, t,
            f"BlueFS spilled +{(total - total0) / MIB:.0f} MiB in {t - t0:.0f} s, most on osd.{osd} "
            f"(+{grew / MIB:.0f} MiB, now {per_osd[osd] / MIB:.0f} MiB)",
            strength=total - total0,
        )  # fmt: skip

    def _osds(self, snap: Snapshot, th: Thresholds) -> None:
        osd_map = snap.osd_map
        if osd_map is None or not osd_map.osds or (before := self.fresh("osd_map", osd_map.collected_at)) is None:
            return
        t = osd_map.collected_at
        osds = osd_map.osds
        holding = [o for o in osds if o.in_cluster]
        down = [o for o in holding if not o.up]
        out = [o for o in osds if not o.in_cluster]
        share = len(down) / len(holding) if holding else 0.0
        usual_share = self.usual("down_share", t, share)
        usual_out = self.usual("out", t, len(out))
        newly = [o for o in down if self.down_before is not None and o.osd_id not in self.down_before]
        self.down_before = {o.osd_id for o in down}
        why = self.placement.unknown(t)
        held = self.placement.holding([o.osd_id for o in down])
        if (newly or share > usual_share) and (why or held):
            # The study's table is for failed disks: the in OSDs down. Unlike the degraded signal (HDDs
            # only), any class counts here: a down index OSD stalls bucket ops, so it is evidence too.
            effect = {"put": expected_drop(share, 0), "get": expected_drop(share, 1)}
            first = newly + [o for o in down if o not in newly]
            more = f" and {len(down) - 3} more" if len(down) > 3 else ""
            named = ", ".join(o.ceph_daemon for o in first[:3]) + more
            confirmed = f"their PGs unconfirmed ({why})" if why else f"holding {self.placement.pgs_on(held)} RGW PGs"
            told = f"{named} down: {len(down)} of {len(holding)} in OSDs ({percent(share)}), {confirmed}; "
            put, get = percent(effect["put"]), percent(effect["get"])
            table = f"the degraded-state table expects -{put} PUT, -{get} GET [004]"
            if newly:
                # The table is the steady state once the OSD is marked down. Before that, for up to
                # OSD_STALL_BEFORE_DOWN, every request to its PGs waits, and closed-loop clients pile
                # onto them: the stall can take any share of the ops, however few OSDs it is.
                self.seen(
                    "osds_down", before - OSD_STALL_BEFORE_DOWN, t,
                    told + f"requests to their PGs waited until marked down, then {table}",
                    STALL,
                    strength=share,
                )  # fmt: skip
            else:
                self.seen("osds_down", before, t, told + table, effect, strength=share)
        elif len(out) > usual_out:
            # Out and up, it serves its PGs until their data has moved: what slows the clients is
            # the data moving (recovery), which starts at once, before a PG poll may show it.
            named = ", ".join(o.ceph_daemon for o in out[:3]) + (f" and {len(out) - 3} more" if len(out) > 3 else "")
            self.seen("recovery", before, t, f"{named} out ({len(out)} of {len(osds)} OSDs): their data moves")
        elif len(out) < usual_out:
            # Back in: the data moves to it.
            back = usual_out - len(out)
            told = f"{back:g} OSD(s) back in ({len(out)} of {len(osds)} out): data moves to them"
            self.seen("recovery", before, t, told)
        full = sorted(
            ((o.used_bytes / o.size_bytes, o) for o in osds if o.up and o.in_cluster and o.size_bytes > 0),
            key=lambda x: (-x[0], x[1].osd_id),
        )
        past = [(r, o) for r, o in full if r >= th.fill_target_ratio]
        usual = self.usual("past_target", t, len(past))
        if len(past) > usual:
            ratio, o = past[0]
            self.seen(
                "fill", before, t,
                f"{len(past)} OSD(s) past the {th.fill_target_ratio:.0%} fill target, fullest {o.ceph_daemon} "
                f"at {ratio:.0%}",
                strength=len(past),
            )  # fmt: skip

    def _slow(self, snap: Snapshot) -> None:
        health = snap.health
        if health is None or (before := self.fresh("health", health.collected_at)) is None:
            return
        t = health.collected_at
        seen = slow_ops(health)
        ops = (seen.ops if seen.ops is not None else 1) if seen is not None else 0
        usual = self.usual("slow_ops", t, ops)
        if seen is not None and ops > usual:
            # The requests slow now and not at the last poll were sent after the complaint time
            # before it (else they would have been counted then); they have waited since.
            self.seen(
                "slow_ops", before - OSD_OP_COMPLAINT_TIME, t, seen.told() + f" (usually {usual:g})", STALL,
                strength=ops,
            )  # fmt: skip
        slow_osds = bluestore_slow(health)
        usual = self.usual("bluestore_slow", t, slow_osds)
        if slow_osds > usual:
            # Told after SLOW_OPS where both are raised (strength 0): the study gave it no number.
            told = f"BLUESTORE_SLOW_OP_ALERT: {slow_osds} OSD(s) saw slow BlueStore operations (usually {usual:g})"
            self.seen("slow_ops", before, t, told, strength=0.0)

    def _slow_osds(self, snap: Snapshot) -> None:
        perf = snap.perf
        if perf is None or (before := self.fresh("osd_latency", perf.collected_at)) is None:
            return
        t = perf.collected_at
        classes = {o.osd_id: o.device_class for o in snap.osd_map.osds} if snap.osd_map is not None else {}
        slow = self.latencies.slow(perf.osd_ops, classes)
        why = self.placement.unknown(t)
        held = self.placement.holding([s.osd_id for s in slow])
        if not why:
            slow = [s for s in slow if s.osd_id in held]  # the others serve no S3 op: not their cause
        # The OSDs slow through most of the baseline are its usual state: named after the new ones.
        chronic = self.slow_history.usual(t - self.window - self.baseline, t - self.window)
        self.slow_history.add(t, {s.osd_id for s in slow})
        usual = self.usual("slow_osds", t, len(slow))
        if len(slow) <= usual:
            return
        slow.sort(key=lambda s: (s.osd_id in chronic, -s.ratio, s.osd_id))
        confirmed = f"their PGs unconfirmed ({why})" if why else f"holding {self.placement.pgs_on(held)} RGW PGs"
        more = f" and {len(slow) - 1} more" if len(slow) > 1 else ""
        told = f"{slow[0].told()}{more} ({len(slow)} slow OSD(s), usually {usual:g}), {confirmed}"
        # Unmeasured by the study: how much one slow OSD takes depends on how many requests touch it.
        self.seen("slow_ops", before, t, told, strength=slow[0].ratio)
