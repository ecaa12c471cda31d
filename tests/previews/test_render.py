"""The PNG preview renderer, against a stand-in Prometheus HTTP API (the real one is used by
tests/dashboards/test_panels_data.py): every board renders, every panel gets data, files stay small."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from dashboards.boards import BOARDS
from dashboards.queries import load_boards, panels
from previews import style
from previews.board import Renderer
from previews.prom import Prom
from previews.render import main, render_all

LABELS = {
    "cluster": "test",
    "ceph_daemon": "osd.0",
    "op": "put",
    "kind": "scrub",
    "name": "pool",
    "bucket": "b",
    "threshold": "target",
    "level": "L1",
    "option": "baseline_put_ops_per_hdd",
    "alertname": "CephScaleX",
    "cause": "reshard",
}


class FakeProm(BaseHTTPRequestHandler):
    queries: list[str] = []
    fail_on: str | None = None  # queries containing this get Prometheus' error answer

    def do_GET(self):  # noqa: N802
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        FakeProm.queries.append(q["query"])
        if FakeProm.fail_on and FakeProm.fail_on in q["query"]:
            body = json.dumps({"status": "error", "errorType": "bad_data", "error": "parse error: boom"}).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)
            return
        if url.path == "/api/v1/query":
            result = [{"metric": {**LABELS, "le": le}, "value": [float(q["time"]), v]}
                      for le, v in (("0.5", "1"), ("1", "3"), ("+Inf", "4"))]  # fmt: skip
        else:
            start, end, step = float(q["start"]), float(q["end"]), float(q["step"])
            n = int((end - start) / step) + 1
            result = [{"metric": LABELS, "values": [[start + i * step, str(0.1 + i % 7 / 10)] for i in range(n)]}]
        body = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": result}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_prometheus():
    FakeProm.fail_on = None
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeProm)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    FakeProm.fail_on = None
    server.shutdown()
    server.server_close()


def test_every_board_renders_with_every_panel_drawn(fake_prometheus, tmp_path, capsys):
    FakeProm.queries.clear()
    end = time.time()
    assert main(["--prometheus", fake_prometheus, "--out", str(tmp_path), "--end", str(end)]) == 0
    out = capsys.readouterr().out
    assert out.count(".png") == len(BOARDS) and "no data" not in out, out
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == sorted(f"{n}.png" for n in BOARDS)
    for p in tmp_path.glob("*.png"):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size < 300_000, p
    # variables substituted as Grafana would with "All"
    assert all("$" not in q for q in FakeProm.queries)
    assert any('cluster=~".*"' in q and "[1m]" in q for q in FakeProm.queries)


def test_a_panel_whose_query_fails_fails_the_run(fake_prometheus, tmp_path, capsys):
    """The renderer draws a failing panel as "error: ..." like Grafana, and also reports it, so
    that the tests and the command's exit status see it."""
    FakeProm.fail_on = "ceph_scale_pg_scrub_backlog_clear_seconds"
    end = time.time()
    # The scrub board, whose panels read the failing series, beside one that does not (every
    # board drawn whole: test_every_board_renders_with_every_panel_drawn)
    res = render_all(fake_prometheus, tmp_path, end - 900, end, only=["scrub", "bluefs"])
    failed = {Path(path).name: missing for path, missing in res.items() if missing}
    assert len(res) == 2 and set(failed) == {"scrub.png"}, res
    assert any(m.startswith("Time to clear the backlog (error:") and "boom" in m for m in failed["scrub.png"])
    assert any(m.startswith("Time to clear the backlog at the current rate") for m in failed["scrub.png"])
    argv = ["--prometheus", fake_prometheus, "--out", str(tmp_path), "--end", str(end), "--board", "scrub"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "no data: Time to clear the backlog (error:" in out and out.count(".png") == 1, out


def test_a_board_not_shipped_is_a_usage_error(fake_prometheus, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--prometheus", fake_prometheus, "--out", str(tmp_path), "--board", "scrubs"])
    assert stop.value.code == 2
    assert "no such board: scrubs (boards: bluefs, capacity," in capsys.readouterr().err
    assert not list(tmp_path.glob("*.png"))


def test_a_failing_annotation_query_fails_the_run(fake_prometheus, tmp_path):
    FakeProm.fail_on = "ceph_scale_rgw_reshard_events_total"
    end = time.time()
    res = render_all(fake_prometheus, tmp_path, end - 900, end, only=["overview", "rgw-resharding", "scrub"])
    failed = {Path(path).name: missing for path, missing in res.items() if missing}
    assert set(failed) == {"overview.png", "rgw-resharding.png"}, res
    assert any(m.startswith("annotations (error:") for m in failed["overview.png"])


def test_annotations_are_regions_titled_from_their_labels(fake_prometheus):
    """Each run of samples of an annotation series is one region; a query with a titleFormat
    titles it from the series' labels (the plunge's likely cause), as Grafana does."""
    end = time.time()
    r = Renderer(Prom(fake_prometheus), end - 900, end, {})
    board = load_boards()["load"]
    marks = r.annotations(board)
    from dashboards.annotations import MARKS
    from dashboards.boards.load import S3_PANELS

    marked = {p["id"] for p in panels(board) if p["title"] in S3_PANELS}
    assert len(marked) == len(S3_PANELS) and marked == set(marks)
    for i in marked:
        assert all(t0 < t1 for t0, t1, _colour, _title in marks[i])
        assert ("red", "S3 plunge, likely cause: reshard") in {(colour, title) for *_t, colour, title in marks[i]}
    rgw = r.annotations(load_boards()["rgw-resharding"])
    titles = {title for regions in rgw.values() for *_x, title in regions}
    assert titles == {m.title.replace("{{cause}}", "reshard") for m in MARKS.values()}


@pytest.mark.parametrize("panel_h", range(4, 16))
@pytest.mark.parametrize("n_series", [1, 3, 8, 15, 40])
def test_legend_rows_fit_in_the_legend(panel_h, n_series):
    """The legend never runs into the panel below: header, margin and shown rows fit its height,
    and the rest are counted as "+N more"."""
    inner_px = panel_h * style.ROW_PX - 40
    height, rows = style.legend_rows(inner_px, n_series)
    assert height <= 0.42 * inner_px
    assert (rows + 1.3) * style.LEGEND_ROW_PX <= height + 1e-6
    assert rows == min(n_series, style.LEGEND_MAX_ROWS) or (rows + 2.3) * style.LEGEND_ROW_PX > height


@pytest.mark.parametrize(
    "value, unit, text",
    [
        (0.8, "percentunit", "80.0 %"),
        (1536, "bytes", "1.5 KiB"),
        (34e6, "Bps", "34.0 MB/s"),
        (90, "s", "1.5 min"),
        (216, "dtdurations", "3.6 min"),
        (7 * 86400 * 2, "s", "2.0 week"),
        (2.5, "s", "2.5 s"),
        (0, "s", "0 s"),
        (0.0213, "s", "21 ms"),
        (0.0042, "s", "4.2 ms"),
        (0.00035, "s", "350 µs"),
        (float("inf"), "s", "∞"),
        (60, "ops", "60 ops/s"),
        (1.37, "suffix:× mean", "1.37× mean"),
        (3, "none", "3"),
    ],
)
def test_units_formatted_like_grafana(value, unit, text):
    assert style.fmt(value, unit) == text


def test_threshold_colours_and_legend():
    steps = [{"value": None, "color": "green"}, {"value": 0.8, "color": "red"}]
    assert style.threshold_color(0.79, steps) == style.NAMED["green"]
    assert style.threshold_color(0.8, steps) == style.NAMED["red"]
    assert style.legend("{{cluster}} {{ceph_daemon}}", {"cluster": "c", "ceph_daemon": "osd.1"}) == "c osd.1"
