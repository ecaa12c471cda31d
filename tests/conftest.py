"""Session fixtures: one real Ceph cluster for the whole test session.

Starting a cluster costs about a minute; every real-cluster test shares this
one and the scenarios are ordered so that each condition is made once.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


SESSION_PID = os.getpid()


def pytest_configure(config):
    """SIGTERM (the test command stopped: CI's time limit, Ctrl-C on scripts/test.sh) ends the
    session as Ctrl-C does, so that its fixtures' teardown stops the clusters: their daemons run in
    sessions of their own, which no group signal reaches, and would otherwise be left running."""
    signal.signal(signal.SIGTERM, interrupted)


ENDING: list[str] = []  # the session ends (pytest took the stop, or its tests are done)
HOLDING: list[str] = []  # what runs that a KeyboardInterrupt would cut in half (a cluster's stop)
DEFERRED: list[int] = []  # the stop asked while it ran, raised once it is done


def interrupted(signum: int, _frame: object) -> None:
    """Raised until pytest has taken it: one raised where Python ignores errors (a finalizer) is
    lost, and the test command signals again (scripts/test.sh). Not once the session ends: a
    second signal would cut its teardown short, as one cut pytest's report of the first. Held while
    a cluster stops: cut there, the rest of its daemons would be left running, out of the pool
    that stops them."""
    if os.getpid() != SESSION_PID:  # a forked child that has not set its own: ends, as by default
        os._exit(128 + signum)
    if ENDING:
        return
    if HOLDING:
        DEFERRED.append(signum)
        return
    raise KeyboardInterrupt


def pytest_keyboard_interrupt():
    ENDING.append("interrupted")


@contextlib.contextmanager
def uninterrupted(what: str):
    """`what` runs to its end; a stop asked meanwhile comes after it."""
    HOLDING.append(what)
    try:
        yield
    finally:
        HOLDING.pop()
        if DEFERRED and not HOLDING and not ENDING:
            DEFERRED.clear()
            raise KeyboardInterrupt


@pytest.fixture(scope="session")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("ceph-scale")


# Every release the tests know; the cross-release tests are parametrized over all of them.
ALL_RELEASES = ("pacific", "reef", "tentacle")
# The releases this run tests (CEPH_SCALE_RELEASES=pacific narrows a run; none: no release's): a
# test of another release is deselected. CEPH_SCALE_CLUSTERLESS says what becomes of the tests that
# start no cluster (unit, rules, replay, docs, and a release's tests that only read its packages):
# 1 (the default) they run with the others, 0 they are left out, only nothing else runs.
# scripts/test.sh runs them in two processes of their own (PART), beside Pacific's cluster tests
# and each newer release's, each in a process of its own.
RELEASES = tuple(r for r in os.environ.get("CEPH_SCALE_RELEASES", ",".join(ALL_RELEASES)).split(",") if r)
CLUSTERLESS = os.environ.get("CEPH_SCALE_CLUSTERLESS", "1")
# CEPH_SCALE_PART splits a run in two, for two processes: `signals` the signals' unit tests (the
# plunge detector fed the studies' rounds: a third of the tests that start no cluster), `rest` the
# others; unset, both. scripts/test.sh runs the tests that start no cluster in two processes, so
# that once the clusters' processes are done, the second core is not left idle.
PART = os.environ.get("CEPH_SCALE_PART", "")
PARTS = {"signals": ("tests/unit/signals/",)}


ON_EVERY_RELEASE = pytest.mark.parametrize("ceph_cluster", ALL_RELEASES, indirect=True)


class Clusters:
    """One real cluster per release for the whole session, and its session sidecar.

    Tests ask for `ceph_cluster` (Pacific unless a module is marked ON_EVERY_RELEASE);
    pytest groups the tests by release, and a newer release's cluster is stopped once
    its tests are done, so at most two clusters run at a time in one session.
    """

    def __init__(self, factory) -> None:
        self.factory = factory
        self.clusters: dict = {}
        self.sidecars: dict = {}

    def cluster(self, release: str):
        from cluster.testcluster import TestCluster

        if release not in self.clusters:
            base = self.factory.mktemp(f"cluster-{release}")
            cluster = TestCluster(
                base_dir=str(base),
                osds=3,
                db_sizes=("256M", "1G", "1G"),
                standby_mgr=True,
                rgw=True,
                extra_mgr_modules={"scale": str(REPO / "mgr_module" / "scale")},
                release_name=release,
            )
            try:
                cluster.start()
            except BaseException:
                cluster.stop()
                raise
            self.clusters[release] = cluster
        return self.clusters[release]

    def sidecar(self, cluster, scratch: Path):
        from demo.sidecar import Sidecar

        release = cluster.release.name
        if release not in self.sidecars:  # as an operator runs it: the users docs/security.md makes
            self.sidecars[release] = Sidecar(cluster, scratch).start()
        return self.sidecars[release]

    def stop(self, release: str) -> None:
        with uninterrupted(f"{release}'s cluster stopping"):
            sidecar = self.sidecars.pop(release, None)
            if sidecar is not None:
                sidecar.stop()
            cluster = self.clusters.pop(release, None)
            if cluster is not None:
                cluster.stop()

    def stop_all(self) -> None:
        for release in list(self.clusters):
            self.stop(release)


# The session's pool, for the hook that stops a release's cluster after its last test.
POOL: list[Clusters] = []


@pytest.fixture(scope="session")
def clusters(tmp_path_factory):
    pool = Clusters(tmp_path_factory)
    POOL.append(pool)
    yield pool
    POOL.remove(pool)
    pool.stop_all()


@pytest.fixture(scope="session", params=["pacific"])
def ceph_cluster(request, clusters):
    """The real cluster of one release (the param; Pacific, the host's, by default)."""
    release = request.param
    cluster = clusters.cluster(release)
    os.environ["CEPH_CONF"] = str(cluster.conf_path)
    yield cluster
    if release != "pacific":  # its tests are done: free the machine for the next release
        clusters.stop(release)


@pytest.fixture(scope="session")
def sidecar(ceph_cluster, clusters, scratch):
    """The session's sidecar on that cluster, with the release's own client, as the read-only
    cephx and RGW users docs/security.md makes."""
    return clusters.sidecar(ceph_cluster, scratch)


# Tests that leave a release's cluster changed in ways later tests would read (5,000 buckets made
# and removed; minutes of S3 load, gigabytes written, OSDs out and in), in this order. They run
# last on their release's cluster, after every test that judges its values.
LAST_ON_THEIR_CLUSTER = ("tests/integration/test_bucket_watch_cost.py", "tests/integration/test_plunge_cluster.py")
# Of those, the plunge run judges what the cluster does under load: run beside other processes'
# tests (scripts/test.sh), it waits for the machine to itself (QUIET_LOCK, the_machine_to_itself)
# once its bulk data is written, which needs no quiet machine. The bucket watch counts reads at
# the cluster, which the other processes' tests do not touch: it runs as soon as it comes,
# beside them.


def release(item) -> str | None:
    """The release an item tests: its cluster's, or the one it is parametrized with."""
    spec = getattr(item, "callspec", None)
    return (spec.params.get("ceph_cluster") or spec.params.get("release_name")) if spec else None


def uses_a_cluster(item) -> bool:
    return "ceph_cluster" in getattr(item, "fixturenames", ())


def selected(item) -> bool:
    """Whether this run tests the item: of one of its releases (or of none), of its part (PART), and
    of the kind it runs (the tests that start a cluster, those that do not, or both)."""
    rel = release(item)
    if rel is not None and rel not in RELEASES:
        return False
    if PART and PART != next((name for name, under in PARTS.items() if item.nodeid.startswith(under)), "rest"):
        return False
    return CLUSTERLESS != "only" if uses_a_cluster(item) else CLUSTERLESS != "0"


def heavy(item) -> bool:
    return item.nodeid.startswith(LAST_ON_THEIR_CLUSTER)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Only the tests this run selects (its releases, its kinds); then, after pytest has
    grouped the items by release (its reordering of session parameters): within each release's
    run of items, the heavy ones move to its end, in their own order; to the end of the whole
    run when they wait for other processes (QUIET_LOCK)."""
    if CLUSTERLESS not in ("0", "1", "only"):
        raise pytest.UsageError(f"CEPH_SCALE_CLUSTERLESS={CLUSTERLESS}: 1 (the default), 0 or only")
    if PART not in ("", "rest", *PARTS):
        raise pytest.UsageError(f"CEPH_SCALE_PART={PART}: {', '.join(PARTS)} or rest (unset: both)")
    kept, dropped = [], []
    for item in items:
        (kept if selected(item) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept
    ordered: list = []
    for item in items:
        rel = release(item)
        heavies = [i for i, x in enumerate(ordered) if heavy(x) and release(x) == rel]
        if rel is not None and not heavy(item) and heavies:
            ordered.insert(heavies[0], item)  # before its release's heavy ones, after its light ones
        else:
            ordered.append(item)
    if QUIET_LOCK:  # they wait for the other processes: whatever else this one runs goes first
        ordered = [i for i in ordered if not heavy(i)] + [i for i in ordered if heavy(i)]
    items[:] = replays_behind(ordered)
    for item in items:
        rel = release(item)
        if uses_a_cluster(item) and rel is not None:
            LAST_ITEM_OF[rel] = item.nodeid


def reads_replays(item) -> bool:
    """Whether the test reads a replay (its fixtures all ask for tests/replay's `replayed`)."""
    return "replayed" in getattr(item, "fixturenames", ())


def replays_behind(items: list) -> list:
    """The tests that read the replays moved behind the others, before the heavy ones: the
    others run while the replays do (tests/replay/background.py)."""
    reading = [i for i in items if reads_replays(i)]
    reading.sort(key=lambda i: "replays" in i.fixturenames)  # those that read every replay last
    rest = [i for i in items if not reads_replays(i)]
    at = next((k for k, i in enumerate(rest) if heavy(i)), len(rest))
    return rest[:at] + reading + rest[at:]


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """In a session of tests that start no cluster, the replays start as its tests begin; in one
    that starts clusters, when a test first reads them (their fixtures), so as not to take the
    cores from the clusters' tests before then."""
    if session.config.option.collectonly or session.testsfailed:
        return
    if any(map(reads_replays, session.items)) and not any(map(uses_a_cluster, session.items)):
        from tests.replay import background

        background.session()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish():
    ENDING.append("finished")  # its teardown runs to its end
    if "tests.replay.background" in sys.modules:
        sys.modules["tests.replay.background"].stop()


# Each release's last test that uses its cluster: Pacific's is also the default cluster, so its
# fixture keeps it for tests that come back to it; after its last one nothing does, and its
# daemons and session sidecar would only take the two cores from the newer releases' tests.
LAST_ITEM_OF: dict[str, str] = {}


# Releases whose last test is done. Their clusters stop once the next test is set up: pytest
# finalizes a module's fixtures of the old cluster (a module enabled on its manager, say) only
# when the next test asks for another one, and those finalizers still talk to the cluster.
DONE_WITH: list[str] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield
    DONE_WITH.extend(release for release, nodeid in LAST_ITEM_OF.items() if nodeid == item.nodeid)


def last_on_its_cluster(release_name: str, path: str) -> bool:
    """Whether the tests of `path` are the last to use that release's cluster in this run: it is
    stopped after them, so whatever they would put back for later tests need not be."""
    return LAST_ITEM_OF.get(release_name, "").startswith(path)


# CEPH_SCALE_QUIET_LOCK: a lock file that the processes running other tests at the same time hold,
# shared, while they run (scripts/test.sh). The tests that need a quiet machine take it exclusively
# before they start: they have the two cores to themselves, as they would in a run of their own.
QUIET_LOCK = os.environ.get("CEPH_SCALE_QUIET_LOCK")
_QUIET: list = []


def the_machine_to_itself(what: str, config: pytest.Config) -> None:
    """Returns once the other processes' tests are done (at once without any), and keeps the
    machine for this process until it ends: the two cores to itself, as in a run of its own. The
    wait is printed past pytest's capture: the test command's log tells where its time went."""
    if QUIET_LOCK and not _QUIET:
        held = open(QUIET_LOCK, "a")  # noqa: SIM115 (held until the process ends)
        waited = time.monotonic()
        fcntl.flock(held, fcntl.LOCK_EX)
        _QUIET.append(held)
        capture = config.pluginmanager.getplugin("capturemanager")
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            print(f"\n{what}: waited {time.monotonic() - waited:.0f} s for the other tests to finish")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    """After any test's setup: the clusters that are done with (DONE_WITH) stopped."""
    yield
    while DONE_WITH and POOL:
        POOL[0].stop(DONE_WITH.pop())
