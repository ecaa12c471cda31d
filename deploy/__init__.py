"""Deployment artefacts generated from rules/ and dashboards/json/: the cephadm bundle
(cephadm.py), the Helm chart's inputs (helm/), the mixin's (../mixin.libsonnet)."""
