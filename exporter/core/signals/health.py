"""Ceph's own health checks, as counts, next to the signals that explain them."""

from __future__ import annotations

from ..families import Family, gauge
from ..snapshot import Snapshot


def derive(snap: Snapshot) -> list[Family]:
    if snap.health is None:
        return []
    fam = gauge("health_check", "Count Ceph gives for each active health check.", "code", "severity")
    for check in sorted(snap.health.checks, key=lambda c: c.code):
        fam.add(check.count, check.code, check.severity)
    return [fam]
