"""The replay's routing is a real Alertmanager on the shipped configuration: twins, chains of
inhibition, another cluster's alerts and grouping, read from its answers (no scenario is
simulated: the firings are written here)."""

from __future__ import annotations

from replay.alertmanager import Firing, notifications
from replay.simulate import START

MIN = 60.0
MIXIN_OSD_DOWN = (("alertname", "CephOSDDown"), ("cluster", "a"), ("severity", "warning"))


def firing(alert: str, severity: str, signal: str, start: float, end: float | None, **labels: str) -> Firing:
    lbls = {"alertname": alert, "severity": severity, "signal": signal, "cluster": "a", **labels}
    return Firing(alert, tuple(sorted(lbls.items())), START + start * MIN, None if end is None else START + end * MIN)


def sent(notes, receiver: str, alert: str, cluster: str = "a") -> list[tuple[float, float | None]]:
    return [
        ((n.start - START) / MIN, None if n.end is None else (n.end - START) / MIN)
        for n in notes
        if n.receiver == receiver and n.alertname == alert and dict(n.group)["cluster"] == cluster
    ]


def test_a_warning_is_muted_while_its_critical_twin_fires_and_speaks_again_after_it():
    notes = notifications(
        [
            firing("CephScaleBluefsSpilloverStarted", "warning", "spillover", 0, 100),
            firing("CephScaleBluefsSpilloverSpreading", "critical", "spillover", 30, 60),
            # Another cluster's critical mutes nothing here (equal: [cluster]).
            firing("CephScaleBluefsSpilloverSpreading", "critical", "spillover", 70, 90, cluster="b"),
        ]
    )
    assert sent(notes, "ceph-scale-storage", "CephScaleBluefsSpilloverStarted") == [(0, 30), (60, 100)]
    assert sent(notes, "ceph-scale-pager", "CephScaleBluefsSpilloverSpreading") == [(30, 60)]
    assert sent(notes, "ceph-scale-storage", "CephScaleBluefsSpilloverSpreading") == [(30, 60)]
    assert sent(notes, "ceph-scale-pager", "CephScaleBluefsSpilloverSpreading", "b") == [(70, 90)]
    # A warning goes to its team only; nothing of it reaches the pager.
    assert sent(notes, "ceph-scale-pager", "CephScaleBluefsSpilloverStarted") == []


def test_an_inhibited_alert_still_inhibits_and_a_cluster_that_left_mutes_its_signals():
    notes = notifications(
        [
            firing("CephScaleOsdsDownLargeDrop", "critical", "degraded", 10, 20),
            firing("CephScaleOsdsDownExpectedDrop", "warning", "degraded", 10, 40),
            # ceph-mixin's alert, with the cluster label its scrape job gives it.
            Firing("CephOSDDown", MIXIN_OSD_DOWN, START + 600, None),
            firing("CephScaleClusterLeftFleet", "info", "exporter", 50, None),
            firing("CephScaleFillAboveWarnLine", "info", "fill", 45, None),
        ]
    )
    # The expected drop is muted by the page, then speaks; while muted it still mutes CephOSDDown.
    assert sent(notes, "ceph-scale-storage", "CephScaleOsdsDownExpectedDrop") == [(20, 40)]
    assert [((n.start - START) / MIN, n.end) for n in notes if n.alertname == "CephOSDDown"] == [(40, None)]
    assert [n.receiver for n in notes if n.alertname == "CephOSDDown"] == ["default"]
    # The cluster left at 50 min: its fill ticket stops there, its own ticket runs on.
    assert sent(notes, "ceph-scale-ticket", "CephScaleFillAboveWarnLine") == [(45, 50)]
    assert sent(notes, "ceph-scale-ticket", "CephScaleClusterLeftFleet") == [(50, None)]


def test_alerts_of_one_group_are_one_notification_and_nothing_fired_is_nothing_sent():
    notes = notifications(
        [
            firing("CephScaleScrubBacklogGrowing", "info", "scrub", 0, 30, kind="scrub"),
            firing("CephScaleScrubBacklogGrowing", "info", "scrub", 10, 50, kind="deep_scrub"),
        ]
    )
    # group_by: cluster, alertname, signal: the two kinds are one group, on while either fires.
    assert sent(notes, "ceph-scale-ticket", "CephScaleScrubBacklogGrowing") == [(0, 50)]
    assert notifications([]) == []
