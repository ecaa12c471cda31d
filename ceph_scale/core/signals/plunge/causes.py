"""Which of the known causes was active while S3 throughput plunged, ranked. Pure.

Each cause is seen active over intervals (core/signals/plunge/evidence.py: from one poll of its
source to the next). A candidate's overlap is the share of the plunge during which it was active;
its score weighs that overlap by how much of the drop the study's measurement of that cause
explains, where the study measured one:

    score = overlap x (1 + explained) / 2,  explained = min(1, study drop / observed drop)

with explained the most any of its evidence during the plunge explains (an OSD's stall before it
was marked down explains the plunge's largest drop, whatever the degraded state after it), and 1/2
for a cause the study named without a number (deep scrubs: "a brief, significant drop" [001];
recovery). Overlap ranks first (a score is at most the overlap); the effect size breaks near ties
and demotes a cause too small for the drop (2 % of OSDs down, 6 % of PUTs [004], does not explain
a 60 % plunge).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

# Ties go to the earlier: an OSD down is the root of the slow ops of the requests to its PGs.
CAUSES = ("reshard", "deep_scrub", "spillover", "osds_down", "slow_ops", "recovery", "fill")
NO_KNOWN_CAUSE = "none"
# The causes that end by themselves: a reshard, a burst of deep scrubs, data moving. A plunge one
# of them holds past the baseline is held while it is seen (derive.py); a state (OSDs down, fill,
# spillover, slow OSDs) can last for days, and its plunge becomes the cluster's new level.
HELD_CAUSES = ("reshard", "deep_scrub", "recovery")

# The drop the study measured for a cause, per op [study document].
STUDY_EFFECT: dict[str, dict[str, float]] = {
    # 5.4K -> 3.9K ops/s while one bucket resharded 16 -> 512 shards [000].
    "reshard": {"put": 1 - 3.9 / 5.4, "get": 1 - 3.9 / 5.4},
    # 8.8B -> 10B objects, metadata spilling to HDD and the cluster past 80 %: GET -29.8 %,
    # PUT -5.3 % [001]; the study measured the two together.
    "spillover": {"put": 0.053, "get": 0.298},
    "fill": {"put": 0.053, "get": 0.298},
    # OSDs down: the degraded-state table for the share down [004], carried by each observation.
}
UNMEASURED = 0.5
# A cause that follows from others when they are active: the requests an OSD holds until it is
# marked down are slow ops on its peers too, and requests that wait on objects being recovered
# make the recovering PGs' OSDs slow. A reshard writes its bucket's index anew and recovery writes
# the objects it moves, so RocksDB spills more while they run. It scores no more than the best of
# the causes it follows from, and loses a tie to it. (Not deep scrubs: the study gave them no
# number, and slow requests beside a scrub burst are told first, test_slow_ops.py.)
FOLLOWS = {"slow_ops": ("osds_down", "recovery"), "spillover": ("reshard", "recovery")}


@dataclass(frozen=True)
class Evidence:
    cause: str
    start: float
    end: float
    text: str  # what was seen, e.g. "bucket hot resharded 1 -> 7 shards"
    effect: dict[str, float] | None = None  # the study's drop per op for what was seen, if it varies
    strength: float = 1.0  # how much was seen (PGs scrubbing, bytes spilled): the strongest is told
    subject: str = ""  # what it is about where there can be several (a bucket)
    also: frozenset[str] = frozenset()  # more subjects seen at the same poll, not told
    # A reshard in progress whose bucket's own ops did not confirm it: since when reshards have been
    # (reshard_cause.ReshardEvidence._onset).
    onset: float | None = None

    def subjects(self) -> frozenset[str]:
        return self.also | {self.subject}


def yields(e: Evidence, start: float, window: float, reads_fell: bool) -> bool:
    """Whether `e` yields to any other cause seen during a drop that began at `start`. A reshard
    blocks writes to its bucket, not reads [Ceph's dynamic resharding docs], and reshards in progress
    since more than a window before the drop began (`onset`; none for a reshard its own ops confirm
    above the usual count, which holds its plunge to its end) made no drop then. They may hold the
    writes later (a mixed phase that asks them, detect.held_put; or a reshard that blocks writes
    only at its end), but where the GETs fell too, another cause seen made the drop: an OSD's stall
    in the mixed phase is not named after buckets resharding since the GET phase. Seen alone, they
    are still named (the writes they may hold)."""
    return reads_fell and e.onset is not None and e.onset < start - window


@dataclass(frozen=True)
class Candidate:
    cause: str
    score: float
    overlap: float
    explained: float | None  # None: the study gave no number
    text: str
    more: str = ""  # " (and N more)": kept whole where the text is cut (derive.EVIDENCE_MAX_CHARS)

    def told(self, limit: int) -> str:
        """The text and its count of others within `limit` characters: a long bucket name is cut,
        never the count."""
        room = limit - len(self.more)
        text = self.text if len(self.text) <= room else self.text[: room - 3] + "..."
        return text + self.more


def overlap(intervals: Iterable[tuple[float, float]], start: float, end: float) -> float:
    """The share of [start, end] covered by the intervals (merged, so never above 1)."""
    if end <= start:
        return 0.0
    clipped = sorted((max(a, start), min(b, end)) for a, b in intervals if b > start and a < end)
    covered, reach = 0.0, start
    for a, b in clipped:
        a = max(a, reach)
        if b > a:
            covered += b - a
            reach = b
    return covered / (end - start)


def explained(effect: dict[str, float] | None, drops: dict[str, float]) -> float | None:
    """How much of the largest op drop the study's effect for that op explains, capped at 1."""
    if not effect or not drops:
        return None
    op = max(drops, key=lambda o: (drops[o], o))
    drop = drops[op]
    if drop <= 0:
        return 1.0
    return min(1.0, effect.get(op, 0.0) / drop)


def rank(
    start: float,
    end: float,
    drops: dict[str, float],
    evidence: Iterable[Evidence],
    yielding: Callable[[Evidence], bool] = lambda e: False,
) -> list[Candidate]:
    """The causes active during [start, end], best first; empty: no known cause.
    drops: the plunge's largest drop per op. A cause all of whose evidence is `yielding` (yields)
    scores no more than the best of the other causes, and loses a tie to it."""
    by_cause: dict[str, list[Evidence]] = {}
    for e in evidence:
        by_cause.setdefault(e.cause, []).append(e)
    out = []
    yielded = set()
    for cause in CAUSES:
        seen = [e for e in by_cause.get(cause, ()) if e.end > start and e.start < end]
        share = overlap(((e.start, e.end) for e in seen), start, end)
        if share <= 0:
            continue
        if all(yielding(e) for e in seen):
            yielded.add(cause)
        # The drop compared is the plunge's largest, whenever it was: what explained it counts.
        each = {id(e): explained(e.effect or STUDY_EFFECT.get(cause), drops) for e in seen}
        known = [x for x in each.values() if x is not None]
        share_explained = max(known) if known else None
        weight = (1 + (UNMEASURED if share_explained is None else share_explained)) / 2
        told = max(seen, key=lambda e: (e.strength, each[id(e)] or 0.0, e.end))
        others = len({s for e in seen for s in e.subjects() if s} - {told.subject})
        more = f" (and {others} more)" if others else ""
        out.append(Candidate(cause, share * weight, share, share_explained, told.text, more))
    by_name = {c.cause: c for c in out}
    following = set()
    roots_of = {**FOLLOWS, **{cause: tuple(c for c in by_name if c != cause) for cause in yielded}}
    for symptom, roots in roots_of.items():
        # A cause that yields caps no other: a reshard seen only after the drop began would take
        # the plunge from the spillover that made it (their capped scores tie).
        active = [by_name[r].score for r in roots if r in by_name and (symptom in yielded or r not in yielded)]
        if symptom in by_name and active:
            by_name[symptom] = replace(by_name[symptom], score=min(by_name[symptom].score, max(active)))
            following.add(symptom)
    return sorted(by_name.values(), key=lambda c: (-c.score, c.cause in following, CAUSES.index(c.cause)))
