"""A failing source is one log line per change of the failure's kind, not of its text: RGW
answers every refused request with a new RequestId, and that is not a new failure."""

from __future__ import annotations

import itertools
import logging

from ceph_scale.core.derive import DerivationState
from ceph_scale.core.failure_kind import failure_kind
from ceph_scale.io.runner import Schedule, SourceRunner

ENDPOINT = "http://rgw.example:8080/admin/metadata/bucket"


def refused(request: int) -> str:
    """An Admin Ops 403 as the sidecar says it: the body carries this request's ids."""
    return (
        f'HTTP 403: {{"Code":"AccessDenied","RequestId":"tx{request:021x}-0065f1e2d3-{request}-default",'
        f'"HostId":"{request:x}-default-default"}}'
    )


class RgwError(RuntimeError):
    pass


def test_bodies_that_differ_only_in_their_ids_are_one_kind():
    first = f"RgwError: RGW Admin Ops {ENDPOINT}: {refused(1)}"
    later = f"RgwError: RGW Admin Ops {ENDPOINT}: {refused(987654)}"
    assert first != later and failure_kind(first) == failure_kind(later)
    assert failure_kind(first).endswith("HTTP 403 AccessDenied")
    # What tells failures apart stays: the status, the S3 code, the exception type, an errno.
    assert failure_kind(first) != failure_kind(first.replace("403", "404"))
    assert failure_kind(first) != failure_kind(first.replace("AccessDenied", "SlowDown"))
    assert failure_kind(first) != failure_kind(first.replace("RgwError", "OSError"))
    assert failure_kind("E: `osd df` failed (-110): x") != failure_kind("E: `osd df` failed (-13): x")
    # A timeout that names its seconds is one kind whatever the seconds.
    assert failure_kind("timed out after 9.5s") == failure_kind("timed out after 10s")


def test_a_403_with_a_new_request_id_each_poll_is_one_line_until_its_kind_changes(caplog):
    requests = itertools.count(1)
    mode = {"now": "403"}

    def collect(timeout: float):
        if mode["now"] == "403":
            raise RgwError(f"RGW Admin Ops {ENDPOINT}: {refused(next(requests))}")
        if mode["now"] == "timeout":
            raise TimeoutError(f"RGW Admin Ops {ENDPOINT}: timed out after {timeout:g}s")
        return "part"

    runner = SourceRunner("buckets", collect, logging.getLogger("failure-log-test"))
    schedule = Schedule(interval=1, timeout=2, stale_after=60)
    with caplog.at_level(logging.INFO, logger="failure-log-test"):
        for _ in range(20):
            runner.run_once(schedule)
        assert runner.failures == 20 and "RequestId" in runner.error  # the status shows the latest text
        assert len(caplog.records) == 1, [r.getMessage() for r in caplog.records]
        mode["now"] = "timeout"
        for _ in range(5):
            runner.run_once(schedule)
        mode["now"] = "ok"
        for _ in range(3):
            runner.run_once(schedule)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3, lines
    assert "HTTP 403" in lines[0] and "TimeoutError" in lines[1] and lines[2] == "source buckets: ok again"


def test_a_signal_failing_with_varying_text_is_one_line():
    state = DerivationState.__new__(DerivationState)
    state.signal_errors, state._reported_errors = {}, {}
    lines = []
    for osd in range(10):
        state.signal_errors["load"] = f"KeyError: 'osd.{osd}' at load.py:120"
        lines += state.signal_error_changes()
    state.signal_errors["load"] = "ZeroDivisionError: division by zero at load.py:88"
    lines += state.signal_error_changes()
    state.signal_errors.clear()
    lines += state.signal_error_changes()
    assert [failing for failing, _ in lines] == [True, True, False], lines


def test_a_state_file_that_cannot_be_written_is_one_line_until_it_can(tmp_path, caplog):
    from ceph_scale.core.config import Thresholds
    from exporter.sidecar.collector import Collector

    gone = tmp_path / "gone"
    gone.mkdir()
    collector = Collector([], Thresholds(), fsid="11111111-2222-3333-4444-555555555555", state_file=str(gone / "s"))
    gone.rmdir()  # its directory removed under the running exporter
    with caplog.at_level(logging.INFO, logger="exporter.sidecar.collector"):
        for _ in range(5):
            collector._saved_state = None  # a new state to save at every derivation
            collector.derive_now()
        gone.mkdir()
        collector._saved_state = None
        collector.derive_now()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and "cannot write state file" in lines[0] and "written again" in lines[1], lines
