"""Development tooling: static PNG previews of the generated Grafana boards.

`python -m previews.render` draws them from any Prometheus; `python -m previews.scenario` starts a
throwaway test cluster, the sidecar and Prometheus, makes the study's conditions happen and draws
them from that run (the committed dashboards/previews/*.png). Not part of the product: nothing
under exporter/, mgr_module/, dashboards/, rules/, deploy/ or docker/ imports this package
(tests/unit/test_layout.py).
"""
