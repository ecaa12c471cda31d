"""mgr_module/install.sh: a self-contained copy of the module, with ceph_scale (the core and its
I/O) copied into it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_installed_copy_is_self_contained_and_imports(tmp_path):
    dest = tmp_path / "mgr" / "scale"
    out = subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh"), str(dest)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert not any(p.is_symlink() for p in dest.rglob("*"))
    assert (dest / "ceph_scale" / "core" / "signals" / "reshard" / "derive.py").is_file()
    assert (dest / "ceph_scale" / "core" / "derive.py").read_text() == (REPO / "ceph_scale/core/derive.py").read_text()
    assert (dest / "ceph_scale" / "io" / "runner.py").read_text() == (REPO / "ceph_scale/io/runner.py").read_text()
    checkout = {p.relative_to(REPO).as_posix() for p in (REPO / "ceph_scale").rglob("*.py")}
    assert {p.relative_to(dest).as_posix() for p in (dest / "ceph_scale").rglob("*.py")} == checkout
    assert not list(dest.rglob("__pycache__"))
    # The checkout's ceph_scale on the path too: the module still imports the copy beside it.
    code = (
        f"import sys; sys.path[:0] = [{str(REPO)!r}, {str(dest.parent)!r}]\n"
        "from tests.mgr import fake_mgr; fake_mgr.install()\n"
        "import scale\n"
        f"assert scale.__file__.startswith({str(dest)!r}), scale.__file__\n"
        "import ceph_scale.core.derive, ceph_scale.io.runner\n"
        "for m in (ceph_scale.core.derive, ceph_scale.io.runner):\n"
        f"    assert m.__file__.startswith({str(dest)!r}), m.__file__\n"
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
        "from ceph_scale.core import derive, exposition\n"
        f"assert derive.__file__.startswith({str(dest)!r}), derive.__file__\n"
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
    assert not (path / "scale").is_symlink() and (path / "scale" / "ceph_scale" / "core" / "derive.py").is_file()
    # Again: idempotent, the links kept, the module replaced.
    again = subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh"), "--module-path", str(path)])
    assert again.returncode == 0 and (path / "prometheus").is_symlink()


# Whether a release's manager needs the bcrypt stand-in to load any module: Reef's Python 3.13 has
# Debian 13's PyO3 bcrypt and runs modules in sub-interpreters; Pacific's bcrypt is cffi 3.x;
# Tentacle runs modules in the main interpreter.
NEEDS_STAND_IN = {"pacific": False, "reef": True, "tentacle": False}


def install_in_release(release_name: str, checkout: Path, *args: str) -> tuple[subprocess.CompletedProcess, Path]:
    """`<checkout>/mgr_module/install.sh --module-path DIR ARGS` as an operator runs it on a
    manager host of the release: inside its root (the host for Pacific), with its python3, from
    the checkout's own layout. Returns the run and DIR as seen from here."""
    from cluster.mgr_modules import show_checkout_in_root
    from cluster.releases import release

    r = release(release_name)
    show_checkout_in_root(r, checkout)
    inside = Path(f"/tmp/ceph-scale-install-{uuid.uuid4().hex[:8]}") / "mgr-modules"
    argv = [str(checkout / "mgr_module" / "install.sh"), "--module-path", str(inside), *args]
    return subprocess.run(r.command(argv), capture_output=True, text=True, timeout=120), r.host_path(inside)


@pytest.mark.parametrize("release_name", sorted(NEEDS_STAND_IN))
def test_module_path_install_puts_the_stand_in_where_the_releases_manager_needs_it(release_name):
    """Run from the repository as it is (the probe beside the rest of mgr_module/), the installer
    asks the release's own Python about its own bcrypt, and on Reef installs the stand-in."""
    run, path = install_in_release(release_name, REPO)
    try:
        assert run.returncode == 0, run.stderr
        needed = NEEDS_STAND_IN[release_name]
        assert ("installed a stand-in in" in run.stdout) == needed, run.stdout
        assert (path / "bcrypt").is_dir() == needed
        if needed:
            stand_in = REPO / "mgr_module" / "compat" / "stand_in" / "bcrypt" / "__init__.py"
            assert (path / "bcrypt" / "__init__.py").read_text() == stand_in.read_text()
        assert (path / "scale" / "ceph_scale" / "core" / "derive.py").is_file() and (
            path / "mgr_module.py"
        ).is_symlink()
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)


# A `bcrypt` that loads in the main interpreter only, as a PyO3 build does: if the probe took it
# for the system's, it would say that a stand-in is needed on Debian 12 too.
SUBINTERPRETER_REFUSING_BCRYPT = """
import _xxsubinterpreters as interpreters
if interpreters.get_current() != interpreters.get_main():
    raise ImportError("this bcrypt does not load in a sub-interpreter")
"""


