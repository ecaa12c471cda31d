"""The runway and sizing advisor: when each study limit will be reached, and what to add.

Pure: `advise(measured, thresholds)` from the live measurements (`measure.py`), its formulas
in `runway.py`, `sizing.py`, `scrub.py` and `shards.py`, each citing its study number
(docs/runway.md). The `runway` signal exports it; `ceph scale plan` and the sidecar's
`--once --plan` print it (`render.py`).
"""

from __future__ import annotations

from ..config import Thresholds
from .model import Advice, Measured
from .runway import hdd_load, rgw_load, runways
from .sizing import plan


def advise(m: Measured, th: Thresholds) -> Advice:
    now: dict[str, float] = {"hdd_osds": m.hdd_osds, "rgw_instances": m.rgw_instances}
    if m.raw_used is not None and m.raw_total_bytes > 0:
        now["raw_used_ratio"] = m.raw_used.now / m.raw_total_bytes
    for name, g in m.s3.items():
        now[f"s3_{name}_per_second"] = g.now
    for name, load in (("hdd_load_ratio", hdd_load(m, th)), ("rgw_load_ratio", rgw_load(m, th))):
        if load is not None:
            now[name] = load[0]
    return Advice(runways(m, th), plan(m, th), now)
