"""The module reads the reshard queue's buckets' own op counters with the manager's labeled call,
`get_latest_counter`, answered here as Tentacle 20.2.4's manager answered it
(tests/fixtures/tentacle/mgr_get_latest_counter_rgw_bucket_counters.json: RGW 4234 counted bc-one
12 PUTs and 12 GETs, bc-two 5 and 5; 4162 is a stale RGW from before a restart, with no label
sets). The real manager's path is tests/mgr/test_mgr_cluster.py's Tentacle test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scale import sources
from scale.bucket_ops import QueuedBucketOps, bucket_ops_reply

from ceph_scale.core import queued_bucket_ops
from ceph_scale.core.parse_base import InputError
from ceph_scale.core.queued_bucket_ops import NO_LABELED_CALLS, TENANTED, WATCH_AFTER
from ceph_scale.core.snapshot import BucketOps, ReshardEntry, ReshardPart
from exporter.sidecar.ceph_client import CephCommandError
from exporter.sidecar.sources.base import Deadline, SourceContext
from exporter.sidecar.sources.reshard import ReshardSource

TENTACLE = Path(__file__).resolve().parents[1] / "fixtures" / "tentacle"
CAPTURED = TENTACLE / "mgr_get_latest_counter_rgw_bucket_counters.json"
# The same RGW's own totals, from the manager's walk of its unlabeled counters in the same capture.
WALKED = TENTACLE / "mgr_get_unlabeled_perf_counters_rgw_bucket_counters.json"


class TentacleManager:
    """The manager calls the read makes, answered from the capture; a label set it does not hold
    answers as the manager answers for RGW 4162's: no points."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.answers = json.loads(CAPTURED.read_text()) if answers is None else answers
        self.walked = json.loads(WALKED.read_text())
        self.calls: list[tuple] = []

    def get_unlabeled_perf_schema(self, *args: Any) -> Any:
        raise AssertionError("not read: the calls for one counter are enough")

    def list_servers(self) -> list:
        return [{"hostname": "h", "services": [{"type": "rgw", "id": "4162"}, {"type": "rgw", "id": "4234"},
                                               {"type": "osd", "id": "0"}]}]  # fmt: skip

    def get_latest_unlabeled_counter(self, kind: str, ident: str, path: str) -> Any:
        self.calls.append((kind, ident, path))
        counter = self.walked.get(f"{kind}.{ident}", {}).get(path)
        return {path: [1796354372.471033, counter["value"]] if counter else []}

    def get_latest_counter(self, kind: str, ident: str, section: str, counter: str, labels: list) -> Any:
        self.calls.append((kind, ident, section, counter, tuple(labels)))
        ((_, bucket),) = labels
        return self.answers.get(f"{ident} {bucket} {counter}", {section: []})


def entries(*names: str, tenant: str = "") -> tuple[ReshardEntry, ...]:
    return tuple(ReshardEntry(n, tenant, f"zone.{n}", 1, 11) for n in names)


def test_the_queued_buckets_counts_are_read_per_rgw_and_a_stale_rgw_is_left_out():
    mgr = TentacleManager()
    ops, unread = QueuedBucketOps().read(mgr, entries("bc-one", "bc-two"), 100.0)
    assert unread == ""
    # RGW 4234's totals (its 17 PUTs and GETs: 12 + 5) read with its counts of each bucket.
    assert ops == (
        BucketOps("4234", "", 17, 17),
        BucketOps("4234", "bc-one", 12, 12),
        BucketOps("4234", "bc-two", 5, 5),
    )
    # Each RGW's two totals; the buckets' two counters on the RGW that has totals; nothing else.
    assert len(mgr.calls) == 8
    assert {c[2] for c in mgr.calls} == {"rgw_op_per_bucket", "rgw_op.put_obj_ops", "rgw_op.get_obj_ops"}


def test_a_bucket_stays_read_for_a_while_after_it_left_the_queue():
    reader, mgr = QueuedBucketOps(), TentacleManager()
    reader.read(mgr, entries("bc-one", "bc-two"), 100.0)
    ops, _ = reader.read(mgr, entries("bc-two"), 100.0 + WATCH_AFTER)
    assert {o.bucket for o in ops} == {"", "bc-one", "bc-two"}  # "": the RGW's totals
    ops, _ = reader.read(mgr, entries("bc-two"), 101.0 + WATCH_AFTER)
    assert {o.bucket for o in ops} == {"", "bc-two"}


def test_buckets_no_rgw_counts_say_so_not_zero():
    ops, unread = QueuedBucketOps().read(TentacleManager(), entries("never-written"), 1.0)
    assert ops == () and unread == queued_bucket_ops.NOT_COUNTED


def test_an_empty_queue_reads_nothing_and_is_no_failure():
    mgr = TentacleManager()
    assert QueuedBucketOps().read(mgr, (), 1.0) == ((), "")
    assert mgr.calls == []


def test_a_manager_without_labeled_calls_says_so():
    class ReefManager:
        def get_latest_counter(self, kind: str, ident: str, path: str) -> Any:
            raise AssertionError("Reef's takes a path, not labels")

    assert QueuedBucketOps().read(ReefManager(), entries("bc-one"), 1.0) == ((), NO_LABELED_CALLS)


def test_a_tenants_bucket_is_not_read_by_its_name_alone():
    mgr = TentacleManager()
    assert QueuedBucketOps().read(mgr, entries("bc-one", tenant="t1"), 1.0) == ((), TENANTED)
    assert mgr.calls == []


