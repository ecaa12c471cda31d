"""The Markdown a replay prints for replay/README.md: every notification in its table, and each
stall, alert and notification as a bar on the span's axis, where its time puts it."""

from __future__ import annotations

from replay import timeline


def test_the_reboot_replay_prints_each_notification_and_its_bar_where_its_time_is(reboot_without_noout):
    r = reboot_without_noout
    text = timeline.markdown(r)
    for n in r.notifications:
        assert f"| {n.receiver} | {n.alertname} | {n.severity} | {r.offset(n.start)} | {r.offset(n.end)} |" in text
    (page,) = [
        line for line in text.splitlines() if line.endswith("sent: ceph-scale-pager: CephScaleOsdsDownLargeDrop")
    ]
    (stall,) = [line for line in text.splitlines() if "stall: prod: node 1 down" in line]
    # The node goes down at 2 h of 4 (column 30 of 60); the page follows within the next columns.
    assert stall.index("#") == timeline.WIDTH // 2
    assert stall.index("#") <= page.index("#") <= stall.index("#") + 2
