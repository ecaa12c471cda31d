// The replay's rule engine: Prometheus's own rules.Group.Eval at every evaluation step over a
// span of backfilled TSDB blocks, writing each alert's state changes as JSON lines.
//
//	ruler -blocks DIR -rules recording.yml -rules alerts.yml -start S -end S -interval S [-stale FILE]
//
// The blocks are read as they are (promtool tsdb create-blocks-from openmetrics wrote them);
// what the rules write (recording rules, ALERTS, ALERTS_FOR_STATE) goes to a TSDB of its own
// in a temporary directory, and every query reads both, merged. -stale names a JSON-lines file
// of staleness markers, {"t": seconds, "series": [{label: value}]}, which a real scrape loop
// writes when a target fails or a series leaves its exposition; backfilled OpenMetrics cannot
// carry them, so they are appended here, each just before the first evaluation at or after it.
//
// Each line of stdout: {"t": seconds, "alert": name, "state": "pending"|"firing"|"inactive",
// "labels": {...}, "active_at": seconds, "value": v}; the last line: {"evaluations": n,
// "seconds": wall time}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
)

type multi []string

func (m *multi) String() string     { return fmt.Sprint(*m) }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

type staleMark struct {
	T      float64             `json:"t"`
	Series []map[string]string `json:"series"`
}

