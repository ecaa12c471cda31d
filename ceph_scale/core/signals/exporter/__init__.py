"""What belongs to no one signal: the exporter's own health (its sources, signals and scrapes)."""
