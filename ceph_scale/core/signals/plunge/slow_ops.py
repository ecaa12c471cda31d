"""What the health checks say of slow OSDs, for the plunge's `slow_ops` cause. Pure.

SLOW_OPS: each OSD (and monitor) reports to the manager how many of its requests in flight are
older than `osd_op_complaint_time` (30 s) and how old the oldest is (src/osd/OSD.cc,
OSD::get_health_metrics); the manager sums them into one check (src/mgr/
DaemonHealthMetricCollector.cc, SlowOps) whose summary is all there is (no detail lines, a count
of 1):

    42 slow ops, oldest one blocked for 35 sec, daemons [osd.12,osd.40] have slow ops.
    3 slow ops, oldest one blocked for 31 sec, osd.5 has slow ops
    1597 slow ops, oldest one blocked for 16139 sec, daemons [osd.0,...,osd.35]... have slow ops.

It names at most ten daemons; "..." after the list says there are more.

BLUESTORE_SLOW_OP_ALERT (Reef's later builds on): OSDs whose BlueStore saw operations slower than
its own threshold; the check's count is how many OSDs ("3 OSD(s) experiencing slow operations in
BlueStore"). Ceph keeps it raised for a day after the last slow operation, so only more OSDs
than usual count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...snapshot import HealthPart

SLOW_OPS, BLUESTORE_SLOW = "SLOW_OPS", "BLUESTORE_SLOW_OP_ALERT"

_SUMMARY = re.compile(
    r"^(?P<ops>\d+) slow ops, oldest one blocked for (?P<oldest>\d+) sec, "
    r"(?:daemons \[(?P<many>[^\]]*)\](?P<more>\.\.\.)? have slow ops\.?|(?P<one>\S+) has slow ops\.?)$"
)


@dataclass(frozen=True)
class SlowOps:
    ops: int | None  # slow requests summed over the daemons; None: the summary was not Ceph's shape
    oldest_seconds: float | None
    daemons: tuple[str, ...]  # as named, at most ten
    more: bool  # more daemons than named
    summary: str

    @property
    def osds(self) -> tuple[str, ...]:
        return tuple(d for d in self.daemons if d.startswith("osd."))

    def told(self) -> str:
        """'42 slow ops on 2 daemons (osd.12, osd.40), the oldest blocked 35 s'."""
        if self.ops is None:
            return f"SLOW_OPS: {self.summary}"
        n = len(self.daemons)
        count = f"{n}+ daemons" if self.more else (f"{n} daemons" if n != 1 else "1 daemon")
        named = ", ".join(self.daemons[:3]) + (" and more" if n > 3 or self.more else "")
        return f"SLOW_OPS: {self.ops} slow ops on {count} ({named}), the oldest blocked {self.oldest_seconds:g} s"


def slow_ops(health: HealthPart) -> SlowOps | None:
    """The SLOW_OPS check of this health part, or None when it is not raised."""
    check = next((c for c in health.checks if c.code == SLOW_OPS), None)
    if check is None:
        return None
    m = _SUMMARY.match(check.summary.strip())
    if m is None:
        return SlowOps(None, None, (), False, check.summary.strip())
    names = m["one"] or m["many"] or ""
    daemons = tuple(d.strip() for d in names.split(",") if d.strip())
    return SlowOps(int(m["ops"]), float(m["oldest"]), daemons, bool(m["more"]), check.summary.strip())


def bluestore_slow(health: HealthPart) -> int:
    """OSDs with BlueStore's slow-operation alert raised (0: none)."""
    return next((c.count for c in health.checks if c.code == BLUESTORE_SLOW), 0)