def test_the_probe_answers_for_the_system_bcrypt_wherever_it_runs(tmp_path):
    """Beside another `bcrypt`, or with one on PYTHONPATH, the probe (run with -I, as the
    installer runs it) still asks about the system's; the stand-in forced onto its path all the
    same is refused, never taken for the system's bcrypt."""
    probe = REPO / "mgr_module" / "compat" / "needs_bcrypt_stand_in.py"
    beside = tmp_path / "beside"
    (beside / "bcrypt").mkdir(parents=True)
    (beside / "bcrypt" / "__init__.py").write_text(SUBINTERPRETER_REFUSING_BCRYPT)
    shutil.copy(probe, beside / probe.name)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(beside)}
    unisolated = subprocess.run([SYSTEM_PYTHON, str(beside / probe.name)], env=env, capture_output=True)
    assert unisolated.returncode == 0  # the decoy is what a probe without -I asks about
    answers = {
        subprocess.run([SYSTEM_PYTHON, "-I", str(p)], env=env, capture_output=True).returncode
        for p in (probe, beside / probe.name)
    }
    assert answers == {1}  # Debian 12's cffi bcrypt loads in a sub-interpreter
    stand_in = REPO / "mgr_module" / "compat" / "stand_in"
    forced = (
        f"import sys, runpy; sys.path.insert(0, {str(stand_in)!r}); runpy.run_path({str(probe)!r}, run_name='__main__')"
    )
    # -B: no bytecode cache written into the checkout's stand-in
    run = subprocess.run([SYSTEM_PYTHON, "-I", "-B", "-c", forced], capture_output=True, text=True)
    assert run.returncode == 2 and "is the stand-in" in run.stderr, (run.returncode, run.stderr)


def test_install_refuses_when_the_probe_cannot_answer(tmp_path):
    stock = Path("/usr/share/ceph/mgr")
    run = subprocess.run(
        ["sh", str(REPO / "mgr_module" / "install.sh"), "--module-path", str(tmp_path / "m"), "--stock", str(stock)],
        env={"PATH": "/usr/bin:/bin", "CEPH_MGR_PYTHON": str(tmp_path / "no-python")},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1 and "cannot tell whether this manager needs the bcrypt stand-in" in run.stderr
    assert not (tmp_path / "m" / "scale").exists()


def test_install_into_a_stock_module_directory_asks_too(tmp_path):
    """`install.sh /usr/share/ceph/mgr/scale` (the README's packaged-host step) installs into a
    manager's module directory as well: the probe runs, and a stale stand-in of ours is removed
    where the manager loads its own bcrypt (here: Pacific's cffi bcrypt)."""
    stock = tmp_path / "mgr"
    stock.mkdir()
    (stock / "mgr_module.py").write_text("")
    shutil.copytree(REPO / "mgr_module" / "compat" / "stand_in" / "bcrypt", stock / "bcrypt")
    run = subprocess.run(
        ["sh", str(REPO / "mgr_module" / "install.sh"), str(stock / "scale")], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert "removed the stand-in" in run.stdout and not (stock / "bcrypt").exists()
    build = tmp_path / "build"
    shutil.copytree(REPO / "mgr_module" / "compat" / "stand_in" / "bcrypt", build / "bcrypt")
    run = subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh"), str(build / "scale")], capture_output=True)
    assert run.returncode == 0 and (build / "bcrypt").is_dir()  # not a manager's directory: left alone


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
    assert (build / "module.py").is_file() and (build / "ceph_scale" / "core" / "derive.py").is_file()


def test_install_refuses_a_module_without_its_packages(tmp_path):
    """A copy of mgr_module/ without ceph_scale/ beside it: one line naming what is missing."""
    shutil.copytree(REPO / "mgr_module", tmp_path / "mgr_module", ignore=shutil.ignore_patterns("__pycache__"))
    dest = tmp_path / "build" / "scale"
    out = subprocess.run(["sh", str(tmp_path / "mgr_module" / "install.sh"), str(dest)], capture_output=True, text=True)
    assert out.returncode == 1 and not dest.exists()
    missing = tmp_path / "ceph_scale"
    assert (
        out.stderr
        == f"error: {missing} does not hold the derivation core and its I/O (ceph_scale/core, ceph_scale/io)\n"
    )


def test_install_needs_a_destination():
    out = subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh")], capture_output=True, text=True)
    assert out.returncode == 2 and "usage" in out.stderr
    for bad in (["--module-path"], ["--module-path", "x", "--stock"], ["-x"], ["a", "b"]):
        out = subprocess.run(["sh", str(REPO / "mgr_module" / "install.sh"), *bad], capture_output=True, text=True)
        assert out.returncode == 2 and "usage" in out.stderr, bad
