"""RGW access from the module: the reshard queue decoded from RADOS, Admin Ops signing,
the radosgw-admin command line."""

from __future__ import annotations

import struct

import pytest
from scale import rgw

from ceph_scale.core import inputs
from ceph_scale.core.inputs import InputError
from ceph_scale.core.reshard_queue import decode_entry
from ceph_scale.io import radosgw_admin
from ceph_scale.io.radosgw_admin import RadosgwAdminError


def encode_string(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def encode_entry(version: int, tenant: str, bucket: str, bucket_id: str, new_id: str, old: int, new: int) -> bytes:
    """cls_rgw_reshard_entry as Ceph encodes it (ENCODE_START(v, 1) ... ENCODE_FINISH)."""
    body = struct.pack("<II", 1795384422, 263442000)  # real_time: sec, nsec
    body += encode_string(tenant) + encode_string(bucket) + encode_string(bucket_id)
    if version < 2:
        body += encode_string(new_id)
    body += struct.pack("<II", old, new)
    return bytes([version, 1]) + struct.pack("<I", len(body)) + body


def test_decode_v1_entry_like_reshard_list():
    raw = encode_entry(1, "", "queued-reshard", "f9cc.4257.3", "", 1, 5)
    entry = decode_entry(raw)
    assert entry.bucket == "queued-reshard" and entry.bucket_id == "f9cc.4257.3"
    assert (entry.old_num_shards, entry.new_num_shards) == (1, 5)
    # The same entry as from `radosgw-admin reshard list` (tests/fixtures/pacific/reshard_list_queued.json)
    cli = [{"bucket_id": "f9cc.4257.3", "bucket_name": "queued-reshard", "new_instance_id": "", "old_num_shards": 1,
            "tenant": "", "tentative_new_num_shards": 5, "time": "2026-11-22T21:13:42.263442Z"}]  # fmt: skip
    (listed,) = inputs.reshard_part(cli, 0.0).entries
    assert listed == entry


def test_decode_in_progress_and_tenant():
    entry = decode_entry(encode_entry(1, "acme", "b", "id.1", "id.2", 7, 13))
    assert entry.in_progress and entry.tenant == "acme"


def test_decode_v2_has_no_new_instance_id():
    entry = decode_entry(encode_entry(2, "", "b", "id.1", "", 11, 23))
    assert (entry.old_num_shards, entry.new_num_shards, entry.in_progress) == (11, 23, False)


@pytest.mark.parametrize("raw", [b"", b"\x01\x01\x05\x00\x00\x00abc", encode_entry(1, "", "b", "i", "", 1, 2)[:-3]])
def test_decode_garbage_is_a_clear_error(raw):
    with pytest.raises(InputError, match="truncated|declares|past the encoded length"):
        decode_entry(raw)


def test_read_queue_pages_through_every_log_shard():
    entries = {("default.rgw.log", "reshard.0000000003"): [
        (f"key{i:05d}", encode_entry(1, "", f"b{i}", f"id{i}", "", 1, 3)) for i in range(2500)
    ]}  # fmt: skip
    calls = []

    def read(pool, oid, after):
        calls.append((pool, oid, after))
        rows = [kv for kv in entries.get((pool, oid), []) if kv[0] > after]
        return rows[: rgw.OMAP_PAGE]

    got = rgw.read_reshard_queue(read, ["default.rgw.log"], 16)
    assert len(got) == 2500 and got[-1].bucket == "b2499"
    assert [c for c in calls if c[1] == "reshard.0000000003"][1:] == [
        ("default.rgw.log", "reshard.0000000003", "key00999"),
        ("default.rgw.log", "reshard.0000000003", "key01999"),
    ]
    assert {c[1] for c in calls} == {f"reshard.{i:010d}" for i in range(16)}


def test_log_pools_of_every_zone():
    assert rgw.rgw_log_pools([".rgw.root", "default.rgw.log", "eu.rgw.log", "rbd", "x.rgw.log.other"]) == [
        "default.rgw.log",
        "eu.rgw.log",
    ]


def test_admin_client_checks_its_settings_and_hides_the_secret():
    with pytest.raises(rgw.RgwError, match="rgw_endpoint is not set"):
        rgw.admin_ops_client("", "a", "b")
    with pytest.raises(rgw.RgwError, match="rgw_access_key"):
        rgw.admin_ops_client("http://rgw:80", "", "")
    with pytest.raises(rgw.RgwError, match="http"):
        rgw.admin_ops_client("rgw:80", "a", "b")
    assert "s3cr3t" not in repr(rgw.admin_ops_client("http://rgw:80", "AKIAXXXX", "s3cr3t"))


def test_radosgw_admin_runs_as_this_manager():
    argv = rgw.radosgw_admin_argv("/etc/ceph/ceph.conf", "/var/lib/ceph/mgr/ceph-x/keyring", "x", ["bucket", "stats"])
    assert argv == ["radosgw-admin", "-c", "/etc/ceph/ceph.conf", "-k", "/var/lib/ceph/mgr/ceph-x/keyring",
                    "-n", "mgr.x", "bucket", "stats", "--format", "json"]  # fmt: skip


def test_radosgw_admin_failure_and_timeout(tmp_path):
    tool = tmp_path / "fake-radosgw-admin"
    tool.write_text('#!/bin/sh\necho "couldn\'t init storage provider" >&2\nexit 5\n')
    tool.chmod(0o755)
    with pytest.raises(RadosgwAdminError, match="bucket stats exited 5: couldn't init storage provider"):
        radosgw_admin.run([str(tool), "-n", "mgr.x", "bucket", "stats", "--format", "json"], 5)
    tool.write_text("#!/bin/sh\nsleep 5\n")
    with pytest.raises(RadosgwAdminError, match="reshard list timed out after 0.5s"):
        radosgw_admin.run([str(tool), "-n", "mgr.x", "reshard", "list", "--format", "json"], 0.5)
    with pytest.raises(RadosgwAdminError, match="not installed"):
        radosgw_admin.run([str(tmp_path / "absent"), "reshard", "list"], 1)
