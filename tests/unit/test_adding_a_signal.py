"""A new study finding is its folder plus its registry row (docs/architecture.md, "Adding a
signal"): added so to a copy of the repository, everything the installers, Prometheus,
Alertmanager and the module read follows from the assembler, and nothing else is edited. The
toy signal `iops` counts the OSDs reporting op counters, alerts when none does, and raises a
health check; the copy's own registry is the one imported (the assembler, the derivation and the
module's checks all run with the copy first on the path)."""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from rules.rule_set import CHART_RULES_DIR, FOLDER_TESTS, SIGNALS_DIR
from tests.rules.test_assemble import repo_copy

REPO = Path(__file__).resolve().parents[2]
FOLDER = {
    "__init__.py": '"""Toy finding: how many OSDs report op counters."""\n',
    "result.py": textwrap.dedent(
        '''\
        """The toy signal's judgement."""

        from __future__ import annotations

        from dataclasses import dataclass


        @dataclass(frozen=True)
        class IopsResult:
            reporting: int
        '''
    ),
    "derive.py": textwrap.dedent(
        '''\
        """OSDs reporting op counters."""

        from __future__ import annotations

        from ...families import Family, gauge
        from ..signal_input import SignalInput
        from .result import IopsResult


        def derive(given: SignalInput, state: None) -> list[Family]:
            perf = given.snap.perf
            if perf is None:
                return []
            given.judged(IopsResult(len(perf.osd_ops)))
            return [gauge("iops_reporting_osds", "OSDs reporting op counters.").add(len(perf.osd_ops))]
        '''
    ),
    "check.py": textwrap.dedent(
        '''\
        """SCALE_IOPS_SILENT: no OSD reports op counters."""

        from __future__ import annotations

        from ...config import Thresholds
        from ..check_options import CheckOptions
        from ..judging import HealthCheck, JsonObject, health_check
        from .result import IopsResult


        def silent(judged: IopsResult | None, th: Thresholds, opts: CheckOptions) -> JsonObject | None:
            if judged is None or judged.reporting:
                return None
            return health_check("HEALTH_WARN", "no OSD reports op counters", 1, ["0 OSDs report"], 5)


        CHECKS = (HealthCheck("SCALE_IOPS_SILENT", silent),)
        '''
    ),
    "status.py": textwrap.dedent(
        '''\
        """The toy signal's section of `ceph scale status`."""

        from __future__ import annotations

        from ..judging import JsonObject, Judged, Raised, StatusSection, section
        from .result import IopsResult


        def iops(r: Judged, checks: Raised, top: int) -> JsonObject:
            judged = r.results.get(IopsResult)
            if judged is None:
                return section("NO DATA", ["no perf counters yet"], {}, [])
            status = "WARN" if "SCALE_IOPS_SILENT" in checks else "OK"
            return section(status, [f"{judged.reporting} OSDs report op counters"], {"reporting": judged.reporting}, [])


        SECTION = StatusSection("OSDs reporting", iops)
        '''
    ),
    "checks.md": "| `SCALE_IOPS_SILENT` | no OSD reports op counters | `0 OSDs report` |\n",
    "rules.yml": textwrap.dedent(
        """\
        groups:
          - name: ceph-scale-iops.alerts
            rules:
              - alert: CephScaleIopsSilent
                expr: max by (cluster) (ceph_scale_iops_reporting_osds) == 0
                for: 5m
                labels:
                  severity: warning
                  signal: iops
                annotations:
                  summary: 'No OSD of cluster {{ $labels.cluster }} reports op counters'
                  description: >-
                    {{ $value }} OSDs of cluster {{ $labels.cluster }} report op counters.
                  runbook_url: RUNBOOK#cephscaleiopssilent
        """
    ),
    "rules_test.yml": textwrap.dedent(
        """\
        rule_files:
          - ../../../../rules/recording.yml
          - ../../../../rules/alerts.yml
        evaluation_interval: 1m
        group_eval_order:
          - ceph-scale-iops.alerts
        tests:
          - interval: 1m
            input_series:
              - series: 'ceph_scale_iops_reporting_osds{cluster="quiet"}'
                values: '3x10'
              - series: 'ceph_scale_iops_reporting_osds{cluster="silent"}'
                values: '0x10'
            alert_rule_test:
              - eval_time: 10m
                alertname: CephScaleIopsSilent
                exp_alerts:
                  - exp_labels: {severity: warning, signal: iops, cluster: silent}
                    exp_annotations:
                      summary: 'No OSD of cluster silent reports op counters'
                      description: '0 OSDs of cluster silent report op counters.'
                      runbook_url: RUNBOOK#cephscaleiopssilent
        """
    ),
    "panels.py": textwrap.dedent(
        '''\
        """The toy signal's row on the load board."""

        from __future__ import annotations

        from ...panel_queries import CL, m
        from ...panel_spec import BoardRow, Query, runbook, ts

        ROWS = (
            BoardRow(
                "load",
                "OSDs reporting op counters",
                (
                    ts(
                        "OSDs reporting op counters",
                        "none",
                        [Query(m("ceph_scale_iops_reporting_osds"), CL)],
                        desc="How many OSDs report op counters.",
                        runbook=runbook("CephScaleIopsSilent"),
                    ),
                ),
            ),
        )
        '''
    ),
    "runbook.md": "## Toy\n\n### CephScaleIopsSilent\n\nNo OSD reports op counters.\n\n",
    "catalog.md": (
        "## Toy\n| name | type | labels | meaning |\n|---|---|---|---|\n"
        "| `ceph_scale_iops_reporting_osds` | gauge | | OSDs reporting op counters |\n\n"
    ),
}
ROW = """        SignalSpec(
            "iops",
            iops,
            team="rgw",
            inputs=("perf",),
            result=IopsResult,
            checks=iops_check.CHECKS,
            status=iops_status.SECTION,
        ),
"""


