"""The two Prometheus HTTP API calls the previews need: an instant query and a range query."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request


class Prom:
    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def _get(self, path: str, params: dict) -> list:
        url = f"{self.url}{path}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                data = json.loads(r.read())
        except urllib.error.HTTPError as e:
            # Prometheus answers a bad query with 400/422 and says why in the JSON body.
            try:
                data = json.loads(e.read())
            except ValueError:
                raise RuntimeError(f"{path}: HTTP {e.code}") from e
        if data.get("status") != "success":
            raise RuntimeError(f"{data.get('errorType', 'error')}: {data.get('error', data)}")
        return data["data"]["result"]

    def instant(self, expr: str, at: float) -> list:
        return self._get("/api/v1/query", {"query": expr, "time": at})

    def range(self, expr: str, start: float, end: float, step: float) -> list:
        return self._get("/api/v1/query_range", {"query": expr, "start": start, "end": end, "step": step})
