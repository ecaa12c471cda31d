"""Scrub capacity: does one round of scrubs fit the scrub intervals? [004, 001, 003]

The 10B cluster was behind on 21,070 of 21,760 PGs [004]: its scrub work no longer fitted the
week Ceph gives it. The work is PGs x the measured scrub durations; the room is the scrub slots
(osd_max_scrubs per OSD, a PG's scrub holding one on each OSD of its acting set) over the
intervals. Utilization 1 is the point where PGs start to fall behind for good.
"""

from __future__ import annotations

from .model import ScrubMeasure


def durations(m: ScrubMeasure) -> tuple[float | None, float | None]:
    """Mean seconds of a shallow and of a deep scrub (Little's law); an unmeasured kind takes
    the other's (a deep scrub is no shorter: the shallow figure stands in as a lower bound)."""
    shallow = m.scrubbing / m.scrubs_per_second if m.scrubs_per_second > 0 else None
    deep = m.deep_scrubbing / m.deep_scrubs_per_second if m.deep_scrubs_per_second > 0 else None
    return (shallow if shallow is not None else deep), (deep if deep is not None else shallow)


def utilization(m: ScrubMeasure) -> float | None:
    """Scrub slots the intervals need / scrub slots the OSDs have; None until a scrub completed."""
    shallow, deep = durations(m)
    if shallow is None or deep is None or m.osds <= 0 or m.pg_width <= 0 or m.deep_interval <= 0:
        return None
    # Every PG is deep-scrubbed once per deep interval, which resets its shallow clock too;
    # shallow scrubs fill the rest of the shorter shallow interval.
    shallow_rate = max(0.0, 1 / m.scrub_interval - 1 / m.deep_interval) if m.scrub_interval > 0 else 0.0
    busy = m.pgs * (deep / m.deep_interval + shallow * shallow_rate)  # PGs scrubbing at once, on average
    slots = m.osds * max(1, m.max_scrubs) / m.pg_width
    return busy / slots
