"""What users and deployments get from this repository, as text to keep golden: the rules
Prometheus loads and what cephadm, Helm and the mixin assemble from them, the boards, the CLI
(the sidecar's --help, the module's `ceph scale status` and `plan`, its commands and options),
and the installed artefacts (the module's install, the wheel, the cephadm bundle, the Helm
chart, the image's files). tests/unit/test_artifact_goldens.py compares them with
tests/golden/artifacts/.

Each producer returns {golden file name: text}. Rule files and CLI texts are kept whole, so a
change shows as a diff; boards and installed trees are kept as manifests (sha256, size, path
per file; Python source by its path alone), so a change names the file. What varies between
runs is normalised here: temporary directories (<DEST>), the terminal width (COLUMNS=80), the
manager's clock (history long enough for forecasts), zip timestamps (only member contents are
hashed). Nothing here depends on git: the version is pyproject.toml's and the chart's.

`python -m tests.unit.artifact_outputs mgr` (and `checks`) prints the module's outputs (its health
checks) as JSON: the module runs
in a process of its own, as tests/mgr runs it, so that its fake `mgr_module` and its path stay
out of the process that asks.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import inspect
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import yaml

from tests.deploy.test_helm import CUSTOM, NO_STORE, STORE

REPO = Path(__file__).resolve().parents[2]

# The cephadm bundle as docs/deploy.md's example makes it.
CEPHADM_ARGS = ["--host", "ceph-admin-1", "--mgr-host", "ceph-mgr-1", "--mgr-host", "ceph-mgr-2",
                "--rgw-endpoint", "http://rgw.example:8080"]  # fmt: skip
# The chart rendered as a first install (the pushed image and the CephObjectStore), without an
# object store, and with every value an operator commonly sets.
# The value sets the chart's own tests render (tests/deploy/test_helm.py).
HELM_RENDERS: dict[str, list[str]] = {"store": STORE["--set"], "no-store": NO_STORE["--set"], "custom": CUSTOM["--set"]}
# The mixin's _config as a site that runs several exporters under one Prometheus sets it.
MIXIN_OVERRIDES = {
    "clusterLabel": "ceph_cluster",
    "exporterSelector": {"job": "ceph-scale|ceph-mgr"},
    "runbookBaseUrl": "https://git.example.internal/storage/ceph-scale-signals/-/blob/main/",
}


def manifest(files: dict[str, bytes]) -> str:
    """One line per file, by path: sha256, size, path; Python source by its path alone."""
    return "".join(f"{fingerprint(name, data)}  {name}\n" for name, data in sorted(files.items()))


def fingerprint(name: str, data: bytes) -> str:
    """sha256 and size of a file, but for Python source (and the wheel's RECORD of its hashes):
    code changes with every refactoring, and what it does is kept by the expositions' and the
    CLI's goldens; that it is installed, and where, is kept here."""
    if name.endswith(".py") or name.endswith(".dist-info/RECORD"):
        return f"{'python source':<64}  {'':>8}"
    return f"{hashlib.sha256(data).hexdigest()}  {len(data):>8}"


def tree(root: Path) -> dict[str, bytes]:
    """{path under root: content} of every file (symlinks followed, as a copy would)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def run(argv: list[str], **kwargs: Any) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, **kwargs)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr[-3000:]}")
    return proc.stdout


# --- the rules Prometheus loads, and what the deployments assemble from them ---------------


def rules() -> dict[str, str]:
    from deploy import cephadm
    from deploy.sources import DEFAULT_RUNBOOK_BASE, rule_files

    out = {f"rules/{p.name}": p.read_text() for p in rule_files()}
    for p in sorted((REPO / "rules" / "alertmanager").glob("*.yml")):
        out[f"rules/alertmanager/{p.name}"] = p.read_text()
    out["rules/cephadm/ceph-scale-signals.yml"] = cephadm.rules_file(DEFAULT_RUNBOOK_BASE)
    for name in ("store", "custom"):
        (rule,) = [doc for doc in helm_documents(name) if yaml.safe_load(doc)["kind"] == "PrometheusRule"]
        out[f"rules/helm/prometheusrule-{name}.yaml"] = rule
    out["rules/mixin/rules-and-alerts.json"] = mixin_rules({})
    out["rules/mixin/rules-and-alerts-overridden.json"] = mixin_rules(MIXIN_OVERRIDES)
    return out


def mixin_rules(config: dict[str, Any]) -> str:
    """The mixin's prometheusRules and prometheusAlerts with `config` over its _config, as
    jsonnet prints them. Its boards are left out: with the defaults they are dashboards/json
    (tests/deploy/test_mixin.py), and with overrides they cost about 8 s more to build."""
    import _jsonnet

    snippet = f'local m = (import "mixin.libsonnet") + {{ _config+:: {json.dumps(config)} }};\n'
    snippet += "{rules: m.prometheusRules, alerts: m.prometheusAlerts}"
    return _jsonnet.evaluate_snippet("golden", snippet, jpathdir=[str(REPO)])


def helm() -> str:
    return run([str(REPO / "tests" / "deploy" / "tools.sh"), "helm"]).strip()


@functools.cache
def helm_documents(render: str) -> tuple[str, ...]:
    """The documents `helm template` prints for one of HELM_RENDERS, each as printed."""
    chart = REPO / "deploy" / "helm" / "ceph-scale-signals"
    sets = [a for v in HELM_RENDERS[render] for a in ("--set", v)]
    text = run([helm(), "template", "ceph-scale", str(chart), *sets])
    return tuple(d + "\n" for d in ("\n" + text).split("\n---\n") if d.strip())


# --- the boards --------------------------------------------------------------------------


def boards() -> dict[str, str]:
    from dashboards import build

    return {"boards/manifest.txt": manifest({n: t.encode() for n, t in build.render_all().items()})}


# --- the CLI -----------------------------------------------------------------------------


def cli() -> dict[str, str]:
    env = {**os.environ, "COLUMNS": "80"}
    out = {"cli/sidecar-help.txt": run([sys.executable, "-m", "exporter", "--help"], cwd=REPO, env=env)}
    mgr = json.loads(run([sys.executable, "-m", "tests.unit.artifact_outputs", "mgr"], cwd=REPO, env=env))
    out.update({f"cli/{name}": text for name, text in mgr.items()})
    checks = json.loads(run([sys.executable, "-m", "tests.unit.artifact_outputs", "checks"], cwd=REPO, env=env))
    out.update({f"cli/{name}": text for name, text in checks.items()})
    return out


def mgr_outputs() -> dict[str, str]:
    """The module's command table and options, and `ceph scale status` and `plan` (text and
    JSON) as the module renders them after deriving the study-scale snapshots: the sequence of
    tests/unit/study_snapshot.rich_families, fed through the module's own collector."""
    sys.path.insert(0, str(REPO / "mgr_module"))
    from tests.mgr import fake_mgr

    fake_mgr.install()
    from scale.module import Module

    from ceph_scale.core.snapshot import PerfPart, Snapshot
    from tests.unit.study_snapshot import rgw_ops, study_snapshot

    out = {"mgr-commands.json": commands(fake_mgr.COMMANDS), "mgr-options.json": options(Module.MODULE_OPTIONS)}
    mod = Module("scale", None, None)
    mod.options.update({
        "cluster_label": "study", "rgw_source": "off",
        "forecast_min_span_seconds": 120, "plunge_window_seconds": 30, "plunge_baseline_seconds": 240,
    })  # fmt: skip
    mod.config_notify()
    assert not mod.config_errors, mod.config_errors
    mod._history_since = float("-inf")  # forecasts trusted, whatever the clock says
    snaps = [Snapshot(taken_at=t, perf=PerfPart(t, rgw_ops=rgw_ops(t))) for t in range(760, 1000, 30)]
    snaps += [study_snapshot(1000.0 + 60 * step, grow=step, slow_from=1030.0) for step in range(3)]
    collector = mod.make_collector()
    mod.collector = collector
    for snap in snaps:
        collector.take_snapshot = lambda snap=snap: snap  # type: ignore[method-assign]
        collector.derive_now()
    for name, handler in (("scale-status", mod.scale_status), ("scale-plan", mod.scale_plan)):
        for fmt, ext in ((None, "txt"), ("json-pretty", "json")):
            rc, text, err = handler(format=fmt)
            assert rc == 0 and not err, (name, rc, err)
            out[f"{name}.{ext}"] = text if text.endswith("\n") else text + "\n"
    return out


