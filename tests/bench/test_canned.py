"""The benchmark runs the producers' own collectors: the sidecar's sources on canned clients,
the module's collectors on a canned manager, and both give the parts the parsers give."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from bench import canned, canned_mgr, stages, synth
from ceph_scale.core import inputs, queued_bucket_ops
from ceph_scale.core.registry import SOURCE_NAMES


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("synth-canned")
    synth.Synth(seed=5, osds=12, pgs=300, pools=7, buckets=500, rgws=2).write(out)
    return out


def test_the_sidecars_sources_on_canned_clients_give_the_parsers_parts(small):
    now = json.loads((small / "manifest.json").read_text())["now"]
    raws = stages.load_raws(small)
    expected = stages.parts_from_decoded(stages.parse_all(raws), now)
    side = {name: stages.sidecar_source(name, raws, small, now) for name in SOURCE_NAMES}
    for name in SOURCE_NAMES:
        if name not in ("buckets", "reshard"):
            assert side[name] == expected[name], name
    assert stages.queue_of(side["reshard"]) == stages.queue_of(expected["reshard"])
    # Its buckets' own op counts asked of the scale module, which a Pacific manager cannot read.
    assert side["reshard"].entries and side["reshard"].bucket_ops == ()
    assert side["reshard"].bucket_ops_unread == queued_bucket_ops.NO_LABELED_CALLS
    # The bucket poll in its steady state: every bucket's stats as read over the last hours
    assert stages.same_parts(side, expected)
    assert side["buckets"].poll.reads <= side["buckets"].poll.budget


def test_a_command_the_canned_cluster_does_not_know_fails_as_a_cluster_would(small):
    with pytest.raises(canned.CephCommandError, match="osd perf"):
        canned.CannedCeph(stages.load_raws(small)).command("osd perf", 1.0)


def test_the_modules_collectors_on_the_canned_manager_give_the_same_parts(small):
    now = json.loads((small / "manifest.json").read_text())["now"]
    dec = stages.parse_all(stages.load_raws(small))
    counters = inputs.counters_from_prometheus_text(dec["mgr_prometheus_metrics.txt"])
    module = canned_mgr.mgr_package()
    raws = stages.load_raws(small)
    buckets = canned_mgr.mgr_bucket_poll(module, small, canned.bucket_source(raws, small).ctx.rgw)
    parts = canned_mgr.mgr_parts(module, canned_mgr.CannedMgr(dec, counters), dec, buckets)
    expected = stages.parts_from_decoded(dec, now)
    for name in canned_mgr.manager_data_sources(module):  # the module's own copy of the core: compared as data
        assert fields(parts[name]) == fields(expected[name]), name
    assert {b.key: b.num_objects for b in parts["buckets"].buckets} == {
        b.key: b.num_objects for b in expected["buckets"].buckets
    }


def fields(part) -> dict:
    return dataclasses.asdict(dataclasses.replace(part, collected_at=0.0))
