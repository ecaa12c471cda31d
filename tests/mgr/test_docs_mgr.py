"""docs/mgr-module.md says what the module does: every option with its default, every health check."""

from __future__ import annotations

import re
from pathlib import Path

from scale import options

from ceph_scale.core import registry

DOC = (Path(__file__).resolve().parents[2] / "docs" / "mgr-module.md").read_text()
ROW = re.compile(r"^\| `([a-z_]+)` \|([^|]*)\|", re.M)
CHECK_ROW = re.compile(r"^\| `(SCALE_[A-Z_]+)` \|", re.M)


def test_every_module_option_is_documented_with_its_default():
    rows = dict(ROW.findall(DOC))
    for spec in options.MODULE_SPECS:
        assert spec.name in rows, spec.name
        if spec.type in ("int", "float"):
            assert rows[spec.name].strip() == f"{spec.default:g}", spec.name
        elif spec.type == "bool":
            assert rows[spec.name].strip() == str(spec.default).lower(), spec.name


def test_every_health_check_is_documented_once_from_its_signals_folder():
    """Each signal's checks.md holds the rows of the checks its registry row lists, and the
    assembled table holds each code once (rules/checks_table.py)."""
    signals_dir = Path(registry.__file__).parent / "signals"
    for signal in registry.SIGNALS:
        piece = signals_dir / signal.name / "checks.md"
        rows = CHECK_ROW.findall(piece.read_text()) if piece.is_file() else []
        assert rows == [check.code for check in signal.checks], signal.name
    codes = [check.code for signal in registry.SIGNALS for check in signal.checks]
    codes += ["SCALE_BAD_CONFIG", "SCALE_SIGNAL_FAILED", "SCALE_METRICS_SERVER_DOWN"]
    assert sorted(CHECK_ROW.findall(DOC)) == sorted(codes)


def test_thresholds_point_to_the_configuration_doc():
    assert "[configuration.md](configuration.md)" in DOC


def test_every_registered_source_is_in_the_data_table_in_the_registrys_order():
    table = DOC.split("## Where the data comes from")[1].split("\n\n")[1]
    rows = [line.split("|")[1].strip().strip("`") for line in table.splitlines()[2:]]
    assert tuple(rows) == registry.SOURCE_NAMES
