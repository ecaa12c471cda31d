"""Which alerts an Alertmanager configuration's inhibit rules take as sources (rules/ticket_cadence.py):
a ticket that silences others is evaluated every round, so every form Alertmanager accepts must
be read, and a form that names no alert takes every alert as a possible source."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rules import ticket_cadence

REPO = Path(__file__).resolve().parents[2]
NAMES = {"CephScaleFillAboveWarnLine", "CephScaleFillPastTarget", "CephScaleRunwayShort", "CephScaleRgwReshardStorm"}
# The shipped tickets, and the two that silence others (evaluated every round).
SHIPPED_TICKETS = {
    "CephScaleBluefsDbShareBelowMin",
    "CephScaleFillAboveWarnLine",
    "CephScaleRgwBucketsNearShardLimit",
    "CephScaleRgwBucketsPredictedToReshard",
    "CephScaleBucketPastObjectsAdvised",
    "CephScaleRunwayShort",
    "CephScaleClusterLeftFleet",
    "CephScaleScrubBacklogGrowing",
}
TARGET = '    target_matchers: [severity="warning"]\n    equal: [cluster]\n'


def config(tmp_path: Path, source: str) -> Path:
    """An Alertmanager file of one inhibit rule with `source` (its source lines), checked by amtool."""
    path = tmp_path / "alertmanager.yml"
    path.write_text(
        "route:\n  receiver: r\nreceivers:\n  - name: r\ninhibit_rules:\n  - " + source.strip() + "\n" + TARGET
    )
    amtool = shutil.which("amtool")
    assert amtool, "amtool is installed by scripts/bootstrap.sh"
    check = subprocess.run([amtool, "check-config", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    return path


@pytest.mark.parametrize(
    "source, expected",
    [
        ('source_matchers: [alertname="CephScaleFillPastTarget"]', {"CephScaleFillPastTarget"}),
        (
            'source_matchers: [alertname=~"CephScaleFillPastTarget|CephScaleFillAboveWarnLine"]',
            {"CephScaleFillPastTarget", "CephScaleFillAboveWarnLine"},
        ),
        ('source_matchers: [\'alertname="CephScaleRunwayShort",cluster="a"\']', {"CephScaleRunwayShort"}),
        ("source_matchers: ['{alertname=\"CephScaleRunwayShort\"}']", {"CephScaleRunwayShort"}),
        ("source_matchers: [\"alertname='CephScaleRunwayShort'\"]", {"CephScaleRunwayShort"}),
        (
            'source_matchers: [alertname=~"CephScaleFill(PastTarget|AboveWarnLine)"]',
            {"CephScaleFillPastTarget", "CephScaleFillAboveWarnLine"},
        ),
        ("source_match: {alertname: CephScaleRunwayShort}", {"CephScaleRunwayShort"}),
        ("source_match_re: {alertname: 'CephScale.*Storm'}", {"CephScaleRgwReshardStorm"}),
        # a regex Go's RE2 reads otherwise than Python, or Python cannot compile: any alert
        ("source_matchers: ['alertname=~\"(?U)CephScaleRunwayShort\"']", NAMES),
        ("source_matchers: ['alertname=~\"CephScale\\\\.Runway\"']", NAMES),
        ("source_match_re: {alertname: 'CephScaleFill[[:alpha:]]+'}", NAMES),
        ("source_matchers: ['alertname=~CephScaleRunway.{5}']", NAMES),
        # chosen by another label only: any alert may silence others
        ('source_matchers: [severity="critical"]', NAMES),
        ('source_matchers: [alertname!="CephScaleRunwayShort"]', NAMES),
    ],
)
def test_every_form_alertmanager_accepts_names_its_sources(tmp_path, source, expected):
    assert ticket_cadence.inhibiting_alerts(config(tmp_path, source), NAMES) == expected


def test_the_shipped_routing_names_the_tickets_that_inhibit():
    found = ticket_cadence.inhibiting_alerts(REPO / "rules" / "alertmanager" / "alertmanager.yml", SHIPPED_TICKETS)
    assert found == {"CephScaleClusterLeftFleet", "CephScaleScrubBacklogGrowing"}


@pytest.mark.parametrize("text", ["- a list\n", "inhibit_rules: {a: b}\n", "inhibit_rules: [null]\n"])
def test_a_routing_of_another_shape_is_one_line(tmp_path, text):
    path = tmp_path / "alertmanager.yml"
    path.write_text(text)
    with pytest.raises(ticket_cadence.CadenceError) as e:
        ticket_cadence.inhibiting_alerts(path, NAMES)
    assert str(e.value) == f"{path}: inhibit_rules is not a list of mappings"


def test_an_unreadable_routing_is_one_line(tmp_path):
    with pytest.raises(ticket_cadence.CadenceError) as e:
        ticket_cadence.inhibiting_alerts(tmp_path / "alertmanager.yml", NAMES)
    assert str(e.value).startswith(f"{tmp_path / 'alertmanager.yml'}: cannot read the inhibit rules")
    assert "\n" not in str(e.value)