def assembled_copy(root: Path) -> Path:
    """What the assembler reads and writes (tests/rules/test_assemble.py), and the boards' code."""
    repo_copy(root)
    shutil.copytree(
        REPO / "dashboards", root / "dashboards", ignore=shutil.ignore_patterns("__pycache__", "json", "previews")
    )
    return root


def add_signal(root: Path) -> None:
    folder = root / SIGNALS_DIR / "iops"
    folder.mkdir()
    base = (REPO / "rules" / "alerts.yml").read_text().split("runbook_url: ", 1)[1].split("#", 1)[0]
    for name, text in FOLDER.items():
        (folder / name).write_text(text.replace("RUNBOOK", base))
    registry = root / "ceph_scale" / "core" / "registry.py"
    text = registry.read_text()
    imports = (
        "from .signals.iops import check as iops_check\n"
        "from .signals.iops import derive as iops\n"
        "from .signals.iops import status as iops_status\n"
        "from .signals.iops.result import IopsResult\n"
    )
    text = text.replace("from .snapshot import Snapshot\n", imports + "from .snapshot import Snapshot\n", 1)
    anchor = '        SignalSpec("health", health,'
    assert anchor in text
    registry.write_text(text.replace(anchor, ROW + anchor, 1))


def run_in(root: Path, *argv: str) -> subprocess.CompletedProcess:
    # The copy first; then the module's directory, and the repository for the fake manager API.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(root), str(REPO / "mgr_module"), str(REPO)))}
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120, cwd=root, env=env)


def edited(root: Path) -> list[str]:
    """The files of the copy that differ from the repository, or are new."""
    out = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        rel = path.relative_to(root)
        if not (REPO / rel).is_file() or not filecmp.cmp(path, REPO / rel, shallow=False):
            out.append(rel.as_posix())
    return out


@pytest.fixture(scope="module")
def added(tmp_path_factory) -> Path:
    root = assembled_copy(tmp_path_factory.mktemp("repo"))
    add_signal(root)
    r = run_in(root, "-m", "rules.assemble")
    assert r.returncode == 0, r.stderr
    return root


