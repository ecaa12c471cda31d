"""The page budget of issue 26, over the studies replayed through the real parsers, derivation,
exposition, Prometheus rule engine and Alertmanager routing (replay/README.md).

- healthy_month.yml: a month of a healthy cluster (nightly scrubs, hourly switches between
  writes and reads, a planned reboot, a failed scrape, a manager failover, an exporter restart)
  and a second cluster of the fleet decommissioned on day 5; healthy_days.yml: the same events
  in two days, the second cluster leaving after 6 hours. Budget, for each: no page; at most
  WARNING_BUDGET warnings to a team; the hourly switches between writes and reads no plunge, the
  planned reboot (mid-round) one, to the RGW team.
- study_10b.yml: the 10B run [004]: 318 OSDs, 21,760 PGs; spillover spreading to 296 OSDs and
  the backlog to 21,070 / 19,494 PGs over 8 hours, one failed scrape at 5 h. Budget: one page,
  for the spillover spreading, within PAGE_WITHIN of its start, through the failed scrape; the
  backlog reaches the storage team once.

The other scenarios' budgets are in test_resharding.py, test_scrub_storm.py, test_power_outage.py
and test_study_1b.py. A defect of today's rules or signals that breaks a budget is an
xfail(strict) naming its class:
it passes the day the defect is fixed, and the test then fails until the mark goes.
"""

from __future__ import annotations

from replay.run import Result
from replay.simulate import START

HOUR = 3600.0
WARNING_BUDGET = 2  # warnings to a team in the healthy two days, and in the month
PAGE_WITHIN = 2 * HOUR  # from the start of the study's incident to its page


def fired(r: Result, alert: str, cluster: str | None = None):
    return [f for f in r.fired if f.alert == alert and (cluster is None or dict(f.labels).get("cluster") == cluster)]


def event_time(r: Result, kind: str) -> float:
    (at,) = [e.at for c in r.scenario.clusters for e in c.events if e.kind == kind]
    return START + at


def firing_at(r: Result, t: float):
    return [f for f in r.fired if f.start <= t and (f.end is None or f.end > t)]


# --- the replay itself ------------------------------------------------------------------------


