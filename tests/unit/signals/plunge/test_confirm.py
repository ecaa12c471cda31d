"""Confirm before naming: an OSD down or deep scrubbing is a plunge's cause only if it serves PGs
of the S3 ops' pools (the zone's bucket data and index pools), by the PG dump's acting sets; where
the mapping is unknown the evidence says "unconfirmed". At the 10B study's scale
(tests/unit/signals/plunge/study.py: bench.synth's 21,760 PGs, parsed by the pgs source's own
parser)."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable

from ceph_scale.core.parse_pgs import pg_part, pg_part_from_json
from ceph_scale.core.signals.plunge.placement import Placement
from ceph_scale.core.snapshot import (
    CapacityPart,
    FullRatios,
    Osd,
    OsdMapPart,
    PgPart,
    PgScrubState,
    Pool,
    Snapshot,
    SourceStatus,
)
from tests.unit.signals.plunge.study import SynthStudy, study_parts
from tests.unit.study_rounds import POLL, PUT

STALL = dataclasses.replace(PUT, slowdown=1 / 0.3)  # ops -70 % while the OSD's requests wait
PG = {
    "pgid": "7.1f",
    "state": "active+clean",
    "last_scrub_stamp": "2026-11-22T21:13:27.243640+0000",
    "last_deep_scrub_stamp": "2026-11-22T21:13:27.243640+0000",
}


def test_the_pgs_source_keeps_each_pgs_acting_set_without_the_empty_ec_slots():
    _, parts = study_parts()
    pgs = parts["pgs"].pgs
    assert len(pgs) == 21_760 and all(len(pg.acting) in (3, 6) for pg in pgs)
    raw = json.dumps({"pg_ready": True, "pg_stats": [PG | {"acting": [4, 2147483647, 9]}, PG]}).encode()
    fast, slow = pg_part_from_json(raw, 0.0).pgs, pg_part(json.loads(raw), 0.0).pgs
    assert [pg.acting for pg in fast] == [pg.acting for pg in slow] == [(4, 9), ()]
    # A malformed acting set is unread (the placement then says "unconfirmed"), not a failed dump:
    # the scrub stamps beside it still count.
    for bad in ([4, "x"], [-3], {"0": 4}, [True]):
        assert pg_part({"pg_stats": [PG | {"acting": bad}]}, 0.0).pgs[0].acting == (), bad


def rgw_pgs_of(c: SynthStudy, osd: int) -> int:
    pools = c.rgw_pools()
    return sum(1 for pg in c.pgs if pg.pool_id in pools and osd in pg.acting)


def stall(c: SynthStudy, osd: int = 5) -> SynthStudy:
    c.run(30, STALL)
    c.down(osd)
    return c.run(15, STALL)


def test_an_osd_down_that_serves_the_s3_pools_is_named_with_the_pgs_it_held():
    c = SynthStudy().run(450, PUT)
    held = rgw_pgs_of(c, 5)
    assert held > 200  # 16,384 data PGs of 6 and 4,096 index PGs of 3 on 318 OSDs
    info = stall(c).info()
    assert info is not None and info["cause"] == "osds_down", info
    assert info["evidence"].startswith(f"osd.5 down: 1 of 318 in OSDs (0.3%), holding {held} RGW PGs; "), info


def test_a_node_down_is_named_with_the_pgs_it_held_each_counted_once():
    """A node's 53 OSDs hold many PGs two or three replicas at a time: the evidence counts PGs, as
    on-call counts what is degraded, not their replicas on the node."""
    c = SynthStudy().run(450, PUT)
    node = set(range(53))
    pools = c.rgw_pools()
    pgs = {pg.pgid for pg in c.pgs if pg.pool_id in pools and not node.isdisjoint(pg.acting)}
    assert len(pgs) < sum(rgw_pgs_of(c, o) for o in node)
    c.run(30, STALL)
    c.down(*node)
    info = c.run(15, STALL).info()
    assert info is not None and info["cause"] == "osds_down", info
    assert f"53 of 318 in OSDs (17%), holding {len(pgs)} RGW PGs; " in info["evidence"], info


def left_then_stopped(c: SynthStudy, leave: Callable[[SynthStudy], None]) -> dict[str, str] | None:
    """30 s into a plunge, osd.5 leaves the S3 pools' acting sets (`leave`); the PG dump that
    shows it comes with an OSD map read 2 s earlier (each source has its thread), then the next
    OSD map says osd.5 is down. The plunge's info 15 s later."""
    c.run(30, STALL)
    leave(c)
    c.osd_map_age = 2.0
    c.run(POLL, STALL)
    c.osd_map_age = 0.0
    c.down(5)
    return c.run(15, STALL).info()


