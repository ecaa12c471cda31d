"""The scrub signal's section of `ceph scale status` (ceph_scale/core/signals/scrub/status.py)."""

from __future__ import annotations

from ceph_scale.core.signals.scrub.result import ScrubBacklog, ScrubResult
from ceph_scale.core.signals.scrub.status import SECTION
from tests.unit.signals.judged import judged


def test_no_data_without_pgs():
    assert SECTION.build(judged(), {}, 5)["status"] == "NO DATA"


def test_each_backlog_in_a_line_and_the_overdue_ones_as_offenders():
    quiet = ScrubBacklog(0, 0.0, 0.0, 100.0, 86400.0, 1, 7)
    late = ScrubBacklog(3, 7200.0, 0.03, 90000.0, 86400.0, 0, 2)
    section = SECTION.build(judged(scrub=ScrubResult(100, quiet, late)), {}, 5)
    assert [o["kind"] for o in section["offenders"]] == ["deep_scrub"]
    assert section["lines"][1].startswith("deep scrub: 3 overdue (3.0 %)") and "clears in: 2.0 h" in section["lines"][1]
    assert "backlog clears in: none" in section["lines"][2]
    assert section["status"] == "WARN"
