"""A state file belongs to one exporter and to one cluster.

Two exporters given one `--state-file` (a configuration copied for a second cluster on the same
host, a cron `--once --plan` pointed at the running exporter's file) would replace each other's
file at every derivation; the second is refused at its start, as Prometheus refuses a second
server on one data directory. The bucket poll's `<state_file>.buckets` names its cluster, as the
state file does: another cluster's buckets are dropped at the first poll that knows the fsid.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from ceph_scale.core.registry import SOURCE_NAMES
from ceph_scale.core.snapshot import FullRatios, OsdMapPart
from cluster.helpers import free_port
from exporter.sidecar import state_lock
from exporter.sidecar.main import build_collector, build_parser
from exporter.sidecar.sources import Deadline, SourceContext
from exporter.sidecar.sources.buckets import BucketsSource
from exporter.sidecar.startup_checks import StartupNotes
from tests.bench.test_fast_paths import FixtureCeph, FixtureRgw
from tests.unit.test_saved_state_rows import study_poll
from tests.unit.test_settings_startup import FSID, REPO, ceph_conf, one_line, run_once, secret_file

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "pacific"

OTHER = "99999999-8888-7777-6666-555555555555"


@contextlib.contextmanager
def exporter_on(directory: Path, state: Path) -> Iterator[tuple[int, int]]:
    """The real exporter serving with `state` as its state file, its only monitor port 9 on
    loopback (nothing answers): its web port and pid, the process stopped at the end."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "exporter", f"--web.listen-address=127.0.0.1:{port}",
         f"--ceph-conf={ceph_conf(directory)}", f"--state-file={state}"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        serving(port)
        yield port, proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def serving(port: int) -> None:
    started = time.monotonic()
    while time.monotonic() - started < 30:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/healthy", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the first exporter never served")


def second_exporter(directory: Path, state: Path) -> subprocess.CompletedProcess:
    """A second serving exporter (not --once) on `state`: refused at once, or serving (stopped)."""
    argv = [sys.executable, "-m", "exporter", f"--web.listen-address=127.0.0.1:{free_port()}",
            f"--ceph-conf={ceph_conf(directory)}", f"--state-file={state}"]  # fmt: skip
    try:
        return subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("the second exporter was not refused: it served") from e


def test_a_second_serving_exporter_on_the_same_state_file_is_refused_naming_the_first(tmp_path):
    state = tmp_path / "state.json"
    first_dir = tmp_path / "first"
    first_dir.mkdir()
    with exporter_on(first_dir, state) as (_, pid):
        result = second_exporter(tmp_path, state)
        line = one_line(result)
        assert result.returncode == 2, result.stderr
        assert "--state-file" in line and "in use by another exporter" in line, line
        assert f"(pid {pid} on host {socket.gethostname()})" in line, line
    # The first stopped (its lock went with it): a --once run on the file takes it, and writes it.
    again = run_once(tmp_path, f"--state-file={state}")
    assert again.returncode == 0 and again.stderr == "", again.stderr
    assert json.loads(state.read_text())["fsid"] == FSID


def sentinels(tmp_path: Path) -> dict[str, bytes]:
    """A state, its bucket poll and a save under way (`.tmp`), as a serving exporter has them."""
    files = {"state.json": b'{"version": 1}', "state.json.buckets": b'{"version": 1}', "state.json.tmp": b"{"}
    for name, body in files.items():
        (tmp_path / name).write_bytes(body)
    return files


