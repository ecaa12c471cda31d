// The mixin's _config applied to PromQL, and to the Go and Grafana templates that hold PromQL:
// the cluster label renamed, label matchers added to the exporter's own series. Only whole
// identifiers outside string literals are touched (recording-rule names such as
// cluster:ceph_scale_x:max are one identifier), plus a string literal naming the label
// (label_replace, sortByLabel). Built on native string functions, not a walk over every
// character: jsonnet is slow at that.
local identPart(c) = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                     || c == '_' || c == ':' || c == '$';

// The positions of pat in s, from the native std.split (std.findSubstr is a jsonnet loop,
// a hundred times slower in the C++ jsonnet).
local find(pat, s) =
  local parts = std.split(s, pat);
  local n = std.length(pat);
  local ends = std.foldl(function(acc, part) acc + [acc[std.length(acc) - 1] + std.length(part) + n],
                         parts[:std.length(parts) - 1], [-n]);
  ends[1:];

// [[open, close]] of the string literals quoted by one of `quotes`.
local spans(s, quotes) =
  local marks = std.sort(std.flattenArrays([[[p, q] for p in find(q, s)] for q in quotes]),
                         function(m) m[0]);
  local step(st, m) =
    if st.open == null then st { open: m[1], start: m[0] }
    else if m[1] == st.open && !(m[0] > 0 && s[m[0] - 1] == '\\') then
      { open: null, start: -1, done: st.done + [[st.start, m[0]]] }
    else st;
  std.foldl(step, marks, { open: null, start: -1, done: [] }).done;

local inside(p, sp) = std.length([1 for x in sp if x[0] < p && p < x[1]]) > 0;

// Whole-identifier occurrences of `word` outside the spans.
local words(s, word, sp) =
  local n = std.length(word);
  [
    p
    for p in find(word, s)
    if (p == 0 || !identPart(s[p - 1])) && !inside(p, sp)
  ];

// The end of the identifier starting at p.
local identEnd(s, p) =
  local n = std.length(s);
  local go(i) = if i < n && identPart(s[i]) then go(i + 1) else i;
  go(p);

local nextChar(s, p) =
  local n = std.length(s);
  local go(i) = if i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t') then go(i + 1) else i;
  local i = go(p);
  if i < n then { at: i, c: s[i] } else { at: n, c: '' };

// s with each edit {at, len, text} applied (edits do not overlap; an insertion goes before a
// replacement at the same place).
local splice(s, edits) =
  local sorted = std.sort(edits, function(e) e.at * 2 + (if e.len > 0 then 1 else 0));
  local ends = [0] + [e.at + e.len for e in sorted];
  std.join('', [std.substr(s, ends[i], sorted[i].at - ends[i]) + sorted[i].text for i in std.range(0, std.length(sorted) - 1)])
  + std.substr(s, ends[std.length(sorted)], std.length(s) - ends[std.length(sorted)]);

{
  // Nothing to rewrite with the defaults: the text as it is, at no cost.
  identity(cfg):: cfg.clusterLabel == 'cluster' && cfg.exporterSelector == {},

  label(name, cfg):: if name == 'cluster' then cfg.clusterLabel else name,

  matchers(cfg):: std.join(', ', ["%s=~'%s'" % [k, cfg.exporterSelector[k]] for k in std.objectFields(cfg.exporterSelector)]),

  // One PromQL expression.
  expr(s, cfg):: if $.identity(cfg) then s else
    local sp = spans(s, ['"', "'", '`']);
    local m = $.matchers(cfg);
    local renames = [
      { at: p, len: 7, text: cfg.clusterLabel }
      for p in words(s, 'cluster', sp)
      if identEnd(s, p) == p + 7
    ] + [
      { at: x[0] + 1, len: 7, text: cfg.clusterLabel }
      for x in sp
      if x[1] - x[0] == 8 && std.substr(s, x[0] + 1, 7) == 'cluster'
    ];
    // The exporter's own series: a ceph_scale_* name or `up`, not a function call.
    local own = [
      { start: p, end: identEnd(s, p), next: nextChar(s, identEnd(s, p)) }
      for p in words(s, 'ceph_scale_', sp) + words(s, 'up', sp)
      if std.substr(s, p, identEnd(s, p) - p) == 'up' || std.startsWith(std.substr(s, p, identEnd(s, p) - p), 'ceph_scale_')
    ];
    local selectors = if m == '' then [] else [
      if o.next.c == '{' then
        local close = nextChar(s, o.next.at + 1);
        { at: o.next.at + 1, len: 0, text: m + (if close.c == '}' then '' else ', ') }
      else { at: o.end, len: 0, text: '{' + m + '}' }
      for o in own
      if o.next.c != '('
    ];
    splice(s, renames + selectors),

  // A Go (Prometheus annotation) or Grafana (legend) template: inside {{ }} the cluster label
  // is renamed, and the PromQL of double-quoted strings rewritten; the prose around is kept.
  template(s, cfg):: if $.identity(cfg) then s else
    local action(code) =
      local sp = spans(code, ['"']);
      splice(code, [
        { at: p, len: 7, text: cfg.clusterLabel }
        for p in words(code, 'cluster', sp)
        if identEnd(code, p) == p + 7
      ] + [
        { at: x[0] + 1, len: x[1] - x[0] - 1, text: $.expr(std.substr(code, x[0] + 1, x[1] - x[0] - 1), cfg) }
        for x in sp
      ]);
    local part(p) =
      local end = find('}}', p);
      if end == [] then action(p) else action(std.substr(p, 0, end[0])) + std.substr(p, end[0], std.length(p) - end[0]);
    local parts = std.split(s, '{{');
    parts[0] + std.join('', ['{{' + part(p) for p in parts[1:]]),
}
