"""Which OSDs hold the PGs the S3 ops use, from the PG dump's acting sets: an OSD down or deep
scrubbing is a plunge's cause only if it holds some [issue 27: confirm before naming].

The S3 ops' pools are the RGW zones' bucket data pools (`<zone>.rgw.buckets.data`: the objects)
and bucket index pools (`<zone>.rgw.buckets.index`: every PUT updates its bucket's index), by
name, as an RGW zone creates them. An OSD leaves the acting sets once it is marked down and its
PGs peer: what it held is what the last dump before that said, kept while it is down. Each source
is read on its own thread, so a dump read just after the mark-down can come with an OSD map read
just before it, which still says up. So an OSD out of every acting set keeps, PG by PG, those it
left a member short (undersized: fewer OSDs acting than the pool's k+m, or so stated, its place
not taken by another), which a mark-down leaves and a drain or CRUSH move, handing them whole to
other OSDs, does not; while they stay short, and until an OSD map as new as the dump says it is up.
Decided PG by PG: with another OSD down, a drained one shares a few short PGs with it.

The mapping is unknown where there is no PG dump with acting sets, no pool list to name the
pools, or the pgs source failed at its last collection or is older than `PG_DUMP_STALE_AFTER`:
evidence then says "unconfirmed" rather than guess.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...snapshot import PgScrubState, Snapshot

RGW_POOL_SUFFIXES = (".rgw.buckets.data", ".rgw.buckets.index")
# The pgs source's default interval is 120 s (exporter/sidecar/config_file.py): three missed
# collections make its acting sets too old to confirm anything.
PG_DUMP_STALE_AFTER = 3 * 120.0


@dataclass(frozen=True)
class DeepScrubs:
    """Where the PGs deep scrubbing in a dump are, against the S3 ops' pools."""

    osds: set[int]  # the OSDs of their acting sets
    of_rgw: int  # of the PGs deep scrubbing, those of the S3 ops' pools
    rgw_pgs_on: int  # the S3 ops' PGs with an OSD among `osds`: slowed by them
    rgw_pgs: int  # the S3 ops' PGs in the dump


class Placement:
    def __init__(self) -> None:
        self.pgs_at: float | None = None  # collection time of the dump the counts are from
        self.pgs_failed = False
        self.held: dict[int, frozenset[str]] = {}  # OSD -> the PGs of the S3 ops' pools it serves
        self.left: dict[int, frozenset[str]] = {}  # OSD out of the last dump's acting sets -> what it held
        self.pools: set[int] | None = None  # the S3 ops' pools; None: no pool list yet
        self.widths: dict[int, int] = {}  # the S3 ops' pools' k+m (size for a replicated pool)
        self.acting: dict[str, tuple[int, ...]] = {}  # the S3 ops' PGs' acting sets in the last dump

    def observe(self, snap: Snapshot) -> None:
        status = next((s for s in snap.sources if s.name == "pgs"), None)
        self.pgs_failed = status is not None and not status.success
        pgs, capacity = snap.pgs, snap.capacity
        if capacity is not None:
            rgw = [p for p in capacity.pools if p.name.endswith(RGW_POOL_SUFFIXES)]
            self.pools = {p.pool_id for p in rgw}
            self.widths = {p.pool_id: p.data_chunks + p.coding_chunks for p in rgw}
        pools = self.pools
        if pgs is not None and pgs.collected_at != self.pgs_at and pools:
            self._read(pgs.pgs, pools, pgs.collected_at)
        osd_map = snap.osd_map
        if self.left and osd_map is not None and self.pgs_at is not None and osd_map.collected_at >= self.pgs_at:
            up = {o.osd_id for o in osd_map.osds if o.up}
            self.left = {o: ids for o, ids in self.left.items() if o not in up}

    def _read(self, pgs: Iterable[PgScrubState], pools: set[int], at: float) -> None:
        served: dict[int, set[str]] = {}
        short: set[str] = set()  # the S3 ops' PGs a member short
        unfilled: dict[int, set[str]] = {}  # OSD -> the short PGs it left, its place not taken
        acting: dict[str, tuple[int, ...]] = {}
        read = False
        for pg in pgs:
            if pg.acting:
                read = True
                if pg.pool_id in pools:
                    acting[pg.pgid] = pg.acting
                    for o in pg.acting:
                        served.setdefault(o, set()).add(pg.pgid)
                    if "undersized" in pg.state or len(pg.acting) < self.widths.get(pg.pool_id, 0):
                        short.add(pg.pgid)
                        before = self.acting.get(pg.pgid, ())
                        gone = [o for o in before if o not in pg.acting]
                        if len([o for o in pg.acting if o not in before]) < len(gone):
                            for o in gone:
                                unfilled.setdefault(o, set()).add(pg.pgid)
        if not read:
            return
        still = {o: ids & short for o, ids in self.left.items() if o not in served}
        new = {o: ids & unfilled[o] for o, ids in self.held.items() if o not in served and o in unfilled}
        self.held = {o: frozenset(ids) for o, ids in served.items()}
        self.left = {o: frozenset(ids) for o, ids in (still | new).items() if ids}
        self.acting = acting
        self.pgs_at = at

    def unknown(self, t: float) -> str:
        """Why the mapping cannot confirm anything at `t`, or "" when it can."""
        if self.pools is None:
            return "no pool list"
        if not self.pools:
            return "no RGW bucket pool"
        if self.pgs_at is None:
            return "no PG dump with acting sets"
        if self.pgs_failed:
            return "the pgs source failed"
        if t - self.pgs_at > PG_DUMP_STALE_AFTER:
            return f"the PG dump is {t - self.pgs_at:.0f} s old"
        return ""

    def scrubbing(self, snap: Snapshot) -> DeepScrubs:
        """Where the PGs deep scrubbing in this dump are."""
        pgs, pools = snap.pgs, self.pools or set()
        if pgs is None:
            return DeepScrubs(set(), 0, 0, 0)
        deep = [pg for pg in pgs.pgs if "scrubbing" in pg.state and "deep" in pg.state]
        osds = {o for pg in deep for o in pg.acting}
        rgw = [pg for pg in pgs.pgs if pg.pool_id in pools]
        on = sum(1 for pg in rgw if not osds.isdisjoint(pg.acting)) if osds else 0
        return DeepScrubs(osds, sum(1 for pg in deep if pg.pool_id in pools), on, len(rgw))

    def holding(self, osd_ids: set[int] | list[int]) -> dict[int, int]:
        """Those of the OSDs that serve PGs of the S3 ops' pools, with how many."""
        return {o: len(ids) for o in osd_ids if (ids := self.held.get(o) or self.left.get(o))}

    def pgs_on(self, osd_ids: Iterable[int]) -> int:
        """How many PGs of the S3 ops' pools these OSDs serve between them: a PG on three of them is
        one PG (a node's 53 OSDs held 12,828 PGs, not their 18,781 replicas)."""
        return len(frozenset().union(*(self.held.get(o) or self.left.get(o, frozenset()) for o in osd_ids)))
