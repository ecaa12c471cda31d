"""The sidecar image's Ceph client, chosen by the Dockerfile's DEBIAN_SUITE (`docker/image.sh
build --suite`), and which clusters each client reads with the keys they make by default.

The default, trixie, is Reef 18.2's librados (tests/deploy/test_image.py runs it against Pacific
and Reef); sid is Tentacle 20.2's, the only one that parses the AES256KRB5 keys a Tentacle cluster
makes by default. Each run here is one source-success check on a release's session cluster.
"""

from __future__ import annotations

import base64
import re
import subprocess
import urllib.error
import urllib.request

import pytest

from ceph_scale.core.registry import SOURCES
from demo.monitoring import free_port, wait_until
from tests.deploy.test_image import (  # noqa: F401 (image: fixture)
    IMAGE_SH,
    image,
    operator_mounts,
    owned_by_the_image_user,
    podman,
    removed,
    run_exporter,
    sources,
)

SID_TAG = "localhost/ceph-scale-exporter:sid"
# librados2's version in each suite's image: its Ceph release.
CEPH_OF_SUITE = {"trixie": "18.2.", "sid": "20.2."}
# The cephx key's type, the first (little-endian) u16 of the decoded key: 1 is AES, the type
# Pacific and Reef make; 2 is AES256KRB5, Tentacle's default.
AES256KRB5 = 2


@pytest.fixture(scope="session")
def sid_image() -> str:
    """The image with Tentacle's client: its own base, cached beside the default one."""
    proc = subprocess.run([IMAGE_SH, "build", "--suite", "sid", SID_TAG], capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split()[-1]


def of_suite(request, suite: str) -> str:
    return request.getfixturevalue({"trixie": "image", "sid": "sid_image"}[suite])


@pytest.mark.parametrize("suite", CEPH_OF_SUITE)
def test_the_build_argument_chooses_the_image_s_librados(request, suite):
    """trixie is also the default: the `image` fixture builds without --suite."""
    proc = podman("run", "--rm", "--entrypoint", "dpkg-query", of_suite(request, suite),
                  "-W", "-f", "${Version}\n", "librados2", "python3-rados")  # fmt: skip
    librados, python_rados = proc.stdout.split()
    assert librados.startswith(CEPH_OF_SUITE[suite]), librados
    assert python_rados == librados


def test_basic_auth_users_work_in_the_image(image, tmp_path):  # noqa: F811
    """The image's bcrypt is the suite's (trixie's is a PyO3 build): the exporter checks a
    password with it in its main interpreter. No cluster: the landing page needs only auth."""
    # A hash made inside the image, so the test needs no bcrypt on the host.
    make_hash = "import bcrypt; print(bcrypt.hashpw(b'scrape-secret', bcrypt.gensalt(rounds=4)).decode())"
    hashed = podman("run", "--rm", "--entrypoint", "python3", image, "-c", make_hash).stdout
    web = owned_by_the_image_user(tmp_path / "web.yml", f"basic_auth_users:\n  prometheus: '{hashed.strip()}'\n")
    conf = owned_by_the_image_user(tmp_path / "ceph.conf", "[global]\nmon_host = 127.0.0.1:1\n", 0o444)
    port = free_port()
    name = f"ceph-scale-auth-{port}"
    podman("run", "-d", "--name", name, "--network", "host", "--health-interval", "disable",
           "-v", f"{web}:/etc/ceph-scale/web.yml:ro", "-v", f"{conf}:/etc/ceph/ceph.conf:ro", image,
           "--web.listen-address", f"127.0.0.1:{port}", "--web.config.file", "/etc/ceph-scale/web.yml")  # fmt: skip

    def status(password: str | None) -> int:
        req = urllib.request.Request(f"http://127.0.0.1:{port}/")
        if password is not None:
            req.add_header("Authorization", "Basic " + base64.b64encode(f"prometheus:{password}".encode()).decode())
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code
        except OSError:
            return 0

    try:
        wait_until(lambda: status(None) == 401, 60, what="the exporter to ask for a password")
        assert status("wrong") == 401
        assert status("scrape-secret") == 200
    finally:
        removed(name)


@pytest.fixture(scope="module")
def default_key_mounts(ceph_cluster, tmp_path_factory) -> dict[str, str]:
    user = f"ceph-scale-image-default-key-{ceph_cluster.release.name}"
    return operator_mounts(ceph_cluster, tmp_path_factory.mktemp("image-default-key"), user)


def key_type(keyring_path: str) -> int:
    (key,) = re.findall(r"key = (\S+)", open(keyring_path).read())
    return int.from_bytes(base64.b64decode(key)[:2], "little")


@pytest.mark.cluster
@pytest.mark.parametrize("ceph_cluster", ["pacific", "reef", "tentacle"], indirect=True)
def test_tentacle_s_client_reads_each_release_with_its_default_key(sid_image, ceph_cluster, default_key_mounts):
    if ceph_cluster.release.name == "tentacle":
        assert key_type(default_key_mounts["keyring"]) == AES256KRB5
    port = free_port()
    name = run_exporter(sid_image, default_key_mounts, ceph_cluster, port)
    try:
        every = {s.name: 1.0 for s in SOURCES}
        wait_until(lambda: sources(port) == every, 180, what=f"every source with Tentacle's client: {sources(port)}")
    finally:
        removed(name)


@pytest.mark.cluster
@pytest.mark.parametrize("ceph_cluster", ["tentacle"], indirect=True)
def test_the_default_image_fails_tentacle_s_default_key_saying_so(image, ceph_cluster, default_key_mounts):  # noqa: F811
    """Reef's client cannot parse an AES256KRB5 key: every source that reads RADOS is reported
    failed, and the log says why, rather than a silent zero."""
    assert key_type(default_key_mounts["keyring"]) == AES256KRB5
    port = free_port()
    name = run_exporter(image, default_key_mounts, ceph_cluster, port)
    try:
        ceph = {s.name for s in SOURCES if not s.rgw}
        wait_until(lambda: ceph <= set(sources(port)), 120, what=f"the Ceph sources to be reported: {sources(port)}")
        assert {s: v for s, v in sources(port).items() if s in ceph} == dict.fromkeys(ceph, 0.0)
        assert "error connecting to the cluster" in podman("logs", name).stderr
    finally:
        removed(name)