# Check options that raise every check the study-scale snapshot can raise, so that each
# check's every line is kept, not only those the defaults raise.
EAGER_CHECKS = {
    "fill_headroom_warn_margin": 0.5, "fill_forecast_warn_days": 1e6, "load_warn_ratio": 0.1,
    "scrub_backlog_warn_days": 0.0, "bluefs_spill_warn_days": 1e6, "reshard_forecast_warn_days": 1e6,
}  # fmt: skip


def health_check_outputs() -> dict[str, str]:
    """The module's SCALE_* health checks as set_health_checks gets them: on the study-scale
    snapshots (tests/unit/study_snapshot.rich_families) with the default options and with
    EAGER_CHECKS, and on each release's captures as test_golden.py derives them (three polls)."""
    sys.path.insert(0, str(REPO / "mgr_module"))
    from tests.mgr import fake_mgr

    fake_mgr.install()
    from scale.checks import CheckOptions, health_checks

    from ceph_scale.core.config import Thresholds
    from ceph_scale.core.derive import DerivationState, derive
    from tests.unit.study_snapshot import rich_derivation
    from tests.unit.test_golden import POLLS, RELEASES
    from tests.unit.test_release_fixtures import snapshot

    _, study = rich_derivation()
    out: dict[str, Any] = {
        "study": health_checks(study.results, study.thresholds, CheckOptions()),
        "study-eager": health_checks(study.results, study.thresholds, CheckOptions(**EAGER_CHECKS)),
    }
    for release in RELEASES:
        th = Thresholds()
        state = DerivationState(th)
        first = snapshot(release).taken_at
        for i, (name, suffix) in enumerate(POLLS):
            derive(snapshot(release, suffix, t=first + 60 * i), state, th, cluster="golden")
            out[f"{release}-{name}"] = health_checks(state.results, th, CheckOptions())
    return {"health-checks.json": json.dumps(out, indent=2, sort_keys=True) + "\n"}