def test_an_osd_out_of_a_dump_read_before_the_osd_map_showed_it_down_is_named_with_what_it_held():
    """Each source is read on its own thread. The monitor marks the hung osd.5 down and its PGs peer
    without it; the PG dump read then comes with an OSD map read two seconds before the mark-down,
    which still says up. At the next poll the OSD map says down: the OSD held what the dump before
    said (the real cluster's hung OSD was once named after the deep scrubs beside it)."""
    c = SynthStudy().run(450, PUT)
    held = rgw_pgs_of(c, 5)

    def peered_without_it(c: SynthStudy) -> None:
        c.pgs = [dataclasses.replace(pg, acting=tuple(o for o in pg.acting if o != 5)) for pg in c.pgs]

    info = left_then_stopped(c, peered_without_it)
    assert info is not None and info["cause"] == "osds_down", info
    assert info["evidence"].startswith(f"osd.5 down: 1 of 318 in OSDs (0.3%), holding {held} RGW PGs; "), info


def test_an_osd_moved_off_the_s3_pools_while_up_is_not_named_when_it_goes_down_later():
    """The quiet twins: osd.5 leaves the S3 pools' acting sets while up (drained, or a CRUSH
    change), its PGs handed whole to another OSD, none a member short. What it held is dropped,
    whether an OSD map as new as that dump says it is up or the one read with it is older (each
    source has its thread): once stopped, its stall is no S3 op's. (A review found the second
    named osds_down "holding 376 RGW PGs", which it no longer held.)"""
    c = SynthStudy().run(450, PUT)
    c.off_the_s3_pools(5)
    info = stall(c.run(POLL, PUT)).info()
    assert info is not None and info["cause"] == "none", info
    assert c.value("ceph_scale_s3_plunge_cause_score", cause="osds_down") is None

    older = SynthStudy().run(450, PUT)
    info = left_then_stopped(older, lambda c: c.off_the_s3_pools(5))
    assert info is not None and info["cause"] == "none", info
    assert older.value("ceph_scale_s3_plunge_cause_score", cause="osds_down") is None

    # With osd.7 down for a while, osd.5 shares a few of its short PGs: decided PG by PG, osd.5
    # left none of them short. (A review found it named "osd.5, osd.7 down ... holding 376 RGW
    # PGs" when any one short PG kept all it held.)
    beside = SynthStudy()
    beside.down(7)
    beside.pgs = [
        dataclasses.replace(pg, acting=tuple(o for o in pg.acting if o != 7), state="active+undersized+degraded")
        if 7 in pg.acting
        else pg
        for pg in beside.pgs
    ]
    beside.run(450, PUT)
    pools = beside.rgw_pools()
    assert any(pg.pool_id in pools and 5 in pg.acting and "undersized" in pg.state for pg in beside.pgs)
    info = left_then_stopped(beside, lambda c: c.off_the_s3_pools(5))
    assert info is not None and info["cause"] == "none", info


def dump(t: float, acting: dict[str, tuple[int, ...]], state: str = "active+clean") -> Snapshot:
    """A snapshot of one replicated RGW data pool (id 1) that the capacity source read as size
    `SIZE`, its PGs' acting sets, and an OSD map read at `t` with osd.5 up."""
    pool = Pool(1, "z.rgw.buckets.data", 0, 0, 0, 0.0, 0, 1, SIZE - 1)
    pgs = tuple(PgScrubState(pgid, 1, state, 0.0, 0.0, a) for pgid, a in acting.items())
    osds = tuple(Osd(o, "hdd", "h", True, True, 1, 0) for o in range(8))
    return Snapshot(
        taken_at=t,
        pgs=PgPart(t, pgs),
        capacity=CapacityPart(t, 1, 0, (pool,)),
        osd_map=OsdMapPart(t, osds, FullRatios(0.85, 0.9, 0.95)),
    )


SIZE = 2


def test_a_pg_short_by_its_state_alone_or_an_osd_seen_up_again_decide_what_an_osd_that_left_held():
    """The capacity source read the pool at size 2 before it became 3 (each source has its
    thread): osd.5's mark-down leaves its PGs two members, the width known, and only their state
    says undersized. Kept, with an OSD map older than the dump; dropped once an OSD map as new as
    the dump says osd.5 is up (it flapped back before the next dump)."""
    placement = Placement()
    three = {f"1.{i}": (i % 4, 4 + i % 2, 6) for i in range(8)}  # osd.5 in the odd ones
    placement.observe(dump(100.0, three))
    left = {pgid: tuple(o for o in a if o != 5) for pgid, a in three.items()}
    snap = dump(160.0, left, "active+undersized+degraded")
    placement.observe(dataclasses.replace(snap, osd_map=dataclasses.replace(snap.osd_map, collected_at=158.0)))
    assert placement.holding([5]) == {5: 4}
    placement.observe(dataclasses.replace(dump(170.0, left), pgs=snap.pgs))
    assert placement.holding([5]) == {}


