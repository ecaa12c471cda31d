"""The product and the development tooling live apart, and no product file has several jobs'
worth of lines.

Product: what is installed or loaded (the exporter, the manager module, the boards, the rules,
the deploy bundles, the image's helper). Development tooling: the benchmark, the test cluster,
the demo, the previews, the scripts and the tests. A product module that imported tooling would
ship, or fail on, code that is never installed.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PRODUCT = ("exporter", "mgr_module", "dashboards", "rules", "deploy", "docker")
DEV_TOOLING = ("bench", "cluster", "demo", "previews", "scripts", "tests")
MAX_LINES = 400
# Product files still over MAX_LINES on 2026-11-26, each being split (issue 25). An entry goes
# with its split: the test fails for a listed file that is no longer over the limit.
OVER_LIMIT_UNTIL_SPLIT: tuple[str, ...] = ()


def python_files(root: Path, folders: tuple[str, ...]) -> list[Path]:
    """The .py files under root/<folder>, not following symlinks (the manager module's link to
    the core would list the core twice)."""
    files: list[Path] = []
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(root / folder):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            files.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    return files


def imported_modules(source: str, filename: str) -> list[tuple[int, str]]:
    """(line, module) of every absolute import statement, and of every importlib.import_module()
    or __import__() called with a literal name."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def tooling_imports(root: Path) -> list[str]:
    """'path:line: module' for every import of development tooling by a product module."""
    bad = []
    for path in python_files(root, PRODUCT):
        for line, module in imported_modules(path.read_text(), str(path)):
            if module.split(".")[0] in DEV_TOOLING:
                bad.append(f"{path.relative_to(root)}:{line}: {module}")
    return bad


def line_counts(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): len(p.read_text().splitlines()) for p in python_files(root, PRODUCT)}


def test_no_product_module_imports_development_tooling():
    assert not tooling_imports(REPO), "product modules importing development tooling:\n" + "\n".join(
        tooling_imports(REPO)
    )


def test_every_python_folder_is_product_or_tooling():
    """A new top-level folder of Python is placed on one side, so that the import rule covers it."""
    top = [d for d in REPO.iterdir() if d.is_dir() and not d.name.startswith(".") and d.name not in ("build", "run")]
    folders = {d.name for d in top if python_files(REPO, (d.name,))}
    assert folders - set(PRODUCT) - set(DEV_TOOLING) == set()
    assert set(PRODUCT) <= folders
    assert not set(PRODUCT) & set(DEV_TOOLING)


def test_no_product_file_passes_the_line_limit():
    counts = line_counts(REPO)
    over = {path: n for path, n in counts.items() if n > MAX_LINES and path not in OVER_LIMIT_UNTIL_SPLIT}
    assert not over, f"product files over {MAX_LINES} lines (one job per file): {over}"
    split = sorted(path for path in OVER_LIMIT_UNTIL_SPLIT if counts.get(path, 0) <= MAX_LINES)
    assert not split, f"no longer over {MAX_LINES} lines, remove from OVER_LIMIT_UNTIL_SPLIT: {split}"


@pytest.mark.parametrize(
    "statement, module",
    [
        ("import cluster.testcluster", "cluster.testcluster"),
        ("from demo.monitoring import Prometheus", "demo.monitoring"),
        ("from previews import render", "previews"),
        ("import importlib\nimportlib.import_module('bench.synth')", "bench.synth"),
        ("def f():\n    from tests import conftest", "tests"),
    ],
)
def test_the_scan_finds_each_form_of_import(tmp_path, statement, module):
    (tmp_path / "dashboards").mkdir()
    (tmp_path / "dashboards" / "x.py").write_text(statement + "\n")
    assert [b.rsplit(": ", 1)[1] for b in tooling_imports(tmp_path)] == [module]


def test_the_scan_leaves_relative_and_product_imports_alone(tmp_path):
    (tmp_path / "exporter").mkdir()
    (tmp_path / "exporter" / "x.py").write_text("from . import tests\nfrom .cluster import a\nimport exporter.core\n")
    assert tooling_imports(tmp_path) == []
