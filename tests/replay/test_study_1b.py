"""The page budget of the 1B run [000, 002], its last 12 hours (study_1b_end.yml): the fill from
87.5 % past 90 % ("an alarming 90 %"), 7 more RGWs, then old objects deleted while 200 PGs
backfill; rounds of PUT, GET and mixed ops throughout, BlueFS spillover on 93 to 112 OSDs.

Budget: the fill pages (the storage team hears of it too) within PAGED_WITHIN of the fullest OSD
reaching 90 %, and every page is over once the deletion has brought the fill back; nothing else
pages; the round boundaries, the added RGWs and the rebalance raise no S3 alert.
"""

from __future__ import annotations

from replay.cluster import SimCluster
from replay.run import Result
from replay.simulate import START

PAGED_WITHIN = 15 * 60  # the fill alerts' `for: 5m`, and a scrape of each source
FILL_PAGES = {"CephScaleFillPastCritical", "CephScaleOsdFullestPastBackfillfull"}


def fullest_past(r: Result, ratio: float) -> float:
    """When the simulated fullest OSD first reached `ratio`."""
    (spec,) = r.scenario.clusters
    sim = SimCluster(spec, START, r.scenario.span)
    t = START
    while t <= START + r.scenario.span:
        sim.move_to(t)
        if max(sim.fill.values()) >= ratio:
            return t
        t += r.scenario.step
    raise AssertionError(f"the fullest OSD never reached {ratio:.0%}")


def rebalance(r: Result) -> tuple[float, float]:
    ((start, end),) = [(s, e) for _, s, e, what in r.incidents if "rebalancing" in what]
    assert end is not None
    return start, end


def test_the_fill_pages_the_pager_and_the_storage_team_in_time(study_1b):
    crossed = fullest_past(study_1b, 0.90)
    pages = study_1b.pages()
    assert pages and {n.alertname for n in pages} <= FILL_PAGES
    assert crossed <= pages[0].start <= crossed + PAGED_WITHIN
    storage = {(n.alertname, n.start) for n in study_1b.notifications if n.receiver == "ceph-scale-storage"}
    assert {(n.alertname, n.start) for n in pages} <= storage


def test_every_page_is_over_once_the_deletion_brought_the_fill_back(study_1b):
    _, end = rebalance(study_1b)
    assert all(n.end is not None and n.end <= end for n in study_1b.pages())


def test_round_boundaries_added_rgws_and_the_rebalance_raise_no_s3_alert(study_1b):
    s3 = [f.alert for f in study_1b.fired if dict(f.labels).get("signal") in ("plunge", "latency", "load")]
    assert s3 == []


def test_the_fill_incident_is_one_page(study_1b):
    """The fullest OSD passes backfillfull before the cluster passes its critical line and comes back
    after it: its page is the incident's, and the cluster's critical waits for it (held back by the
    critical instead, it paged before it and again after it resolved: three pages)."""
    (page,) = study_1b.pages()
    assert page.alertname == "CephScaleOsdFullestPastBackfillfull"
    assert page.end is not None
