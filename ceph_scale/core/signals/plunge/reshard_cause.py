"""The reshard cause of a plunge, for the evidence tracker (evidence.py): buckets the reshard
signal saw reshard between two bucket polls, or entries of the reshard queue being processed
(which bucket, shards before and after) [000], more of them than usual at a poll: at 100,000
buckets some bucket is nearly always resharding [000, 004]. A bucket whose own ops did not fall is
no cause; where they were not counted, that is said (own_ops.py); one whose own ops fell is a
cause at the usual count too. A reshard in progress is judged
against the count from before it began, for up to `plunge_cause_hold_seconds`; while one is, the
detector judges the PUTs against their own level scaled by their demand (detect.held_put, `held`)."""

from __future__ import annotations

from typing import Protocol

from ...config import Thresholds
from ...snapshot import ReshardEntry, Snapshot, bucket_key
from ..reshard.derive import ReshardState
from ..reshard.running import being_processed
from .own_ops import OwnOps, Verdict

RESHARDS_TOLD = 20  # in-progress queue entries told per poll: the rest would say nothing more
# Buckets being processed kept per poll as subjects: RGW runs about one reshard per RGW at a time,
# so more are stale entries, and the bound keeps 4 h of polls small.
MAX_SUBJECTS = 1000


class Ledger(Protocol):
    """What the evidence tracker keeps for every cause: the polls of each source, each measure's
    usual value, the evidence seen."""

    def fresh(self, part: str, t: float) -> float | None: ...

    def usual(self, name: str, t: float, value: float, began: float | None = None) -> float: ...

    def seen(self, cause: str, start: float, end: float, text: str, *, subject: str = "",
             also: frozenset[str] = frozenset(), onset: float | None = None) -> None: ...  # fmt: skip