def test_each_replay_evaluated_the_rules_at_every_step_over_series_of_every_cluster(healthy, study_10b):
    for r in (healthy, study_10b):
        assert r.seconds["evaluations"] == int(r.scenario.span // r.scenario.step) + 1
        assert r.samples > r.series > 0
    clusters = {dict(f.labels).get("cluster") for f in healthy.fired}
    assert "old" in clusters  # the decommissioned cluster's series were there, and then were not
    assert healthy.stale_markers > 0  # the failed scrape, the restart and the cluster leaving


# --- the healthy month, and its events in two days -----------------------------------------------


def test_healthy_cluster_pages_nobody(healthy):
    pages = [n for n in healthy.pages() if dict(n.group)["cluster"] != "old"]
    assert pages == []


def test_decommissioned_cluster_pages_nobody_and_makes_one_ticket(healthy):
    """Its target leaves discovery (after 6 h, or on day 5 of the month): no target that served it
    is discovered any more, so CephScaleClusterLeftFleet (info) says so in one ticket instead of a
    day of pages."""
    left = event_time(healthy, "leave_fleet")
    old = [n for n in healthy.notifications if dict(n.group)["cluster"] == "old"]
    assert [n for n in old if n.receiver == "ceph-scale-pager"] == []
    tickets = [n for n in old if n.receiver == "ceph-scale-ticket"]
    assert len(tickets) <= 1, tickets
    assert [(n.alertname, left < n.start <= left + 15 * 60) for n in tickets] == [("CephScaleClusterLeftFleet", True)]


def test_planned_reboot_under_noout_raises_nothing(healthy):
    reboot = event_time(healthy, "node_down")
    during = [
        f for f in healthy.fired if reboot - 600 <= f.start <= reboot + HOUR and f.alert.startswith("CephScaleOsds")
    ]
    assert during == []
    assert not [f for f in firing_at(healthy, reboot + 600) if dict(f.labels).get("signal") == "degraded"]


def test_the_same_reboot_without_noout_pages_once(reboot_without_noout):
    """The control of the test above: the reboot is seen, and pages when it is not planned."""
    reboot = event_time(reboot_without_noout, "node_down")
    assert [(n.alertname, n.start - reboot <= 10 * 60) for n in reboot_without_noout.pages()] == [
        ("CephScaleOsdsDownLargeDrop", True)
    ]


def test_failed_scrape_resolves_nothing_and_raises_nothing(healthy):
    t = event_time(healthy, "failed_scrape")
    before = [f for f in firing_at(healthy, t - healthy.scenario.step) if f.end is None or f.end > t]
    assert not [f for f in before if f.end is not None and f.end <= t + 15 * 60], "a firing alert resolved"
    raised = [f for f in healthy.fired if t <= f.start <= t + 30 * 60 and dict(f.labels).get("signal") == "exporter"]
    assert raised == []


def test_exporter_restart_and_manager_failover_raise_nothing_of_the_exporter(healthy):
    for kind in ("exporter_restart", "mgr_failover"):
        t = event_time(healthy, kind)
        raised = [
            f for f in healthy.fired if t - 60 <= f.start <= t + HOUR and dict(f.labels).get("signal") == "exporter"
        ]
        assert raised == [], kind


def test_healthy_warnings_within_budget(healthy):
    assert len(healthy.tickets()) <= WARNING_BUDGET, healthy.tickets()


def test_healthy_notifications_each_come_once(healthy):
    """Over the month as over the two days: nothing resolves and notifies again (a flapping alert
    would be a ticket or a warning a day, each within the budget above)."""
    groups = [(n.receiver, n.group) for n in healthy.notifications]
    assert len(groups) == len(set(groups)), sorted(groups)


def workload_switches(r: Result, cluster: str) -> list[float]:
    """When the cluster's workload cycle moves from one step to the next, over the span."""
    (spec,) = [c for c in r.scenario.clusters if c.name == cluster]
    out, t = [], START
    while t < START + r.scenario.span:
        for step in spec.workload:
            t += step.duration
            out.append(t)
    return [t for t in out if t < START + r.scenario.span]


def test_workload_switch_between_writes_and_reads_is_no_plunge_and_a_stall_is(healthy):
    """Every hour the clients switch between writes (300 PUT + 100 GET/s) and reads (50 PUT +
    350 GET/s): the RGWs' requests in flight follow (Little's law), and the PUTs' fall is the
    clients' own. The planned reboot, mid-round, slows the same clients down: a plunge, to the
    RGW team, from within minutes of the reboot to minutes after it, and no page."""
    switches = workload_switches(healthy, "prod")
    assert len(switches) == int(healthy.scenario.span // HOUR) - 1  # 47 in two days, 719 in the month
    reboot = event_time(healthy, "node_down")
    (down,) = [e for c in healthy.scenario.clusters for e in c.events if e.kind == "node_down"]
    plunges = fired(healthy, "CephScaleS3ThroughputPlunge", "prod")
    assert [
        (reboot < f.start <= reboot + 10 * 60, f.end is not None and f.end <= reboot + down.duration + 15 * 60)
        for f in plunges
    ] == [(True, True)]
    notes = [n for n in healthy.notifications if n.alertname == "CephScaleS3ThroughputPlunge"]
    assert [n.receiver for n in notes] == ["ceph-scale-rgw"]
    assert not [n for n in healthy.pages() if any(s - 60 * 60 <= n.start <= s + 60 * 60 for s in switches)]


# --- the 10B run -------------------------------------------------------------------------------


def test_10b_run_pages_once_for_the_spillover_spreading_and_for_nothing_else(study_10b):
    pages = study_10b.pages()
    assert [n.alertname for n in pages] == ["CephScaleBluefsSpilloverSpreading"]
    (page,) = pages
    # Spillover starts within minutes of the span's start (the first of 296 OSDs spills).
    assert page.start - START <= PAGE_WITHIN
    # It holds while 296 of 318 OSDs spill: no resolve and no second page, the failed scrape at
    # 5 h (every series stale once) included.
    assert page.end is None
    assert page.start < event_time(study_10b, "failed_scrape")


def test_10b_spillover_started_warning_gives_way_to_the_page(study_10b):
    (started,) = [n for n in study_10b.notifications if n.alertname == "CephScaleBluefsSpilloverStarted"]
    (spreading,) = [n for n in study_10b.pages()]
    assert started.receiver == "ceph-scale-storage"
    assert started.end == spreading.start  # inhibited from the page on, as alertmanager.yml says


def test_10b_scrub_backlog_reaches_the_storage_team_once(study_10b):
    notes = [n for n in study_10b.notifications if n.alertname == "CephScaleScrubBacklogNotClearing"]
    assert [n.receiver for n in notes] == ["ceph-scale-storage"]
    assert notes[0].start - START <= PAGE_WITHIN
    kinds = {dict(f.labels)["kind"] for f in fired(study_10b, "CephScaleScrubBacklogNotClearing")}
    assert kinds == {"scrub", "deep_scrub"}
