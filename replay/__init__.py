"""The studies replayed: simulated clusters through the real parsers, derivation, exposition,
Prometheus rule engine and Alertmanager routing (replay/README.md)."""
