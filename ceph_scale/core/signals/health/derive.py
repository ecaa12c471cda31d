"""Ceph's own health checks, as counts, next to the signals that explain them."""

from __future__ import annotations

from ...families import Family, gauge
from ..signal_input import SignalInput


def derive(given: SignalInput, state: None = None) -> list[Family]:
    snap = given.snap
    if snap.health is None:
        return []
    fam = gauge("health_check", "Count Ceph gives for each active health check.", "code", "severity")
    for check in sorted(snap.health.checks, key=lambda c: c.code):
        fam.add(check.count, check.code, check.severity)
    return [fam]