def commands(table: dict[str, Any]) -> str:
    """Each `ceph scale` command as the manager's CLICommand reads it: prefix, arguments (name,
    annotation, default) and description."""
    described = []
    for prefix, func in sorted(table.items()):
        params = list(inspect.signature(func).parameters.values())[1:]  # after self
        args = [{"name": p.name, "type": str(p.annotation), "default": repr(p.default)} for p in params]
        # The table holds what CLIReadCommand registered: read commands, whose perm is "r".
        described.append({"prefix": prefix, "perm": "r", "args": args, "desc": func.__doc__})
    return json.dumps(described, indent=2) + "\n"


def options(declared: list[dict[str, Any]]) -> str:
    return json.dumps([dict(o) for o in declared], indent=2, sort_keys=True) + "\n"


# --- the installed artefacts ------------------------------------------------------------


def installed() -> dict[str, str]:
    return {
        "installed/mgr-module.txt": mgr_install(),
        "installed/wheel.txt": wheel(),
        "installed/cephadm-bundle.txt": cephadm_bundle(),
        "installed/image-files.txt": image_files(),
        **{f"installed/helm-{name}.txt": helm_manifest(name) for name in HELM_RENDERS},
    }


def mgr_install() -> str:
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "build" / "scale"
        said = run(["sh", str(REPO / "mgr_module" / "install.sh"), str(dest)]).replace(str(dest), "<DEST>")
        return said + manifest(tree(dest))


def wheel() -> str:
    """The wheel's members (built as tests/deploy/test_wheel.py builds it, from a copy of the checkout)."""
    from tests.deploy.source_tree import copy_tree

    with tempfile.TemporaryDirectory() as tmp:
        src = copy_tree(Path(tmp))
        pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        run([*pip, "-w", str(Path(tmp) / "dist"), "."], cwd=src)
        (found,) = (Path(tmp) / "dist").glob("*.whl")
        with zipfile.ZipFile(found) as z:
            members = {n: z.read(n) for n in z.namelist() if not n.endswith("/")}
        return f"{found.name}\n" + manifest(members)


def cephadm_bundle() -> str:
    from deploy import cephadm

    return manifest({n: t.encode() for n, t in cephadm.bundle_files(cephadm.parser().parse_args(CEPHADM_ARGS)).items()})


def helm_manifest(render: str) -> str:
    """One line per rendered object: its template, kind and name, with its text's hash."""
    files = {}
    for doc in helm_documents(render):
        source = next((ln.split(": ", 1)[1] for ln in doc.splitlines() if ln.startswith("# Source: ")), "?")
        obj = yaml.safe_load(doc) or {}
        files[f"{source} {obj.get('kind')}/{obj.get('metadata', {}).get('name')}"] = doc.encode()
    return manifest(files)


def image_files() -> str:
    """The files the image's build step installs (docker/install.sh --only files, into a
    temporary root: no image is built), the file the Dockerfile copies in, its instructions
    and the Debian packages it installs."""
    with tempfile.TemporaryDirectory() as tmp:
        run(["bash", str(REPO / "docker" / "install.sh"), "--root", tmp, "--only", "files"])
        files = tree(Path(tmp))
    instructions = [ln for ln in (REPO / "Dockerfile").read_text().splitlines() if ln.strip() and ln[0] != "#"]
    for line in instructions:
        words = line.split()
        if words[0] == "COPY" and len(words) == 3 and words[2].startswith("/usr/"):
            files[words[2].lstrip("/")] = (REPO / words[1]).read_bytes()
    packages = [ln for ln in (REPO / "docker" / "packages.txt").read_text().splitlines() if ln and ln[0] != "#"]
    if_available = (REPO / "docker" / "packages-if-available.txt").read_text().splitlines()
    optional = [ln for ln in if_available if ln and ln[0] != "#"]
    listed = "packages: " + " ".join(packages) + "\nwhere the suite has them: " + " ".join(optional)
    return "\n".join(instructions) + "\n\n" + listed + "\n\n" + manifest(files)


PRODUCERS = {"rules": rules, "boards": boards, "cli": cli, "installed": installed}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.unit.artifact_outputs")
    p.add_argument("what", choices=["mgr", "checks"])
    what = p.parse_args(argv).what
    print(json.dumps(mgr_outputs() if what == "mgr" else health_check_outputs()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
