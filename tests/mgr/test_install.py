"""mgr_module/install.sh: a self-contained copy of the module (the core copied, not linked)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_install_needs_a_destination():
    out = subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh")], capture_output=True, text=True)
    assert out.returncode == 2 and "usage" in out.stderr
