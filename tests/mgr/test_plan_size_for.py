"""`ceph scale plan --size-for`: the sizing of a cluster not yet built, from the module, with no
data collected, the module's thresholds, and the sidecar's parser and document."""

from __future__ import annotations

import errno
import json

from scale.module import Module

from ceph_scale.core.advisor import whatif_render
from ceph_scale.core.config import Thresholds
from tests.mgr.fake_mgr import COMMANDS, load_fixture_data

SPEC = "objects=10e9,object_size=64KB,ec=4+2,put_ops=17800,get_ops=28800,mix=alternating,min_alloc=64KiB"


def make(**options) -> Module:
    mod = Module("scale", None, None)
    load_fixture_data(mod)
    mod.options.update({"server_addr": "127.0.0.1", "rgw_source": "off", **options})
    return mod


def test_size_for_answers_before_any_collection_as_the_sidecar_does():
    mod = make()
    mod.config_notify()
    rc, out, err = COMMANDS["scale plan"](mod, size_for=SPEC)
    assert (rc, err) == (0, "") and out == whatif_render.report(SPEC, Thresholds())
    assert "HDD OSDs of 16 TB: 320 (308 by fill, 320 by ops: ops binds)" in out
    rc, out, err = COMMANDS["scale plan"](mod, format="json", size_for=SPEC)
    assert rc == 0 and json.loads(out)["hdd_osds"]["needed"] == 320


def test_size_for_uses_the_module_thresholds():
    mod = make(fill_target_ratio=0.7, fill_warn_ratio=0.6)
    mod.config_notify()
    rc, out, err = COMMANDS["scale plan"](mod, format="json", size_for=SPEC)
    # 3.93 PB raw at 70 % instead of 80 %: 352 HDDs by fill, not 308.
    assert rc == 0 and json.loads(out)["hdd_osds"]["by_fill"] == 352


def test_a_bad_size_for_is_one_line_and_einval():
    mod = make()
    mod.config_notify()
    rc, out, err = COMMANDS["scale plan"](mod, size_for="objects=1e9,object_size=64KiB,ec=4+2,days=x")
    assert (rc, out) == (-errno.EINVAL, "") and err == "days: expected a number, got 'x'"