type event struct {
	T        float64           `json:"t"`
	Alert    string            `json:"alert"`
	State    string            `json:"state"`
	Labels   map[string]string `json:"labels"`
	ActiveAt float64           `json:"active_at"`
	Value    float64           `json:"value"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "ruler: "+format+"\n", args...)
	os.Exit(2)
}

func readStale(path string) []staleMark {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		fail("%v", err)
	}
	defer f.Close()
	var marks []staleMark
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		var m staleMark
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			fail("%s line %d: %v", path, n, err)
		}
		marks = append(marks, m)
	}
	if err := sc.Err(); err != nil {
		fail("%s: %v", path, err)
	}
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].T < marks[j].T })
	return marks
}

func millis(s float64) int64 { return int64(math.Round(s * 1000)) }

func main() {
	var ruleFiles multi
	blocks := flag.String("blocks", "", "TSDB directory of the backfilled blocks")
	stalePath := flag.String("stale", "", "JSON lines of staleness markers")
	start := flag.Float64("start", 0, "first evaluation, unix seconds")
	end := flag.Float64("end", 0, "last evaluation, unix seconds")
	interval := flag.Float64("interval", 60, "evaluation interval, seconds")
	flag.Var(&ruleFiles, "rules", "rule file (repeatable)")
	flag.Parse()
	if *blocks == "" || len(ruleFiles) == 0 || *end < *start || *interval <= 0 {
		fail("usage: ruler -blocks DIR -rules FILE... -start S -end S -interval S [-stale FILE]")
	}
	began := time.Now()
	ctx := context.Background()

	// Opened as a database (its blocks loaded once) and never appended to: the backfill's blocks
	// lie before any time its head would accept.
	backfillOpts := tsdb.DefaultOptions()
	backfillOpts.RetentionDuration = 0
	ro, err := tsdb.Open(*blocks, nil, nil, backfillOpts, nil)
	if err != nil {
		fail("opening %s: %v", *blocks, err)
	}
	ro.DisableCompactions()
	defer ro.Close()
	outDir, err := os.MkdirTemp("", "ruler-out-")
	if err != nil {
		fail("%v", err)
	}
	defer os.RemoveAll(outDir)
	opts := tsdb.DefaultOptions()
	opts.RetentionDuration = 0
	out, err := tsdb.Open(outDir, nil, nil, opts, nil)
	if err != nil {
		fail("opening the rules' TSDB: %v", err)
	}
	out.DisableCompactions()
	defer out.Close()

	queryable := storage.QueryableFunc(func(mint, maxt int64) (storage.Querier, error) {
		backfilled, err := ro.Querier(mint, maxt)
		if err != nil {
			return nil, err
		}
		written, err := out.Querier(mint, maxt)
		if err != nil {
			return nil, err
		}
		return storage.NewMergeQuerier([]storage.Querier{backfilled, written}, nil, storage.ChainedSeriesMerge), nil
	})
	engine := promql.NewEngine(promql.EngineOpts{
		MaxSamples:           100_000_000,
		Timeout:              10 * time.Minute,
		LookbackDelta:        5 * time.Minute,
		EnableAtModifier:     true,
		EnableNegativeOffset: true,
	})
	step := time.Duration(*interval * float64(time.Second))
	manager := rules.NewManager(&rules.ManagerOptions{
		AppendableV2: out,
		Queryable:    queryable,
		QueryFunc:    rules.EngineQueryFunc(engine, queryable),
		Context:      ctx,
		NotifyFunc:   func(context.Context, string, ...*rules.Alert) {},
		ResendDelay:  time.Minute,
	})
	groupMap, errs := manager.LoadGroups(step, labels.EmptyLabels(), "", nil, false, ruleFiles...)
	if len(errs) > 0 {
		fail("loading rules: %v", errs)
	}
	// The files' order, then each file's order of groups: recording rules before the alerts
	// that read them, as Prometheus evaluates groups of one interval at one time.
	var groups []*rules.Group
	// A group with an interval of its own (the exporter's presence record, every 5 minutes) is
	// evaluated at the first step at or after each time it is due, as often as Prometheus
	// evaluates it to within a step; one shorter than the step, at every step.
	due := map[*rules.Group]int64{}
	for _, g := range groupMap {
		groups = append(groups, g)
		due[g] = millis(*start)
	}
	fileIndex := map[string]int{}
	for i, f := range ruleFiles {
		fileIndex[f] = i
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if fileIndex[groups[i].File()] != fileIndex[groups[j].File()] {
			return fileIndex[groups[i].File()] < fileIndex[groups[j].File()]
		}
		return groups[i].Name() < groups[j].Name()
	})

	marks := readStale(*stalePath)
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	enc := json.NewEncoder(w)
	previous := map[string]event{}
	ruleErrors := map[string]bool{}
	evaluations := 0
	for ms := millis(*start); ms <= millis(*end); ms += step.Milliseconds() {
		for len(marks) > 0 && millis(marks[0].T) <= ms {
			app := out.Appender(ctx)
			for _, s := range marks[0].Series {
				if _, err := app.Append(0, labels.FromMap(s), millis(marks[0].T), math.Float64frombits(value.StaleNaN)); err != nil {
					fail("staleness marker at %v for %v: %v", marks[0].T, s, err)
				}
			}
			if err := app.Commit(); err != nil {
				fail("committing staleness markers: %v", err)
			}
			marks = marks[1:]
		}
		ts := time.UnixMilli(ms)
		current := map[string]event{}
		for _, g := range groups {
			if ms >= due[g] {
				g.Eval(ctx, ts)
				for due[g] <= ms {
					due[g] += g.Interval().Milliseconds()
				}
			}
			for _, rule := range g.Rules() {
				// A rule that fails to evaluate is named once: its alerts would be silent.
				if err := rule.LastError(); err != nil && !ruleErrors[rule.Name()] {
					ruleErrors[rule.Name()] = true
					fmt.Fprintf(os.Stderr, "ruler: %s at %d: %v\n", rule.Name(), ms/1000, err)
				}
			}
			for _, rule := range g.AlertingRules() {
				for _, a := range rule.ActiveAlerts() {
					e := event{T: float64(ms) / 1000, Alert: rule.Name(), State: a.State.String(),
						Labels: a.Labels.Map(), ActiveAt: float64(a.ActiveAt.UnixMilli()) / 1000, Value: finite(a.Value)}
					key := rule.Name() + a.Labels.String()
					current[key] = e
					if previous[key].State != e.State {
						write(enc, e)
					}
				}
			}
		}
		for key, e := range previous {
			if _, ok := current[key]; !ok {
				e.T, e.State, e.Value = float64(ms)/1000, "inactive", 0
				write(enc, e)
			}
		}
		previous = current
		evaluations++
	}
	write(enc, map[string]any{"evaluations": evaluations, "seconds": time.Since(began).Seconds()})
	if err := w.Flush(); err != nil {
		fail("%v", err)
	}
}

// finite: JSON has no NaN or infinity; an alert's value is for reading, not for judging.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func write(enc *json.Encoder, v any) {
	if err := enc.Encode(v); err != nil {
		fail("writing: %v", err)
	}
}
