// What the mixin is made of, read as it is from rules/ and dashboards/json/ (jsonnet imports
// only literal paths: tests/deploy/test_mixin.py fails, naming the file, when one is missing).
{
  ruleFiles: [
    std.parseYaml(importstr '../rules/recording.yml'),
    std.parseYaml(importstr '../rules/alerts.yml'),
  ],
  dashboards: {
    'bluefs.json': import '../dashboards/json/bluefs.json',
    'capacity.json': import '../dashboards/json/capacity.json',
    'load.json': import '../dashboards/json/load.json',
    'overview.json': import '../dashboards/json/overview.json',
    'rgw-resharding.json': import '../dashboards/json/rgw-resharding.json',
    'runway.json': import '../dashboards/json/runway.json',
    'scrub.json': import '../dashboards/json/scrub.json',
  },
}