def test_an_osd_down_that_serves_none_of_the_s3_pools_is_not_named():
    """osd.5 serves only pools of another CRUSH rule: its stall is no S3 op's."""
    c = SynthStudy()
    c.off_the_s3_pools(5)
    assert rgw_pgs_of(c, 5) == 0
    info = stall(c.run(450, PUT)).info()
    assert info is not None and info["cause"] == "none", info
    assert c.value("ceph_scale_s3_plunge_cause_score", cause="osds_down") is None


def test_where_the_pg_dump_is_stale_the_osd_is_named_unconfirmed():
    c = SynthStudy().run(450, PUT)
    c.pgs_stale = True
    c.run(420, PUT)
    info = stall(c).info()
    assert info is not None and info["cause"] == "osds_down", info
    assert info["evidence"].startswith("osd.5 down: 1 of 318 in OSDs (0.3%), their PGs unconfirmed (the PG dump is "), (
        info
    )


def test_a_failed_pgs_source_or_no_pool_list_leaves_the_mapping_unknown():
    now, parts = study_parts()
    placement = Placement()
    assert placement.unknown(now) == "no pool list"
    snap = Snapshot(now, pgs=parts["pgs"], capacity=parts["capacity"], osd_map=parts["osd_map"])
    placement.observe(snap)
    assert placement.unknown(now) == "" and placement.holding([5]) == {
        5: Counter(o for pg in parts["pgs"].pgs if pg.pool_id in (6, 7) for o in pg.acting)[5]
    }
    placement.observe(dataclasses.replace(snap, sources=(SourceStatus("pgs", False, 1.0, now - 60, "timed out"),)))
    assert placement.unknown(now) == "the pgs source failed"


def calm(c: SynthStudy) -> SynthStudy:
    """No PG scrubbing (the synthetic state has 0.2 % deep scrubbing at any time)."""
    c.pgs = [dataclasses.replace(pg, state="active+clean") for pg in c.pgs]
    return c


def test_deep_scrubs_on_the_s3_pools_osds_are_named_and_on_other_osds_are_not():
    c = calm(SynthStudy())
    data = max(c.rgw_pools())
    c.run(450, PUT)
    scrubbing = [i for i, pg in enumerate(c.pgs) if pg.pool_id == data][:40]
    for i in scrubbing:
        c.pgs[i] = dataclasses.replace(c.pgs[i], state="active+clean+scrubbing+deep")
    c.run(60, STALL)
    info = c.info()
    assert info is not None and info["cause"] == "deep_scrub", info
    osds = {o for i in scrubbing for o in c.pgs[i].acting}
    pools = c.rgw_pools()
    served = [pg for pg in c.pgs if pg.pool_id in pools]
    on = sum(1 for pg in served if not osds.isdisjoint(pg.acting))
    share = f"{on / len(served):.1%}" if 0.995 <= on / len(served) < 1 else f"{on / len(served):.0%}"
    assert f"(usually 0), 40 running on RGW PGs, on {len(osds)} OSDs serving {share} of them" in info["evidence"]

    # Another pool on three OSDs that the S3 ops' pools do not use.
    quiet = calm(SynthStudy())
    pools = quiet.rgw_pools()
    apart = (300, 301, 302)
    quiet.pgs = [
        dataclasses.replace(pg, acting=tuple(o % 300 if o in apart else o for o in pg.acting))
        if pg.pool_id in pools
        else pg
        for pg in quiet.pgs
    ]
    quiet.run(450, PUT)
    others = [i for i, pg in enumerate(quiet.pgs) if pg.pool_id not in pools][:40]
    for i in others:
        quiet.pgs[i] = dataclasses.replace(quiet.pgs[i], acting=apart, state="active+clean+scrubbing+deep")
    quiet.run(60, STALL)
    assert (quiet.info() or {}).get("cause") == "none", quiet.info()


def test_an_osd_down_minutes_into_a_deep_scrub_storm_does_not_take_its_plunge_over():
    """The storm's 40 deep scrubs cut the PUTs by 30 % [001]; 5 minutes in, osd.5 stalls and is
    marked down. The storm made the drop: it stays the named cause at every poll, however long the
    OSD stays down beside it, and the plunge is counted under it."""
    c = calm(SynthStudy())
    data = max(c.rgw_pools())
    c.run(450, PUT)
    for i in [i for i, pg in enumerate(c.pgs) if pg.pool_id == data][:40]:
        c.pgs[i] = dataclasses.replace(c.pgs[i], state="active+clean+scrubbing+deep")
    storm = dataclasses.replace(PUT, slowdown=1 / 0.7)
    c.run(300, storm)
    c.run(30, dataclasses.replace(PUT, slowdown=1 / (0.7 * 0.3)))
    c.down(5)
    c.run(900, storm)
    named = [cause for _, active, cause in c.seen if active]
    assert named and set(named) == {"deep_scrub"}, Counter(named)
    calm(c).run(600, PUT)
    assert c.value("ceph_scale_s3_plunges", cause="deep_scrub") == 1
    assert c.value("ceph_scale_s3_plunges", cause="osds_down") == 0
