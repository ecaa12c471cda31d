"""The scrub signal's one pass over the PGs (signals/scrub/tally.py) against the rule written
plainly, per PG and per kind, as Ceph states it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ceph_scale.core.signals.scrub.tally import tally
from ceph_scale.core.snapshot import PgScrubState

KINDS = ("scrub", "deep_scrub")
STATES = (
    "active+clean",
    "active+clean+scrubbing",
    "active+clean+scrubbing+deep",
    "active+recovering",
    "active+recovery_wait+degraded",
    "active+remapped+backfilling",
    "active+remapped+backfill_wait",
    "active+clean+remapped",
    "active+recovering+scrubbing+deep",
    "peering",
    "",
)


def plain(pgs, now, limits, pool_limits, before):
    overdue = dict.fromkeys(KINDS, 0)
    oldest = dict.fromkeys(KINDS, now)
    scrubbing = dict.fromkeys(KINDS, 0)
    completed = dict.fromkeys(KINDS, 0)
    recovering = {"recovery": 0, "backfill": 0}
    remapped = 0
    stamps = {}
    for pg in pgs:
        pair = (pg.last_scrub_stamp, pg.last_deep_scrub_stamp)
        if before is not None:
            old = before.get(pg.pgid)
            for i, kind in enumerate(KINDS):
                if old is not None and pair[i] > old[i]:
                    completed[kind] += 1
            stamps[pg.pgid] = pair
        for kind, stamp in zip(KINDS, pair):
            if now - stamp > pool_limits.get(pg.pool_id, limits)[kind]:
                overdue[kind] += 1
            oldest[kind] = min(oldest[kind], stamp)
        if "scrubbing" in pg.state:
            scrubbing["deep_scrub" if "deep" in pg.state else "scrub"] += 1
        if "backfill" in pg.state:
            recovering["backfill"] += 1
        elif "recover" in pg.state:
            recovering["recovery"] += 1
        elif "remapped" in pg.state:
            remapped += 1
    return overdue, oldest, scrubbing, completed, recovering, remapped, stamps


PG = st.builds(
    lambda n, pool, state, s, d: PgScrubState(f"{pool}.{n:x}", pool, state, s, d),
    st.integers(0, 60),
    st.sampled_from([1, 2, 3]),
    st.sampled_from(STATES),
    # Every stamp, and those exactly at a limit (now 2,000 less 500, 1,500, or pool 2's 100, 300).
    st.one_of(st.floats(0, 2000.0), st.sampled_from([1500.0, 1900.0, 500.0, 1700.0])),
    st.one_of(st.floats(0, 2000.0), st.sampled_from([1500.0, 1900.0, 500.0, 1700.0])),
)


@settings(max_examples=300, deadline=None)
@given(
    pgs=st.lists(PG, max_size=40, unique_by=lambda p: p.pgid),
    own=st.booleans(),
    fresh=st.booleans(),
    moved=st.lists(st.floats(-50.0, 50.0), min_size=40, max_size=40),
)
def test_the_pass_counts_as_the_rule_written_per_pg_and_per_kind(pgs, own, fresh, moved):
    now = 2000.0
    limits = {"scrub": 500.0, "deep_scrub": 1500.0}
    pool_limits = {2: {"scrub": 100.0, "deep_scrub": 300.0}} if own else {}
    before = (
        {pg.pgid: (pg.last_scrub_stamp + m, pg.last_deep_scrub_stamp - m) for pg, m in zip(pgs[::2], moved)}
        if fresh
        else None
    )
    want = plain(tuple(pgs), now, limits, pool_limits, before)
    got = tally(tuple(pgs), now, limits, pool_limits, before)
    assert got.overdue == (want[0]["scrub"], want[0]["deep_scrub"])
    assert got.oldest == (want[1]["scrub"], want[1]["deep_scrub"])
    assert got.scrubbing == (want[2]["scrub"], want[2]["deep_scrub"])
    assert got.completed == (want[3]["scrub"], want[3]["deep_scrub"])
    assert (got.recovery, got.backfill, got.remapped) == (want[4]["recovery"], want[4]["backfill"], want[5])
    assert got.stamps == want[6]
