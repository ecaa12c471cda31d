"""The reshard queue decoded from the raw omap value captured on the test cluster."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ceph_scale.core.inputs import InputError
from ceph_scale.core.reshard_queue import decode_entry

RAW = (Path(__file__).resolve().parents[1] / "fixtures" / "pacific" / "reshard_entry.bin").read_bytes()


def test_decodes_what_radosgw_admin_listed():
    e = decode_entry(RAW)
    assert (e.tenant, e.bucket, e.old_num_shards, e.new_num_shards, e.in_progress) == ("", "qq-bucket", 1, 5, False)
    assert e.bucket_id == "7fff2662-5ba2-41c5-bb83-3d67d2e22588.4200.1"


def test_reef_v2_without_new_instance_id_and_later_extra_fields_decode():
    # RAW: v1 header (6 bytes), time (8), tenant "" (4), bucket (4+9), bucket_id (4+43), new_instance_id "" (4), ...
    at = 6 + 8 + 4 + (4 + 9) + (4 + 43)
    assert RAW[at : at + 4] == b"\0\0\0\0"
    v2_body = RAW[6:at] + RAW[at + 4 :]
    v2 = bytes([2, 1]) + struct.pack("<I", len(v2_body)) + v2_body
    assert decode_entry(v2) == decode_entry(RAW)
    later = bytes([3, 1]) + struct.pack("<I", len(v2_body) + 8) + v2_body + b"\x01" * 8
    assert decode_entry(later) == decode_entry(RAW)


def test_the_same_entry_the_json_listing_gives():
    from ceph_scale.core.inputs import reshard_part

    listed = reshard_part(
        [{"tenant": "", "bucket_name": "qq-bucket", "bucket_id": "7fff2662-5ba2-41c5-bb83-3d67d2e22588.4200.1",
          "new_instance_id": "", "old_num_shards": 1, "tentative_new_num_shards": 5}], 0
    )  # fmt: skip
    assert listed.entries[0] == decode_entry(RAW)
    json.dumps(listed.entries[0].__class__.__name__)


@pytest.mark.parametrize("cut", [0, 1, 5, 6, 20, len(RAW) - 1])
def test_truncated_entries_are_refused(cut):
    with pytest.raises(InputError):
        decode_entry(RAW[:cut])


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_crash(raw):
    try:
        decode_entry(raw)
    except InputError:
        pass


def test_the_queue_is_read_by_object_name_in_pages_and_a_refusal_raises():
    from ceph_scale.core.reshard_queue import OMAP_PAGE, read_queue, reshard_log_oids

    assert reshard_log_oids(3) == ["reshard.0000000000", "reshard.0000000001", "reshard.0000000002"]
    # reshard.0000000001 holds OMAP_PAGE + 2 entries (two pages); the others do not exist.
    store = {("p", "reshard.0000000001"): [(f"k{i:05d}", RAW) for i in range(OMAP_PAGE + 2)]}
    calls = []

    def read(pool, oid, after):
        calls.append((oid, after))
        items = [kv for kv in store.get((pool, oid), []) if kv[0] > after]
        return items[:OMAP_PAGE]

    entries = read_queue(read, ["p"], 3)
    assert len(entries) == OMAP_PAGE + 2 and entries[0].bucket == "qq-bucket"
    assert ("reshard.0000000001", f"k{OMAP_PAGE - 1:05d}") in calls  # the second page starts after the first

    def refused(pool, oid, after):
        raise PermissionError("[errno 1] RADOS permission error")

    with pytest.raises(PermissionError):  # never an empty queue
        read_queue(refused, ["p"], 3)

    store[("p", "reshard.0000000002")] = [("bad", b"\x01\x01\xff")]
    with pytest.raises(InputError, match=r"p/reshard/reshard.0000000002\['bad'\]"):
        read_queue(read, ["p"], 3)


def test_radosgw_admin_failures_name_the_command_not_its_options(tmp_path):
    from ceph_scale.io import radosgw_admin

    tool = tmp_path / "radosgw-admin"
    tool.write_text("#!/bin/sh\necho 'failed to init' >&2\nexit 2\n")
    tool.chmod(0o755)
    argv = [str(tool), "--conf", "/etc/ceph/ceph.conf", "--name", "client.mon", "reshard", "list", "--format", "json"]
    with pytest.raises(radosgw_admin.RadosgwAdminError) as e:
        radosgw_admin.run(argv, 5)
    assert str(e.value) == "radosgw-admin reshard list exited 2: failed to init"


def test_the_queue_is_read_over_the_largest_count_a_running_rgw_holds():
    from ceph_scale.core.reshard_queue import queue_log_count
    from ceph_scale.core.snapshot import ClusterSettings, RgwRunningOption

    def settings(*values: int) -> ClusterSettings:
        running = tuple(RgwRunningOption(f"rgw{i}", "rgw_reshard_num_logs", v) for i, v in enumerate(values))
        return ClusterSettings(collected_at=0.0, rgw_running=running, rgw_daemons=len(values))

    def unasked() -> str:
        raise AssertionError("the config database asked although a running RGW said")

    assert queue_log_count(settings(16, 64), unasked) == 64  # one RGW writes to objects 16..63 too
    assert queue_log_count(settings(), lambda: "32") == 32  # no RGW read: the config database's
    assert queue_log_count(None, lambda: "") == 16  # nothing at all: Ceph's default
    other = ClusterSettings(collected_at=0.0, rgw_running=(RgwRunningOption("a", "rgw_max_objs_per_shard", 5),))
    assert queue_log_count(other, lambda: None) == 16
