"""The sidecar image: its build steps run on the host, its Dockerfile is sound (tests/deploy/test_image.py
builds it with podman and runs it against the real cluster)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def dockerfile() -> list[tuple[str, str]]:
    out = []
    for line in (REPO / "Dockerfile").read_text().replace("\\\n", " ").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_build_steps_install_a_runnable_exporter(tmp_path):
    proc = subprocess.run(
        [str(REPO / "docker" / "install.sh"), "--root", str(tmp_path), "--check"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wrapper = tmp_path / "usr/local/bin/ceph-scale-exporter"
    assert os.access(wrapper, os.X_OK)
    assert not list((tmp_path / "opt/ceph-scale-signals").rglob("__pycache__"))


def test_dockerfile_runs_the_script_as_non_root_with_a_healthcheck():
    steps = dockerfile()
    words = [w for w, _ in steps]
    assert steps[:2] == [("ARG", "DEBIAN_SUITE=trixie"), ("FROM", "debian:${DEBIAN_SUITE}-slim")]
    runs = [rest for w, rest in steps if w == "RUN"]
    assert runs == ["/src/docker/install.sh --only packages", "/src/docker/install.sh --only files && rm -rf /src"]
    packages = steps.index(("RUN", runs[0]))
    assert steps.index(("COPY", "exporter /src/exporter")) > packages, "the code comes after the packages layer"
    user = [rest for w, rest in steps if w == "USER"]
    assert user and not user[-1].startswith(("0", "root"))
    assert words.index("USER") > words.index("RUN")
    assert "HEALTHCHECK" in words and "ENTRYPOINT" in words
    for w, rest in steps:
        if w == "COPY":
            assert (REPO / rest.split()[0]).exists(), rest


def test_healthcheck_script_against_a_real_server():
    from exporter.sidecar.http_server import serve

    class Cached:
        exposition = b"x 1\n"

    server = serve("127.0.0.1:0", "/metrics", Cached(), None)
    env = {**os.environ, "CEPH_SCALE_PORT": str(server.server_address[1])}
    try:
        script = str(REPO / "docker" / "healthcheck.py")
        assert subprocess.run([sys.executable, script], env=env).returncode == 0
    finally:
        server.shutdown()
    assert subprocess.run([sys.executable, script], env=env).returncode == 1
