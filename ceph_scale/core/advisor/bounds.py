"""What a plan may ask for: bounded by physics and by Ceph's own limits, and withheld where the
growth behind it cannot carry it to the target date (docs/runway.md, "How a plan is judged").

A growth fitted over minutes and extrapolated over months once asked for 503,679 HDDs and a
pool of 67,108,864 PGs. So a figure sized on growth is judged: fitted over at least
1/plan_max_extrapolation of the target and steady, or its headline is withheld; and every
figure is held to what the cluster can physically do (a cluster fills no faster than its HDDs
write) and to what Ceph accepts (mon_max_pg_per_osd, rgw_max_dynamic_shards).
"""

from __future__ import annotations

import math

from ..config import Thresholds
from .model import Growth, Measured

DAY = 86400.0


def span_words(seconds: float) -> str:
    if seconds < 2 * 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 2 * DAY:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / DAY:,.1f} days"


def too_short(span: float, horizon: float, max_extrapolation: float) -> bool:
    """A growth fitted over `span` seconds cannot carry a figure `horizon` ahead
    (plan_max_extrapolation): the plan withholds it, and a runway from it is a guess."""
    return span * max_extrapolation < horizon


def judge(g: Growth | None, horizon: float, th: Thresholds) -> str | None:
    """Why a figure sized on `g` at `horizon` from now has no headline; None: it stands (or it
    does not extrapolate: no growth fitted, or none positive)."""
    if g is None or g.rate is None or g.rate <= 0:
        return None
    if too_short(g.span, horizon, th.plan_max_extrapolation):
        ratio = th.plan_max_extrapolation
        return (
            f"growth fitted over {span_words(g.span)}, too short for a {horizon / DAY:g}-day target "
            f"(needs {span_words(horizon / ratio)}: plan_max_extrapolation {ratio:g})"
        )
    if g.steady is False:
        return f"growth not steady ({g.shape or 'its older and newer history differ'})"
    return None


def write_amplification(m: Measured) -> float:
    """Raw bytes written per byte stored, the widest pool's (replica 3 when no pool is known)."""
    return max((p.width / max(1, p.data_chunks) for p in m.pools if p.width > 0), default=3.0)


def held_growth(m: Measured, th: Thresholds, bounded: dict[str, str]) -> Growth | None:
    """Raw growth no faster than the HDDs can write: each takes at most the study's 128 MB PUT
    bytes per HDD (34 MB/s [004]) times the write amplification."""
    g = m.raw_used
    if g is None or g.rate is None or m.hdd_osds <= 0:
        return g
    amplification = write_amplification(m)
    most = m.hdd_osds * th.baseline_put_bytes_per_hdd * amplification
    if g.rate <= most:
        return g
    bounded["hdd_osds"] = (
        f"raw growth {g.rate / 1e9:,.1f} GB/s held to what {m.hdd_osds} HDDs write: {most / 1e9:,.1f} GB/s "
        f"({th.baseline_put_bytes_per_hdd / 1e6:g} MB/s each [004] x {amplification:g} raw per byte stored)"
    )
    return Growth(g.now, most, g.span, g.steady, shape=g.shape)


def max_rgws(hdds: int, lost: float, th: Thresholds) -> int:
    """The most RGWs `hdds` HDD OSDs can keep busy: each HDD takes 60 PUT or 90 GET ops/s [004],
    an RGW serves 1,000 PUT or 500 GET [000]; whichever op needs more RGWs per HDD."""
    per_hdd = max(
        th.baseline_put_ops_per_hdd / th.rgw_put_ops_per_instance,
        th.baseline_get_ops_per_hdd / th.rgw_get_ops_per_instance,
    )
    return math.ceil(hdds * per_hdd / (1 - lost) - 1e-9) if lost < 1 else 0


def max_pgs(osds: int, width: int, max_pg_per_osd: int) -> int:
    """The largest power of two of PGs a pool of `width` may have on `osds` OSDs without passing
    mon_max_pg_per_osd PG replicas per OSD (Ceph refuses to create more)."""
    room = max_pg_per_osd * osds // max(1, width)
    return 2 ** int(math.log2(room)) if room >= 1 else 1
