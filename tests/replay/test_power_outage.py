"""The page budget of the 10B run's power outage [001] (power_outage_10b_short.yml): the study's
cluster and its exporter dark for 2 hours, then 2 hours of rebuilding (30 % of the PGs
recovering at first, the clients served 80 %), every daemon back with its counters at zero and
the exporter with its saved state.

Budget: one page, CephScaleExporterDataMissing, to the pager and the monitoring team, within
PAGED_WITHIN of the outage's start, resolved once within PAGED_WITHIN of the power's return; the
exporter's other alerts and every signal's are held back meanwhile; nothing else pages, and after
the outage nothing reaches a team that did not before it.
"""

from __future__ import annotations

from replay.run import Result

PAGED_WITHIN = 10 * 60  # the alert's `for: 5m` after the first failed scrapes


def outage(r: Result) -> tuple[float, float]:
    ((start, end),) = [(s, e) for _, s, e, what in r.incidents if what.startswith("power outage")]
    assert end is not None
    return start, end


def test_the_outage_is_one_page_resolved_once_when_the_power_returns(power_outage_10b):
    start, back = outage(power_outage_10b)
    dark = [n for n in power_outage_10b.notifications if start <= n.start <= back]
    assert sorted(
        (
            n.alertname,
            n.receiver,
            n.start - start <= PAGED_WITHIN,
            n.end is not None and back <= n.end <= back + PAGED_WITHIN,
        )
        for n in dark
    ) == [
        ("CephScaleExporterDataMissing", "ceph-scale-monitoring", True, True),
        ("CephScaleExporterDataMissing", "ceph-scale-pager", True, True),
    ]
    assert len(power_outage_10b.pages()) == 1


def test_the_exporters_other_alerts_fired_and_were_held_back(power_outage_10b):
    """Its target down, and no exporter of any cluster (this Prometheus scrapes one): both fire,
    and the data missing holds them back."""
    fired = {f.alert for f in power_outage_10b.fired}
    assert {"CephScaleExporterTargetDown", "CephScaleExporterAbsent"} <= fired
    noted = {n.alertname for n in power_outage_10b.notifications}
    assert not {"CephScaleExporterTargetDown", "CephScaleExporterAbsent"} & noted


def test_the_rebuild_pages_nobody_and_tells_no_team_anything_new(power_outage_10b):
    start, back = outage(power_outage_10b)
    before = {n.alertname for n in power_outage_10b.notifications if n.start < start}
    after = [n for n in power_outage_10b.notifications if n.start > back]
    assert [n for n in after if n.receiver == "ceph-scale-pager"] == []
    assert {n.alertname for n in after} <= before
