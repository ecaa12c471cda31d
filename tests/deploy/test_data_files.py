"""The copy of the module's code the wheel ships (pyproject.toml's data-files, from which
`mgr_module/install.sh` installs the module after a pip install) holds every Python file of
`ceph_scale` and of the module: setuptools copies a directory's files only where a row names
that directory, so a new package folder without its row would install a module that cannot
import it."""

from __future__ import annotations

import glob
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[2]
SHARE = "share/ceph-scale-signals/"


def shipped() -> set[str]:
    data_files = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    out = set()
    for target, patterns in data_files.items():
        for pattern in patterns:
            for path in glob.glob(pattern, root_dir=REPO):
                out.add(f"{target}/{Path(path).name}".removeprefix(SHARE))
    return out


def test_every_python_file_the_module_imports_is_shipped_where_its_installer_reads_it():
    wanted = {
        p.relative_to(REPO).as_posix()
        for root in ("ceph_scale", "mgr_module/scale")
        for p in (REPO / root).rglob("*.py")
    }
    missing = sorted(wanted - shipped())
    assert not missing, f"not in pyproject.toml's data-files: {missing}"