class ReshardEvidence:
    def __init__(self, keep: float, th: Thresholds) -> None:
        """`keep`: how long the tracker keeps its polls (evidence.py), the bucket counts kept as long."""
        self.window, self.hold = th.plunge_window_seconds, th.plunge_cause_hold_seconds
        self.confirmed_ratio, self.unconfirmed_ratio = th.plunge_drop_ratio, th.plunge_held_unconfirmed_ratio
        self.own_ops = OwnOps(keep, th.plunge_baseline_seconds, th.plunge_drop_ratio)
        self.reshards_seen = 0.0  # time of the latest reshard event taken from the reshard signal
        self.processing_since: dict[str, float] = {}  # bucket -> the poll before it was first seen resharding
        self.first_seen: dict[str, float] = {}  # bucket -> the poll it was first seen resharding at
        # The first poll of the run of polls with more buckets resharding than usual (a gap of up to
        # a window within it: a queue read one entry short, or no idle bucket at that poll), and
        # the last of them.
        self.run_since: float | None = None
        self.run_last: float | None = None
        # (previous poll, poll, confirmed by its own ops) of reshards in progress, more than usual,
        # at the last poll of the queue, none ruled out: what may hold writes now
        self.holding: tuple[float, float, bool] | None = None

    def held(self, t: float) -> float | None:
        """The drop that makes a hold of writes a plunge, while a reshard seen at the last poll of
        the queue may hold them (detect.held_put): `plunge_drop_ratio` where its bucket's own ops
        confirm it, `plunge_held_unconfirmed_ratio` where nothing does. None: none, or its source
        no longer polled."""
        if self.holding is None:
            return None
        before, seen, confirmed = self.holding
        if t > seen + (seen - before) + self.window:
            return None
        return self.confirmed_ratio if confirmed else self.unconfirmed_ratio

    def observe(self, ledger: Ledger, snap: Snapshot, reshard: ReshardState | None) -> None:
        """The reshards in this snapshot (the queue's, and those the reshard signal saw between two
        bucket polls), told to the tracker's `ledger` as evidence where more than usual."""
        # At 100,000 buckets some bucket is nearly always resharding [000, 004]: reshards count, as
        # the other causes do, only when more buckets reshard than usually do at a poll.
        if snap.reshard is not None:
            self.own_ops.observe(snap.reshard)
        recent = list(reshard.recent) if reshard is not None else []
        done = [e for e in recent if e[1] > self.reshards_seen]
        if recent:
            self.reshards_seen = max(self.reshards_seen, max(e[1] for e in recent))
        bucket_poll = reshard.seen_at if reshard is not None else 0.0
        polled = bool(bucket_poll) and ledger.fresh("buckets", bucket_poll) is not None
        if done or polled:
            usual = ledger.usual("reshards_done", max([bucket_poll, *(e[1] for e in done)]), len(done))
            if len(done) > usual:
                for polled_before, t, bucket, old, new in done:
                    own = self._own(bucket, polled_before, t)
                    if own.confirmed is False:
                        continue
                    shards = f"{old} -> {new}" if old else f"to {new}"
                    text = f"bucket {bucket} resharded {shards} shards ({len(done)} since the last poll, "
                    text += f"usually {usual:g}); {own.text}"
                    ledger.seen("reshard", polled_before, t, text, subject=bucket)
        queue = snap.reshard
        if queue is None or (before := ledger.fresh("reshard", queue.collected_at)) is None:
            return
        self.holding = None
        t = queue.collected_at
        processed = being_processed(queue, snap.buckets)
        # A reshard in progress since before the drop: its polls before the drop are not the usual
        # count, or a reshard holding writes longer than half the baseline would drop out.
        now = {_bucket(e) for e in processed}
        self.processing_since = {b: self.processing_since.get(b, before) for b in now}
        self.first_seen = {b: self.first_seen.get(b, t) for b in now}
        # Up to `plunge_cause_hold_seconds`, as long as a reshard may hold a plunge: an entry left
        # in progress (a stuck reshard, or a stale entry) is then the usual count again.
        began = min((s for s in self.processing_since.values() if t - s <= self.hold), default=None)
        usual = ledger.usual("reshards_running", t, len(processed), began)
        more = len(processed) > usual
        if more:
            # A gap of a window, or of one read missed at the queue's own interval (60 s by default,
            # each read a little later than the last: a window alone would break the run at every read).
            if self.run_last is None or t - self.run_last > self.window + 2 * (t - before):
                self.run_since = t
            self.run_last = t
        # Every bucket being processed whose own ops may have fallen may be the one that holds a
        # plunge (still_seen); the first are told, the rest kept as subjects of the first evidence.
        # At the usual count, only a bucket whose own ops fell: a hot bucket that begins to reshard
        # as an idle one leaves the queue leaves the count as it was.
        judged = [(e, self._own(_bucket(e), before, t)) for e in processed[:MAX_SUBJECTS]]
        judged = [(e, own) for e, own in judged if own.confirmed or (more and own.confirmed is None)]
        if not judged:
            return
        # Told first: a bucket its own ops confirm, then one resharding since an earlier poll (the
        # bucket that holds the writes for 53 minutes), then the queue's order. In queue order the
        # idle bucket new at each poll was told, 53 of them over the hot bucket's hold, never it.
        judged.sort(key=lambda x: (not x[1].confirmed, self.first_seen[_bucket(x[0])] >= t))
        # At the usual count no hold of writes is judged (detect.held_put): a bucket whose share fell
        # because the clients wrote elsewhere (a mixed phase) would make the phase a plunge.
        if more:
            self.holding = (before, t, any(own.confirmed for _, own in judged))
        untold = frozenset(_bucket(e) for e, _ in judged[RESHARDS_TOLD:])
        for i, (e, own) in enumerate(judged[:RESHARDS_TOLD]):
            bucket = _bucket(e)
            text = (
                f"bucket {bucket} resharding {e.old_num_shards} -> {e.new_num_shards} shards "
                f"({len(processed)} resharding, usually {usual:g}); {own.text}"
            )
            # The first evidence speaks for the buckets not told too: the latest of their onsets.
            mine = judged[RESHARDS_TOLD:] if i == 0 else []
            # Above the usual count a reshard its own ops confirm holds its plunge to its end: no onset.
            onsets = [None if o.confirmed and more else self._onset(_bucket(x), t, more) for x, o in [(e, own), *mine]]
            onset = None if None in onsets else max(x for x in onsets if x is not None)
            also = untold if i == 0 else frozenset()
            ledger.seen("reshard", before, t, text, subject=bucket, also=also, onset=onset)

    def _onset(self, bucket: str, t: float, more: bool) -> float:
        """Since when reshards have been in progress, for a bucket's evidence (causes.yields): the
        run of polls with more buckets resharding than usual, not the bucket, since at 100,000
        buckets another bucket is new in the queue at each poll; but a bucket seen at two polls or
        more since it was first seen, where that was later (a hot bucket that begins to reshard as
        an idle one leaves the queue, the count unchanged), or at the usual count (`more` false).
        A reshard blocks writes, not reads: one whose own ops fell at the usual count since long
        before the drop explains no fall of the GETs either."""
        first = self.first_seen[bucket]
        if not more:
            return first
        since = self.run_since if self.run_since is not None else t
        return first if since < first < t else since

    def _own(self, bucket: str, start: float, end: float) -> Verdict:
        """The bucket's share of its RGWs' ops over [start, end] against its usual share before this
        reshard was first judged (own_ops.py): a share, unlike the other measures, holds through
        the plunge's other causes."""
        return self.own_ops.judge(bucket, start, end, start)


def _bucket(e: ReshardEntry) -> str:
    """The bucket as the bucket poll's evidence names it (Bucket.key)."""
    return bucket_key(e.tenant, e.bucket)
