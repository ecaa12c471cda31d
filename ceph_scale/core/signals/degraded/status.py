"""The degraded signal's part of `ceph scale status`: the share of HDD OSDs down and the S3
throughput drop the study measured for it."""

from __future__ import annotations

from ..judging import JsonObject, Judged, Raised, StatusSection, section
from ..wording import pct
from .result import DegradedResult


def degraded(r: Judged, checks: Raised, top: int) -> JsonObject:
    judged = r.results.get(DegradedResult)
    if judged is None:
        return section("NO DATA", ["no OSD map yet"], {}, [])
    down = judged.down_ratio
    drop = {"put": judged.put_drop_ratio, "get": judged.get_drop_ratio}
    lines = [
        f"{pct(down)} of HDD OSDs down: expected S3 throughput drop {pct(drop['put'])} PUT, "
        f"{pct(drop['get'])} GET (study table)"
    ]
    return section("WARN" if down > 0 else "OK", lines, {"osds_down_ratio": down, "expected_drop": drop}, [])


SECTION = StatusSection("Degraded state", degraded, own_part=True)
