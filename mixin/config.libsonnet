{
  _config+:: {
    // The label that names a cluster. The exporter labels its series `cluster`; a Prometheus
    // that renames it (metric_relabel_configs, e.g. to keep `cluster` for its own external
    // label) sets the new name here, and every rule, alert label and board follows.
    clusterLabel: 'cluster',

    // Label matchers added to every selector of the exporter's own series (ceph_scale_* and
    // `up`): {label: regex}, e.g. {job: 'ceph-scale|ceph-mgr-scale'}. The rules find the
    // exporter by what it serves, so by default no job is assumed. Regexes without quotes.
    exporterSelector: {},

    // Thresholds the alerts compare with, overriding what the exporters export as
    // ceph_scale_config{option=...} (docs/configuration.md): {option: value}, e.g.
    // {fill_target_ratio: 0.75}. Setting them on the exporter is better: its derived series
    // and the dashboards' reference lines follow too; this is for rules managed centrally.
    thresholds: {},

    // Where rules/runbooks.md is published: the base of every runbook_url and the
    // dashboards' runbook links (rules/README.md, "Runbook links in a fork").
    runbookBaseUrl: 'https://github.com/ceph-scale-signals/ceph-scale-signals/blob/main/',
  },
}