@pytest.mark.parametrize("answer", [{"rgw_op_per_bucket": [1.0, -3]}, {"rgw_op_per_bucket": "x"}, {}, [1, 2]])
def test_a_malformed_answer_is_one_line_naming_it_and_the_queue_is_kept(answer, queue_of_bc_one):
    mgr = TentacleManager({"4234 bc-one put_obj_ops": answer})
    reader = QueuedBucketOps()
    part = sources.collect_reshard(Queue(mgr), Settings(), 5.0, None, reader)
    assert [e.bucket for e in part.entries] == [e["bucket_name"] for e in queue_of_bc_one] == ["bc-one"]
    assert part.bucket_ops == ()
    assert part.bucket_ops_unread.startswith("InputError: rgw.4234 rgw_op_per_bucket bc-one put_obj_ops")
    assert "\n" not in part.bucket_ops_unread


class Settings:
    rgw_source = "radosgw_admin"


class Queue:
    """The manager as collect_reshard sees it: radosgw-admin's `reshard list` gives the queue."""

    def __init__(self, mgr: TentacleManager) -> None:
        self.mgr = mgr

    def __getattr__(self, name: str) -> Any:
        return getattr(self.mgr, name)


@pytest.fixture
def queue_of_bc_one(monkeypatch):
    listed = [{"bucket_name": "bc-one", "tenant": "", "bucket_id": "zone.bc-one", "old_num_shards": 1,
               "tentative_new_num_shards": 11}]  # fmt: skip
    monkeypatch.setattr(sources, "_radosgw_admin", lambda mgr, args, timeout: json.dumps(listed))
    return listed


def test_the_reshard_part_carries_the_counts(queue_of_bc_one):
    part = sources.collect_reshard(Queue(TentacleManager()), Settings(), 5.0, None, QueuedBucketOps())
    assert isinstance(part, ReshardPart) and len(part.entries) == len(queue_of_bc_one)
    assert part.bucket_ops == (BucketOps("4234", "", 17, 17), BucketOps("4234", "bc-one", 12, 12))
    assert part.bucket_ops_unread == ""


# --- `ceph scale bucket-ops`: the sidecar's route to the counts --------------------------------


def test_the_command_answers_what_the_sidecar_reads_back():
    rc, out, err = bucket_ops_reply(TentacleManager(), "bc-one,bc-two,never-written")
    assert (rc, err) == (0, "")
    assert queued_bucket_ops.reply_part(json.loads(out)) == (
        (BucketOps("4234", "", 17, 17), BucketOps("4234", "bc-one", 12, 12), BucketOps("4234", "bc-two", 5, 5)),
        "",
    )


def test_the_command_on_a_manager_without_labeled_calls_says_so():
    rc, out, _ = bucket_ops_reply(object(), "bc-one")
    assert rc == 0 and queued_bucket_ops.reply_part(json.loads(out)) == ((), NO_LABELED_CALLS)
    assert bucket_ops_reply(TentacleManager(), ",")[0] != 0


@pytest.mark.parametrize(
    "doc, message",
    [
        ([], r"^scale bucket-ops: expected an object"),
        ({"bucket_ops": []}, r"^scale bucket-ops\.unread: missing"),
        ({"bucket_ops": [["4234", "b", 1]], "unread": ""}, r"bucket_ops\[0\]: expected \[RGW, bucket, PUTs, GETs\]"),
        ({"bucket_ops": [["4234", "b", -1, 0]], "unread": ""}, r"bucket_ops\[0\]\[2\]: expected a count"),
        ({"bucket_ops": {}, "unread": ""}, r"bucket_ops: expected a list"),
    ],
)
def test_a_malformed_reply_is_one_line_naming_the_field(doc, message):
    with pytest.raises(InputError, match=message) as caught:
        queued_bucket_ops.reply_part(doc)
    assert "\n" not in str(caught.value)


class SidecarCeph:
    """The sidecar's Ceph client, its `scale bucket-ops` answered by the module's command over the
    captured manager (or failing as the CLI fails without the module)."""

    def __init__(self, fail: str = "") -> None:
        self.fail = fail
        self.sent: list[tuple[str, dict]] = []

    def command(self, prefix: str, timeout: float, **args: Any) -> Any:
        self.sent.append((prefix, args))
        if self.fail:
            raise CephCommandError(self.fail)
        rc, out, err = bucket_ops_reply(TentacleManager(), args["buckets"])
        assert rc == 0, err
        return json.loads(out)


def queue(*names: str) -> ReshardPart:
    return ReshardPart(100.0, entries(*names))


def test_the_sidecar_reads_the_queued_buckets_counts_through_the_module():
    ceph = SidecarCeph()
    source = ReshardSource(SourceContext(ceph=ceph))  # type: ignore[arg-type]
    ops, unread = source.bucket_ops(queue("bc-one"), Deadline(5))
    assert (ops, unread) == ((BucketOps("4234", "", 17, 17), BucketOps("4234", "bc-one", 12, 12)), "")
    assert ceph.sent == [("scale bucket-ops", {"buckets": "bc-one"})]
    source.bucket_ops(queue(), Deadline(5))  # bc-one left the queue: still read for a while
    assert ceph.sent[-1] == ("scale bucket-ops", {"buckets": "bc-one"})


def test_without_the_module_the_sidecar_says_why_in_one_line_and_asks_nothing_for_an_empty_queue():
    ceph = SidecarCeph(fail="`ceph scale bucket-ops` exited 22: Error EINVAL: invalid command\n")
    source = ReshardSource(SourceContext(ceph=ceph))  # type: ignore[arg-type]
    ops, unread = source.bucket_ops(queue("bc-one"), Deadline(5))
    assert ops == () and unread == "`ceph scale bucket-ops` exited 22: Error EINVAL: invalid command"
    fresh = ReshardSource(SourceContext(ceph=ceph))  # type: ignore[arg-type]
    assert fresh.bucket_ops(queue(), Deadline(5)) == ((), "")
    assert len(ceph.sent) == 1
