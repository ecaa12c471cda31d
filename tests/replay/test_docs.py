"""docs/replay.md's report is what the replays of this session give: a rule change that moves a
notification fails here until `python -m replay.docs` rewrites the page (or this test does, with
CEPH_SCALE_UPDATE_GOLDEN=1, as the golden files are rewritten, from the replays it has run)."""

from __future__ import annotations

import os

from replay import docs


def test_the_pages_report_is_what_these_replays_print(replays):
    page = docs.PAGE.read_text()
    part = docs.report(replays)
    if os.environ.get("CEPH_SCALE_UPDATE_GOLDEN") == "1":
        docs.PAGE.write_text(docs.rewritten(page, part))
        page = docs.PAGE.read_text()
    assert docs.generated(page) == part, "docs/replay.md is stale: run python -m replay.docs"


def test_the_page_shows_every_replay_of_the_test_command_once():
    assert sorted(docs.SHOWN) == sorted(docs.REPLAYED)