def test_a_refused_exporter_and_a_once_run_leave_the_holders_files_as_they_are(tmp_path):
    """The holder here is another interpreter that never writes, so any change is theirs."""
    state = tmp_path / "state.json"
    files = sentinels(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(state)], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        refused = second_exporter(tmp_path, state)
        assert refused.returncode == 2 and f"(pid {holder.pid} on host " in one_line(refused), refused.stderr
        # The runbook's `--once --plan` on the serving exporter's file: read, never written.
        once = run_once(tmp_path, f"--state-file={state}", "--plan")
        assert "Traceback" not in once.stderr, once.stderr
        (line,) = [x for x in once.stderr.splitlines() if "level=WARNING" in x or "level=ERROR" in x]
        assert once.returncode == 0 and "held by a serving exporter" in line, once.stderr
        assert "runway" in once.stdout.lower(), once.stdout[:300]
        assert {name: (tmp_path / name).read_bytes() for name in files} == files
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("state.json")) == sorted(
            [*files, "state.json.lock"]
        )
    finally:
        holder.communicate("", timeout=20)


def test_an_exporter_on_its_own_state_file_beside_another_runs(tmp_path):
    first_dir = tmp_path / "first"
    first_dir.mkdir()
    with exporter_on(first_dir, tmp_path / "a.json"):
        result = run_once(tmp_path, f"--state-file={tmp_path / 'b.json'}")
        assert result.returncode == 0 and result.stderr == "", result.stderr


def test_a_lock_file_another_user_made_is_locked_read_only(tmp_path, monkeypatch):
    """root's --once run beside the service leaves the lock file root's, mode 0644: the service's
    user opens it read-only, and flock() needs no more. (root may write any file, so the
    refusal of a read-write open is made here, as the kernel makes it for another user.)"""
    state = tmp_path / "state.json"
    (tmp_path / "state.json.lock").write_text("4242 admin-host\n")
    real_open = os.open

    def open_as_another_user(path, flags, *args):
        if str(path).endswith(".lock") and flags & os.O_RDWR:
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args)

    monkeypatch.setattr(state_lock.os, "open", open_as_another_user)
    monkeypatch.setattr(state_lock, "_HELD", {})
    assert state_lock.hold(str(state), "--state-file", read_only_ok=False) == state_lock.Held()
    # the lock is real: another process is refused, and told what the file says
    holder = subprocess.run([sys.executable, "-c", HOLD, str(state)], cwd=REPO, input="", capture_output=True,
                            text=True, timeout=30)  # fmt: skip
    # the file names an older process (the holder could not write it): the kernel's holder is named
    assert holder.returncode != 0 and f"in use by another exporter (pid {os.getpid()})" in holder.stderr, holder.stderr


def source_with(tmp_path: Path, fsid: list[str]) -> BucketsSource:
    ctx = SourceContext(ceph=None, state_file=str(tmp_path / "state.json"))  # type: ignore[arg-type]
    ctx.fsid = lambda: fsid[0]
    return BucketsSource(ctx)


def saved_study_poll(tmp_path: Path, fsid: str) -> int:
    """The study's 100,000-bucket poll state saved as `fsid`'s; its bucket count."""
    data = {**study_poll(), "fsid": fsid}
    (tmp_path / "state.json.buckets").write_text(json.dumps(data))
    return len(data["buckets"])


def test_its_own_and_an_unnamed_bucket_poll_are_kept(tmp_path):
    for saved in (FSID, ""):
        buckets = saved_study_poll(tmp_path, saved)
        source = source_with(tmp_path, [FSID])
        source._own(FSID)
        assert len(source.poll.entries) == buckets
        source._save()
        assert json.loads((tmp_path / "state.json.buckets").read_text())["fsid"] == FSID


def sidecar_on(tmp_path: Path, *enabled: str, fsid: str | None = None):
    """The sidecar as its command line builds it (ceph.conf naming `fsid`, or none), with only
    `enabled` sources, the RGW answered from a captured bucket-stats list."""
    args = build_parser().parse_args(
        [f"--ceph-conf={ceph_conf(tmp_path, fsid=fsid)}", "--rgw-endpoint=http://127.0.0.1:9",
         f"--rgw-credentials-file={secret_file(tmp_path)}", f"--state-file={tmp_path / 'state.json'}",
         *[f"--disable-source={name}" for name in SOURCE_NAMES if name not in enabled]]
    )  # fmt: skip
    collector = build_collector(args, StartupNotes())
    runners = {r.name: r for r in collector.runners}
    buckets = runners["buckets"].source
    assert isinstance(buckets, BucketsSource)
    buckets.ctx.ceph = FixtureCeph(b"")
    buckets.ctx.rgw = FixtureRgw((FIX / "admin_api_bucket_stats_resharded.json").read_bytes())
    return runners, buckets


