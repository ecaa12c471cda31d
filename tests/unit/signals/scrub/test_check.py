"""SCALE_SCRUB_BACKLOG on a hand-made scrub result (ceph_scale/core/signals/scrub/check.py)."""

from __future__ import annotations

import math

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.scrub.check import CHECKS, check_scrub
from ceph_scale.core.signals.scrub.result import ScrubBacklog, ScrubResult

DAY = 86400.0


def backlog(overdue: int, clear: float | None) -> ScrubBacklog:
    return ScrubBacklog(overdue, clear, overdue / 100, DAY, DAY, 0, 0)


def test_it_is_the_folders_one_check():
    assert [c.code for c in CHECKS] == ["SCALE_SCRUB_BACKLOG"]


def test_quiet_while_the_backlog_clears_within_the_horizon():
    assert check_scrub(None, Thresholds(), CheckOptions()) is None
    assert check_scrub(ScrubResult(100, backlog(5, DAY), backlog(0, 0)), Thresholds(), CheckOptions()) is None


def test_the_backlog_that_never_clears_leads():
    c = check_scrub(ScrubResult(100, backlog(5, 10 * DAY), backlog(20, math.inf)), Thresholds(), CheckOptions())
    assert c is not None and c["count"] == 25
    assert c["detail"][0].startswith("deep scrub: 20 of 100 PGs overdue (20.0 %); no deep scrub completed")
    assert "clears in 10.0 days" in c["detail"][1]
