"""`python -m dashboards.build` writes the boards and the Helm chart's copy of them; --check names
each committed file that differs from what the signals' panels assemble, and the command."""

from __future__ import annotations

import pytest

from ceph_scale.core.panel_spec import BoardRow, Override, Panel, Query, coloured, dashed, st, tbl, ts
from dashboards import build
from dashboards.panel_kinds import build as build_panel


def test_the_charts_copy_is_what_the_build_writes():
    assert not build.CHART_COPY.is_symlink(), f"{build.CHART_COPY}: a link; run {build.COMMAND}"
    assert build.differences(build.render_all(), build.CHART_COPY) == []


def test_the_default_outputs_are_the_boards_and_the_charts_copy():
    assert build.main(["--check"]) == 0


def test_check_names_a_stale_chart_copy_and_the_command(tmp_path, capsys):
    boards, chart = tmp_path / "json", tmp_path / "chart"
    assert build.main(["--out", str(boards), "--out", str(chart)]) == 0
    (chart / "overview.json").write_text("{}\n")
    (chart / "gone.json").write_text("{}\n")
    capsys.readouterr()
    assert build.main(["--out", str(boards), "--out", str(chart), "--check"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{chart / 'overview.json'}: differs from the boards; run python -m dashboards.build",
        f"{chart / 'gone.json'}: no board generates it; run python -m dashboards.build",
    ]


def test_check_fails_on_a_missing_file(tmp_path, capsys):
    assert build.main(["--out", str(tmp_path)]) == 0
    (tmp_path / "runway.json").unlink()
    capsys.readouterr()
    assert build.main(["--out", str(tmp_path), "--check"]) == 1
    assert "runway.json: differs from the boards" in capsys.readouterr().err


def test_a_link_is_no_copy(tmp_path, capsys):
    """A link into dashboards/json would always agree with it: check fails on it, and the build
    replaces it by the copies, leaving what it pointed at alone."""
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "dashboards"
    link.symlink_to(target)
    assert build.main(["--out", str(link), "--check"]) == 1
    assert capsys.readouterr().err == f"{link}: a link, not the assembled copy; run python -m dashboards.build\n"
    assert build.main(["--out", str(link)]) == 0
    assert not link.is_symlink() and list(target.iterdir()) == []
    assert build.main(["--out", str(link), "--check"]) == 0


def test_a_build_leaves_no_board_it_no_longer_generates(tmp_path):
    (tmp_path / "retired.json").write_text("{}\n")
    assert build.main(["--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(build.render_all())


def test_a_panel_of_an_unknown_kind_is_named():
    panel = Panel("heatmap", "Shard fill", "none", (Query("up"),), "d", "r")
    with pytest.raises(ValueError, match=r"^Shard fill: no panel kind 'heatmap' \(one of timeseries, stat"):
        build_panel(panel)


def test_an_override_a_kind_cannot_draw_is_named():
    with pytest.raises(ValueError, match="^S3 ops: not an override of a time series"):
        build_panel(ts("S3 ops", "ops", [Query("up")], desc="d", runbook="r", overrides=[Override("blink", "x", ())]))
    stat = Panel("stat", "Buckets", "none", (Query("up"),), "d", "r", overrides=(dashed("x"),))
    with pytest.raises(ValueError, match="^Buckets: a stat takes colour overrides only, not dashed"):
        build_panel(stat)


def test_a_setting_the_kind_does_not_take_is_named():
    with pytest.raises(ValueError, match=r"^Hot OSDs: st\(\) got an unexpected keyword argument 'log'$"):
        build_panel(st("Hot OSDs", "none", [Query("up")], desc="d", runbook="r", log=10))


def test_a_time_series_draws_a_series_in_a_fixed_colour():
    built = build_panel(
        ts("S3 ops", "ops", [Query("up")], desc="d", runbook="r", overrides=[coloured(".* x$", "purple")])
    )
    (override,) = built.build().field_config.overrides
    assert override.matcher.options == ".* x$"
    assert [(p.id_val, p.value) for p in override.properties] == [("color", {"mode": "fixed", "fixedColor": "purple"})]


def test_a_row_link_on_a_column_the_table_does_not_show_is_named():
    table = tbl("Tenants", "none", [Query("up", instant=True, fmt="table")], desc="d", runbook="r",
                columns={"A": ("bytes", "bytes")}, keep=["cluster", "user"], sort_by="bytes",
                row_links={"bucket": ("Its buckets", "/d/x")})  # fmt: skip
    with pytest.raises(ValueError, match=r"^Tenants: a link on 'bucket', not a column shown \(cluster, user\)$"):
        build_panel(table)


def test_a_mark_the_boards_do_not_know_or_on_a_missing_panel_is_named():
    from dashboards.board_frame import new_board

    ops = ts("S3 ops", "ops", [Query("up")], desc="d", runbook="r")
    with pytest.raises(
        ValueError, match=r"^x: no annotation 'blinks' \(one of reshards, osds_down, plunges, client_drops\)$"
    ):
        new_board("x", "X", "d", [ops], marks={"blinks": ["S3 ops"]})
    with pytest.raises(ValueError, match=r"^x: plunges annotations for panels the board does not have: \['Latency'\]$"):
        new_board("x", "X", "d", [ops], marks={"plunges": ["S3 ops", "Latency"]})


def test_a_row_a_signal_adds_to_no_board_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(build, "all_folder_rows", lambda: [BoardRow("lod", "A row", ())])
    assert build.main(["--check"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: a signal's panels.py adds rows to no board: lod (boards: overview,")
    assert err.count("\n") == 1
