"""`pip install .` gives the `ceph-scale-exporter` command with the exporter only, and the
rules, dashboards and ceph-mgr module beside it; the installed command runs `--once`
against the real test cluster.

The wheel is built without build isolation (the venv's setuptools): the same backend
pip would fetch, without asking PyPI for it on every run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ceph_scale.core.registry import SOURCES
from demo.sidecar import parse_exposition
from tests.deploy.source_tree import REPO, copy_tree

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    src = copy_tree(work)
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip, "-w", str(work / "dist"), "."], cwd=src, check=True)
    (found,) = (work / "dist").glob("ceph_scale_signals-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv seeing Debian's python3-rados, prometheus-client and yaml, the wheel in it."""
    env = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(env)], check=True)
    subprocess.run([str(env / "bin/pip"), "install", "-q", "--no-index", str(wheel)], check=True)
    return env


def expected_artefacts() -> dict[str, set[str]]:
    """What the checkout holds, read from it: every rules file, every board, the module, the
    systemd unit and its files."""
    module = REPO / "mgr_module"
    return {
        "rules": {p.name for p in (REPO / "rules").glob("*.yml")},
        "alertmanager": {p.name for p in (REPO / "rules/alertmanager").glob("*.yml")},
        "dashboards": {p.name for p in (REPO / "dashboards/json").glob("*.json")},
        "mgr_module": {str(p.relative_to(module)) for p in (module / "scale").glob("*.py")},
        "systemd": {p.name for p in (REPO / "deploy/systemd").iterdir()},
    }


def test_the_wheel_holds_the_exporter_and_the_artefacts_only(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"exporter", "ceph_scale", "ceph_scale_signals-0.1.0.dist-info", "ceph_scale_signals-0.1.0.data"}
    code = {n for n in names if n.endswith(".py") and not n.startswith("ceph_scale_signals-0.1.0.data/")}
    packages = {str(p.relative_to(REPO)) for p in (REPO / "ceph_scale").rglob("*.py")}
    checkout = {str(p.relative_to(REPO)) for p in (REPO / "exporter").rglob("*.py")} | packages
    assert code == checkout
    share = "ceph_scale_signals-0.1.0.data/data/share/ceph-scale-signals/"
    shipped = {n[len(share) :] for n in names if n.startswith(share + "ceph_scale/")}
    assert shipped == packages, "the module's installer finds the whole of ceph_scale beside it"


def test_the_command_runs_the_installed_package(venv):
    where = subprocess.run(
        [str(venv / "bin/python"), "-c", "import exporter; print(exporter.__file__)"],
        capture_output=True, text=True, check=True, cwd="/",
    ).stdout  # fmt: skip
    assert Path(where.strip()).is_relative_to(venv), where


def test_the_installed_command_finds_every_artefact(venv):
    out = subprocess.run(
        [str(venv / "bin/ceph-scale-exporter"), "--artefacts"], capture_output=True, text=True, check=True
    ).stdout
    found = {
        kind: (Path(path), set(files.split())) for kind, path, files in (ln.split("\t") for ln in out.splitlines())
    }
    for kind, files in expected_artefacts().items():
        path, listed = found[kind]
        assert path.is_relative_to(venv), (kind, path)
        assert listed == files, kind
        checkout = REPO / {
            "dashboards": "dashboards/json", "alertmanager": "rules/alertmanager", "systemd": "deploy/systemd"
        }.get(kind, kind)  # fmt: skip
        for name in files:
            assert (path / name).read_bytes() == (checkout / name).read_bytes(), (kind, name)
    module = found["mgr_module"][0]
    assert (module.parent / "ceph_scale" / "core" / "derive.py").is_file()
    # The module installs from there with its own script, as from a checkout.
    dest = venv.parent / "mgr" / "scale"
    subprocess.run(["sh", str(module / "install.sh"), str(dest)], check=True, capture_output=True)
    assert (dest / "module.py").is_file() and (dest / "ceph_scale/core/signals/spillover/derive.py").is_file()
    assert (dest / "ceph_scale/io/runner.py").is_file()


def test_the_installed_command_runs_once_against_the_cluster(venv, ceph_cluster, tmp_path):
    creds = tmp_path / "rgw.json"
    creds.write_text((ceph_cluster.dir / "rgw-keys.json").read_text())
    os.chmod(creds, 0o600)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # nothing from the checkout
    proc = subprocess.run(
        [str(venv / "bin/ceph-scale-exporter"), "--once", f"--ceph-conf={ceph_cluster.conf_path}",
         f"--rgw-endpoint={ceph_cluster.rgw_endpoint}", f"--rgw-credentials-file={creds}",
         "--cluster-label=wheel"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    metrics = parse_exposition(proc.stdout)
    success = {dict(k)["source"]: v for k, v in metrics["ceph_scale_source_success"].items()}
    assert success == {s.name: 1.0 for s in SOURCES}, proc.stderr
    (build,) = metrics["ceph_scale_build_info"]
    assert dict(build)["cluster"] == "wheel"


def test_pipx_installs_the_command_with_its_artefacts(wheel, tmp_path):
    """pipx (Debian's) with the system site-packages: python3-rados and the distribution's
    prometheus-client and yaml satisfy the wheel's dependencies."""
    env = {**os.environ, "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "bin")}
    subprocess.run(["pipx", "install", "--system-site-packages", str(wheel)], env=env, check=True, capture_output=True)
    command = tmp_path / "bin" / "ceph-scale-exporter"
    assert subprocess.run([command, "--version"], capture_output=True, text=True).stdout.startswith(
        "ceph-scale-exporter"
    )
    out = subprocess.run([command, "--artefacts"], capture_output=True, text=True, check=True).stdout
    listed = {line.split("\t")[0]: set(line.split("\t")[2].split()) for line in out.splitlines()}
    assert listed == expected_artefacts()
    probe = "import rados, exporter; print(exporter.__file__)"
    python = tmp_path / "pipx" / "venvs" / "ceph-scale-signals" / "bin" / "python"
    where = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True, cwd="/").stdout
    assert Path(where.strip()).is_relative_to(tmp_path / "pipx"), where
