"""Ranking a plunge's candidate causes: by how much of the plunge each covered, then by how much
of the drop the study's measurement of that cause explains."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ceph_scale.core.signals.plunge.causes import Evidence, explained, overlap, rank
from ceph_scale.core.signals.plunge.evidence import percent

spans = st.lists(st.tuples(st.floats(-100, 200), st.floats(0, 100)).map(lambda a: (a[0], a[0] + a[1])), max_size=8)


@given(spans, st.floats(0, 100), st.floats(0.1, 100))
def test_overlap_is_a_share_of_the_plunge_and_counts_overlapping_evidence_once(intervals, start, length):
    share = overlap(intervals, start, start + length)
    assert 0.0 <= share <= 1.0 + 1e-9
    assert overlap(intervals + intervals, start, start + length) == pytest.approx(share)
    assert overlap([*intervals, (start - 1, start + length + 1)], start, start + length) == pytest.approx(1.0)


def test_the_cause_active_longer_during_the_plunge_ranks_first():
    evidence = [
        Evidence("deep_scrub", 0, 10, "3 PG deep scrubs"),
        Evidence("osds_down", 0, 40, "osd.2 down", {"put": 0.37, "get": 0.43}),
        Evidence("recovery", 100, 120, "after the plunge: not a candidate"),
    ]
    ranked = rank(0, 40, {"put": 0.5, "get": 0.5}, evidence)
    assert [c.cause for c in ranked] == ["osds_down", "deep_scrub"]
    assert ranked[0].overlap == 1.0 and ranked[1].overlap == 0.25
    assert ranked[0].text == "osd.2 down"


def test_the_study_effect_demotes_a_cause_too_small_for_the_drop():
    """2 % of the OSDs down cost 6 % of PUTs [004]: no explanation for a 60 % plunge, beside a
    deep-scrub burst covering the same time (the study gave that one no number)."""
    evidence = [
        Evidence("osds_down", 0, 40, "6 of 318 down", {"put": 0.06, "get": 0.08}),
        Evidence("deep_scrub", 0, 40, "40 PG deep scrubs"),
    ]
    ranked = rank(0, 40, {"put": 0.5, "get": 0.6}, evidence)
    assert [c.cause for c in ranked] == ["deep_scrub", "osds_down"]
    assert ranked[1].explained == pytest.approx(0.08 / 0.6)
    assert ranked[0].explained is None and ranked[0].score == pytest.approx(0.75)


def test_a_reshard_explains_its_share_of_the_study_drop_and_nothing_active_is_no_known_cause():
    ranked = rank(0, 10, {"put": 0.56, "get": 0.1}, [Evidence("reshard", 5, 10, "bucket b resharded 1 -> 7 shards")])
    assert ranked[0].cause == "reshard"
    assert ranked[0].explained == pytest.approx((1 - 3.9 / 5.4) / 0.56)  # [000]
    assert rank(0, 10, {"put": 0.5}, [Evidence("reshard", 20, 30, "later")]) == []


def test_explained_uses_the_op_that_dropped_most_and_is_capped():
    assert explained({"put": 0.21, "get": 0.25}, {"put": 0.1, "get": 0.5}) == pytest.approx(0.5)
    assert explained({"put": 0.21, "get": 0.25}, {"put": 0.1}) == 1.0
    assert explained(None, {"put": 0.5}) is None


def test_an_osd_stall_before_its_mark_down_explains_the_plunge_after_the_degraded_state_follows():
    """One OSD of 318: its stall explains the whole drop, the degraded state after it 1 % [004]. The
    plunge's largest drop came from the stall, so the cause keeps the stall's explanation."""
    evidence = [
        Evidence("osds_down", 0, 20, "osd.5 down: stalled", {"put": 1.0, "get": 1.0}, 1 / 318),
        Evidence("osds_down", 20, 40, "osd.5 down: degraded", {"put": 0.009, "get": 0.013}, 1 / 318),
        Evidence("deep_scrub", 0, 40, "3 PG deep scrubs (usually 0)", strength=3),
    ]
    ranked = rank(0, 40, {"put": 0.7, "get": 0.7}, evidence)
    assert [c.cause for c in ranked] == ["osds_down", "deep_scrub"]
    assert ranked[0].explained == 1.0 and ranked[0].text == "osd.5 down: stalled"


def test_a_long_bucket_name_is_cut_never_the_count_of_the_others():
    """A bucket name can be 63 characters, and the evidence is cut at 200: the count of the other
    buckets stays whole, so on-call knows there were more."""
    long_name = "b" * 63
    evidence = [
        Evidence("reshard", 0, 40, f"bucket {long_name} resharding 11 -> 23 shards; " + "x" * 200, subject=long_name),
        Evidence("reshard", 0, 40, "bucket other resharding", subject="other"),
        Evidence("reshard", 0, 40, "bucket third resharding", subject="third"),
    ]
    top = rank(0, 40, {"put": 0.5}, evidence)[0]
    told = top.told(200)
    assert len(told) == 200 and told.endswith("... (and 2 more)"), told
    assert told.startswith(f"bucket {long_name} resharding 11 -> 23 shards; ")
    assert rank(0, 40, {"put": 0.5}, evidence[1:])[0].told(200) == "bucket other resharding (and 1 more)"


@pytest.mark.parametrize(
    ("share", "told"), [(1 / 318, "0.3%"), (53 / 318, "17%"), (0.5, "50%"), (20_423 / 20_480, "99.7%"), (1.0, "100%")]
)
def test_a_share_reads_as_what_it_is_one_osd_is_not_none_and_nearly_all_is_not_all(share, told):
    assert percent(share) == told