def test_the_folder_and_the_row_are_all_that_is_written_by_hand(added):
    generated = {
        "rules/alerts.yml",
        "rules/runbooks.md",
        "rules/alertmanager/alertmanager.yml",
        "docs/metrics.md",
        "docs/mgr-module.md",
        f"{CHART_RULES_DIR.as_posix()}/alerts.yml",
    }
    generated |= {
        p.relative_to(REPO).as_posix() for pattern in FOLDER_TESTS for p in REPO.glob(f"{SIGNALS_DIR}/{pattern}")
    }
    generated |= {p.relative_to(REPO).as_posix() for p in (REPO / "rules" / "tests").glob("*.yml")}
    by_hand = [p for p in edited(added) if p not in generated and not p.startswith(f"{SIGNALS_DIR}/iops/")]
    assert by_hand == ["ceph_scale/core/registry.py"]
    assert run_in(added, "-m", "rules.assemble", "--check").returncode == 0


def test_its_alert_is_shipped_routed_and_tested_by_promtool(added):
    alerts = yaml.safe_load((added / "rules" / "alerts.yml").read_text())
    assert "ceph-scale-iops.alerts" in [g["name"] for g in alerts["groups"]]
    for test in [*added.glob(f"{SIGNALS_DIR}/*/rules_test.yml"), *(added / "rules" / "tests").glob("*.yml")]:
        assert "ceph-scale-iops.alerts" in yaml.safe_load(test.read_text())["group_eval_order"], test
    promtool = shutil.which("promtool")
    assert promtool, "promtool not found: run scripts/bootstrap.sh"
    for test in ("iops", "exporter"):
        ran = subprocess.run(
            [promtool, "test", "rules", str(added / SIGNALS_DIR / test / "rules_test.yml")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert ran.returncode == 0, ran.stdout + ran.stderr
    amtool = shutil.which("amtool")
    assert amtool, "amtool not found: run scripts/bootstrap.sh"
    config = added / "rules" / "alertmanager" / "alertmanager.yml"
    routed = subprocess.run(
        [amtool, "config", "routes", "test", f"--config.file={config}", "cluster=c", "signal=iops", "severity=warning"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert routed.stdout.strip() == "ceph-scale-rgw", routed.stdout + routed.stderr
    assert "| `SCALE_IOPS_SILENT` |" in (added / "docs" / "mgr-module.md").read_text()
    assert "### CephScaleIopsSilent" in (added / "rules" / "runbooks.md").read_text()


def test_its_panels_reach_their_board(added, tmp_path):
    r = run_in(added, "-m", "dashboards.build", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    board = json.loads((tmp_path / "load.json").read_text())
    titles = [p["title"] for p in board["panels"]]
    assert titles[-2:] == ["OSDs reporting op counters", "OSDs reporting op counters"]  # its row, its panel
    assert board["panels"][-2]["type"] == "row"
    unchanged = json.loads((REPO / "dashboards" / "json" / "load.json").read_text())
    assert titles[:-2] == [p["title"] for p in unchanged["panels"]]


def test_it_is_derived_served_judged_by_the_modules_checks_and_in_its_status(added):
    program = textwrap.dedent(
        """\
        from tests.mgr import fake_mgr

        fake_mgr.install()

        from ceph_scale.core.config import Thresholds
        from ceph_scale.core.derive import DerivationState, derive
        from ceph_scale.core.snapshot import PerfPart, Snapshot
        from scale.checks import health_checks
        from scale.report import build_report, render_text

        th = Thresholds()
        state = DerivationState(th)
        families = derive(Snapshot(taken_at=10.0, perf=PerfPart(10.0)), state, th)
        served = {f.name: [value for _, _, value in f.samples] for f in families}
        print(served.get("ceph_scale_iops_reporting_osds"), sorted(health_checks(state.results, th)))
        report = build_report(families, state.results, th)
        print(report["signals"]["iops"]["status"], "OSDs reporting" in render_text(report))
        """
    )
    r = run_in(added, "-c", program)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines() == ["[0.0] ['SCALE_IOPS_SILENT']", "WARN True"], r.stdout
