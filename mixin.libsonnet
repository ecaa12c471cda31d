// ceph-scale-signals as a monitoring mixin, in the shape of ceph-mixin:
//   prometheusRules    the recording rules of rules/
//   prometheusAlerts   the alerts of rules/
//   grafanaDashboards  the boards of dashboards/json/, by file name
// with _config (mixin/config.libsonnet): the cluster label, selectors for the exporter's
// series, threshold overrides, the runbook base. With the defaults the output is rules/ and
// dashboards/json/ themselves (tests/deploy/test_mixin.py).
//
//   jsonnet -J vendor -e '(import "mixin.libsonnet").prometheusAlerts'
//   local scale = (import 'ceph-scale-signals/mixin.libsonnet') + { _config+:: { clusterLabel: 'ceph_cluster' } };
local files = import 'mixin/files.libsonnet';
local promql = import 'mixin/promql.libsonnet';
local defaultBase = 'https://github.com/ceph-scale-signals/ceph-scale-signals/blob/main/';
local configRecord = 'cluster_option:ceph_scale_config:max';

(import 'mixin/config.libsonnet') + {
  local cfg = self._config,
  local groups = std.flattenArrays([f.groups for f in files.ruleFiles]),
  local recording(g) = std.all([std.objectHas(r, 'record') for r in g.rules]),

  // The options the rules read (option="..." in an expression, option='...' in a description's query).
  local ruleText = std.join('\n', [r.expr for g in groups for r in g.rules]
                                  + [std.join('\n', std.objectValues(r.annotations)) for g in groups for r in g.rules
                                     if std.objectHas(r, 'annotations')]),
  local known(option) = std.length(std.split(ruleText, 'option="' + option + '"')) > 1
                        || std.length(std.split(ruleText, "option='" + option + "'")) > 1,

  // The recorded thresholds, with the overridden options replaced for every cluster.
  local thresholdExpr(expr) =
    local options = std.objectFields(cfg.thresholds);
    local unknown = [o for o in options if !known(o)];
    assert unknown == [] : 'ceph-scale-signals mixin: _config.thresholds: no rule reads %s' % std.join(', ', unknown);
    '(%s)' % expr
    + std.join('', ['\n  unless on (option) label_replace(vector(1), "option", "%s", "", "")' % o for o in options])
    + std.join('', [
      '\nor\n  label_replace(0 * max by (cluster) (ceph_scale_config) + %s, "option", "%s", "", "")'
      % [std.toString(cfg.thresholds[o]), o]
      for o in options
    ]),

  local annotation(name, text) =
    if name == 'runbook_url' then std.strReplace(text, defaultBase, cfg.runbookBaseUrl)
    else promql.template(text, cfg),

  local rule(r) =
    local expr = if std.objectHas(r, 'record') && r.record == configRecord && cfg.thresholds != {}
    then thresholdExpr(r.expr) else r.expr;
    r {
      expr: promql.expr(expr, cfg),
      [if std.objectHas(r, 'labels') then 'labels']: { [promql.label(k, cfg)]: r.labels[k] for k in std.objectFields(r.labels) },
      [if std.objectHas(r, 'annotations') then 'annotations']: {
        [k]: annotation(k, r.annotations[k])
        for k in std.objectFields(r.annotations)
      },
    },

  local group(g) = g { rules: [rule(r) for r in g.rules] },

  // Every query of a board: panel targets (expr, legendFormat), query variables, the runbook base.
  local board(b) =
    local walk(node) =
      if std.isArray(node) then [walk(x) for x in node]
      else if std.isObject(node) then {
        [k]:
          if k == 'expr' && std.isString(node[k]) then promql.expr(node[k], cfg)
          else if k == 'legendFormat' && std.isString(node[k]) then promql.template(node[k], cfg)
          else walk(node[k])
        for k in std.objectFields(node)
      }
      else node;
    local variable(v) =
      if v.type == 'query' && std.isString(v.query) then v { query: promql.expr(v.query, cfg) }
      else if v.name == 'runbook_base' then v { query: cfg.runbookBaseUrl + 'rules/runbooks.md' }
      else v;
    local walked = walk(b);
    walked + { templating+: { list: [variable(v) for v in walked.templating.list] } },

  prometheusRules+:: { groups+: [group(g) for g in groups if recording(g)] },
  prometheusAlerts+:: { groups+: [group(g) for g in groups if !recording(g)] },
  grafanaDashboards+:: { [name]: board(files.dashboards[name]) for name in std.objectFields(files.dashboards) },
}
