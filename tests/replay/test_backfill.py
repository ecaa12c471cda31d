"""The backfill, one promtool run per 2-hour block (replay/engine.py): every sample lands in a
block, each window's samples in one run, whatever the span."""

from __future__ import annotations

import subprocess

from replay import engine

HOUR = 3600


def samples(start: float, hours: float, step: float = 60) -> list[str]:
    return [f'x{{i="0"}} {n} {start + n * step:.3f}\n' for n in range(int(hours * HOUR / step) + 1)]


def test_each_2_hour_window_is_one_run_and_no_sample_is_lost(tmp_path):
    start = 1_767_225_600 + 1800  # half an hour into a 2-hour window
    lines = samples(start, 5)
    om = tmp_path / "series.om"
    om.write_text("# HELP x a counter\n" + "".join(lines) + "# EOF\n")
    windows = list(engine.block_windows(om.read_text().splitlines(keepends=True)))
    assert [len(w) for w in windows] == [90, 120, 91]  # 1.5 h, 2 h, 1.5 h and the sample at 5 h
    assert sum(windows, []) == lines
    blocks = tmp_path / "blocks"
    assert engine.backfill(om, blocks) == 3
    listed = subprocess.run(["promtool", "tsdb", "list", str(blocks)], capture_output=True, text=True, check=True)
    counts = [int(line.split()[4]) for line in listed.stdout.splitlines()[1:]]  # NUM SAMPLES
    assert sorted(counts) == [90, 91, 120]
    assert not (tmp_path / "series.part.om").exists()


def test_a_blank_line_is_skipped_a_line_without_a_timestamp_or_out_of_order_is_an_error():
    start = 1_767_225_600
    lines = samples(start, 3)
    assert sum(engine.block_windows(lines[:5] + ["\n"] + lines[5:]), []) == lines
    for bad, says in (
        (lines[:3] + ["garbage\n"] + lines[3:], "line 4: no timestamp last"),
        (lines[:3] + ["x 1 not-a-time\n"], "line 4: no timestamp last"),
        (lines + [f"x 1 {start:.3f}\n"], "out of time order"),
    ):
        try:
            list(engine.block_windows(bad))
        except engine.EngineError as e:
            assert says in str(e)
        else:
            raise AssertionError(f"accepted: {bad[-1]!r}")