def test_a_restored_poll_naming_a_cluster_waits_for_the_fsid_then_is_dropped_as_another_clusters(tmp_path, caplog):
    """Through the sidecar's own wiring: ceph.conf names no fsid (Rook's, before the chart named
    it), so the OSD map's is awaited; the poll fails meanwhile, saying why, rather than serve
    another cluster's buckets."""
    saved_study_poll(tmp_path, OTHER)
    runners, buckets = sidecar_on(tmp_path, "osd_map", "buckets")
    restored = buckets.poll
    with pytest.raises(RuntimeError, match=f"names cluster {OTHER}: waiting for this cluster's fsid"):
        buckets.collect(Deadline(10))
    assert buckets.poll is restored and len(restored.entries) == 100_000
    runners["osd_map"].part = OsdMapPart(0.0, (), FullRatios(0.85, 0.9, 0.95), fsid=FSID.upper())
    with caplog.at_level(logging.WARNING):
        part = buckets.collect(Deadline(10))
    assert buckets.poll is not restored and part.buckets
    (line,) = [r.getMessage() for r in caplog.records if "not this cluster's" in r.getMessage()]
    assert OTHER in line and FSID in line
    buckets.close()
    assert json.loads((tmp_path / "state.json.buckets").read_text())["fsid"] == FSID


def test_a_restored_poll_of_its_own_cluster_is_polled_on(tmp_path, caplog):
    saved_study_poll(tmp_path, FSID)
    _, buckets = sidecar_on(tmp_path, "buckets", fsid=FSID)
    restored = buckets.poll
    with caplog.at_level(logging.WARNING):
        buckets.collect(Deadline(10))
    assert buckets.poll is restored and buckets.owner == FSID and "not this cluster's" not in caplog.text


def test_the_poll_waits_a_moment_for_the_osd_map_that_starts_beside_it(tmp_path):
    """At a start and in a --once run both sources begin together: the bucket poll does not fail
    for the half second the OSD map takes to name the cluster (a review's case: the runbook's
    --once --plan lost its buckets on a ceph.conf without an fsid)."""
    saved_study_poll(tmp_path, FSID)
    runners, buckets = sidecar_on(tmp_path, "osd_map", "buckets")
    restored = buckets.poll
    named = OsdMapPart(0.0, (), FullRatios(0.85, 0.9, 0.95), fsid=FSID)
    timer = threading.Timer(0.5, lambda: setattr(runners["osd_map"], "part", named))
    timer.start()
    try:
        buckets.collect(Deadline(30))
    finally:
        timer.cancel()
    assert buckets.poll is restored and buckets.owner == FSID


def test_where_no_fsid_will_ever_be_known_the_restored_poll_is_kept(tmp_path, caplog):
    """No fsid in ceph.conf and the osd_map source off: nothing to check against (the start
    warned that the cluster label is unknown); the poll goes on from what it saved."""
    saved_study_poll(tmp_path, OTHER)
    _, buckets = sidecar_on(tmp_path, "buckets")
    assert buckets.ctx.fsid() is None
    restored = buckets.poll
    buckets.collect(Deadline(10))
    assert buckets.poll is restored and buckets.owner == OTHER and "not this cluster's" not in caplog.text


HOLD = """
import sys
from exporter.sidecar import state_lock
try:
    state_lock.hold(sys.argv[1], "--state-file", read_only_ok=False)
except Exception as e:
    sys.exit(str(e))
print("held", flush=True)
sys.stdin.read()
"""
