"""The page budget of the whole 1B run [000, 002] (study_1b.yml, 3 days): the fill from 50 % past
90 % ("an alarming 90 %") with write throughput falling, BlueFS spillover spreading to all 112
OSDs, 7 more RGWs, then old objects deleted while 200 PGs backfill; 48 rounds of PUT, GET and
mixed ops throughout.

Budget: the storage team hears of the 80 % line before the cluster reaches it and of the fullest
OSD past it within WARNED_WITHIN, and of the spillover once, as it starts; the fill pages (the
storage team hears of it too) within PAGED_WITHIN of the fullest OSD reaching 90 %, not before,
and every page is over once the deletion has brought the fill back; nothing else pages; the
round boundaries, the added RGWs and the rebalance raise no S3 alert.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

from replay.cluster import SimCluster
from replay.run import Result
from replay.simulate import START

PAGED_WITHIN = 15 * 60  # the fill alerts' `for: 5m`, and a scrape of each source
WARNED_WITHIN = 15 * 60
FILL_PAGES = {"CephScaleFillPastCritical", "CephScaleOsdFullestPastBackfillfull"}


def first_when(r: Result, reached: Callable[[SimCluster], bool], what: str) -> float:
    """The first step at which the simulated cluster has `reached` (what: named in the error)."""
    (spec,) = r.scenario.clusters
    sim = SimCluster(spec, START, r.scenario.span)
    t = START
    while t <= START + r.scenario.span:
        sim.move_to(t)
        if reached(sim):
            return t
        t += r.scenario.step
    raise AssertionError(f"{what} never happened")


def fullest_past(r: Result, ratio: float) -> float:
    return first_when(r, lambda sim: max(sim.fill.values()) >= ratio, f"the fullest OSD at {ratio:.0%}")


def cluster_past(r: Result, ratio: float) -> float:
    return first_when(r, lambda sim: statistics.fmean(sim.fill.values()) >= ratio, f"the cluster at {ratio:.0%}")


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


def storage(r: Result, alert: str) -> list:
    return [n for n in r.notifications if n.receiver == "ceph-scale-storage" and n.alertname == alert]


def test_no_critical_alert_fires_while_the_fill_grows_from_50_to_90_percent(study_1b):
    """Two and a half days of rounds, spillover spreading and the fill past 80 % and 85 %: warnings
    and tickets, and no critical alert at all until the fullest OSD is at 90 %, not even one that
    an inhibition kept from the pager."""
    crossed = fullest_past(study_1b, 0.90)
    assert crossed - START > 2 * 86400
    critical = {f.alert for f in study_1b.fired if dict(f.labels).get("severity") == "critical"}
    assert critical  # the fill's, from 90 %
    assert [f.alert for f in study_1b.fired if f.alert in critical and f.start < crossed] == []


def test_the_storage_team_hears_of_the_80_percent_line_ahead_and_as_the_cluster_and_its_fullest_osd_cross_it(
    study_1b,
):
    reached = cluster_past(study_1b, 0.80)
    (ahead, *_) = storage(study_1b, "CephScaleFillPredictedToCrossTarget")
    assert ahead.start < reached - 86400  # a day ahead at least: growth fitted, its runway short
    (crossing, *_) = storage(study_1b, "CephScaleFillPastTarget")
    assert reached <= crossing.start <= reached + WARNED_WITHIN
    fullest = fullest_past(study_1b, 0.80)
    (past, *_) = storage(study_1b, "CephScaleOsdFullestPastTarget")
    assert fullest <= past.start <= fullest + WARNED_WITHIN


def test_the_spillover_reaches_the_storage_team_once_as_it_starts_and_never_pages(study_1b):
    """From 0 to all 112 OSDs spilled over 3 days: one warning within WARNED_WITHIN of the first
    OSD spilling, held to the end (still spilling)."""
    (spill,) = storage(study_1b, "CephScaleBluefsSpilloverStarted")
    first = first_when(study_1b, lambda sim: bool(sim.spilled), "an OSD spilling")
    assert first <= spill.start <= first + WARNED_WITHIN and spill.end is None
    assert not [n for n in study_1b.pages() if dict(n.group).get("signal") == "spillover"]
