"""mgr_module/install.sh: a self-contained copy of the module (the core copied, not linked)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_installed_copy_is_self_contained_and_imports(tmp_path):
    dest = tmp_path / "mgr" / "scale"
    out = subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh"), str(dest)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert not any(p.is_symlink() for p in dest.rglob("*"))
    assert (dest / "ceph_scale_core" / "signals" / "reshard.py").is_file()
    assert (dest / "ceph_scale_core" / "derive.py").read_text() == (REPO / "exporter/core/derive.py").read_text()
    assert not list(dest.rglob("__pycache__"))
    code = (
        f"import sys; sys.path[:0] = [{str(REPO)!r}, {str(dest.parent)!r}]\n"
        "from tests.mgr import fake_mgr; fake_mgr.install()\n"
        "import scale\n"
        "assert scale.__file__.startswith(sys.path[1]), scale.__file__\n"
        "print(scale.Module.can_run(), scale.StandbyModule.__name__)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "(True, '')" in run.stdout


SYSTEM_PYTHON = "/usr/bin/python3"  # what ceph-mgr embeds: Debian's packages only, no venv


def test_installed_copy_imports_with_the_managers_own_python(tmp_path):
    """The manager runs the module with the system Python: nothing of the venv (orjson,
    hypothesis, ...) may be needed. -I keeps the venv, the user site and PYTHONPATH out."""
    dest = tmp_path / "mgr" / "scale"
    subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh"), str(dest)], check=True, capture_output=True)
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "mgr_module.py").write_text((REPO / "tests" / "mgr" / "fake_mgr.py").read_text())
    (fake / "bench").mkdir()  # the fake's perf counter calls (stdlib only)
    (fake / "bench" / "__init__.py").write_text("")
    (fake / "bench" / "canned_mgr.py").write_text((REPO / "bench" / "canned_mgr.py").read_text())
    code = (
        f"import sys; sys.path[:0] = [{str(fake)!r}, {str(dest.parent)!r}]\n"
        "import mgr_module\n"
        "mgr_module.install()\n"
        "import scale\n"
        "from scale.ceph_scale_core import derive, exposition\n"
        "print(scale.Module.can_run())\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('orjson', 'yaml', 'hypothesis', 'exporter')))\n"
    )
    run = subprocess.run([SYSTEM_PYTHON, "-I", "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["(True, '')", "[]"], run.stdout


def test_module_path_install_links_the_stock_modules(tmp_path):
    stock = Path("/usr/share/ceph/mgr")
    if not (stock / "prometheus").is_dir():
        pytest.fail("ceph-mgr is not installed: scripts/bootstrap.sh installs it")
    path = tmp_path / "mgr-modules"
    out = subprocess.run(
        ["sh", str(REPO / "mgr_module" / "install.sh"), "--module-path", str(path)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert f"ceph config set mgr mgr_module_path {path}" in out.stdout
    assert (path / "prometheus").is_symlink() and (path / "prometheus").resolve() == stock / "prometheus"
    assert {p.name for p in path.iterdir()} == {p.name for p in stock.iterdir()} | {"scale"}
    assert not (path / "scale").is_symlink() and (path / "scale" / "ceph_scale_core" / "derive.py").is_file()
    # Again: idempotent, the links kept, the module replaced.
    again = subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh"), "--module-path", str(path)])
    assert again.returncode == 0 and (path / "prometheus").is_symlink()


def test_containerfile_copies_what_install_sh_builds(tmp_path):
    lines = [
        line.split(None, 1)
        for line in (REPO / "mgr_module" / "Containerfile").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    words = [w for w, _ in lines]
    assert words[0] == "ARG" and words[1] == "FROM" and lines[1][1].strip() == "${CEPH_IMAGE}"
    assert "quay.io/ceph/ceph:" in lines[0][1]
    (copy,) = [rest.split() for w, rest in lines if w == "COPY"]
    assert copy == ["build/scale", "/usr/share/ceph/mgr/scale"]
    assert any(w == "RUN" and "python3-prometheus_client" in rest for w, rest in lines)
    # The documented build step produces exactly the directory the COPY takes.
    build = tmp_path / "build" / "scale"
    subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh"), str(build)], check=True, capture_output=True)
    assert (build / "module.py").is_file() and (build / "ceph_scale_core" / "derive.py").is_file()


def test_install_needs_a_destination():
    out = subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh")], capture_output=True, text=True)
    assert out.returncode == 2 and "usage" in out.stderr
    for bad in (["--module-path"], ["--module-path", "x", "--stock"], ["-x"], ["a", "b"]):
        out = subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh"), *bad], capture_output=True, text=True)
        assert out.returncode == 2 and "usage" in out.stderr, bad
