// The replay's rule engine as Grafana Mimir's ruler runs it: the same evaluation loop as
// replay/ruler (every group's Group.Eval at each step, in file order, over the backfilled TSDB
// merged with a TSDB of what the rules write), but every part that a Mimir ruler supplies is
// Mimir's own, at the version go.mod pins:
//
//   - the rules manager comes from ruler.DefaultTenantManagerFactory (Mimir's options: its
//     query-func and queryable wrappers, its group context, its write path through a Pusher);
//   - the rules package and TSDB are Mimir's fork of Prometheus (github.com/grafana/mimir-prometheus);
//   - the query engine is chosen as querier.New chooses it for the ruler, from the querier's
//     default configuration: Mimir's query engine (pkg/streamingpromql, "MQE") with fallback to
//     Prometheus's engine for expressions MQE does not support (each fallback is counted);
//   - queries read through the querier's wrappers (lazy querier, error translation) and carry a
//     tenant ID and a memory consumption tracker, as in a multi-tenant ruler.
//
// The one setting changed from Mimir's defaults is -ruler.evaluation-delay-duration (default 1m
// in Mimir, 0 here, as in Prometheus), so that both engines query the same instants; -evaluation-delay
// sets it.
//
//	mimir_ruler -blocks DIR -rules recording.yml -rules alerts.yml -start S -end S -interval S [-stale FILE]
//
// Its input and output are replay/ruler's: stdout has one JSON line per alert state change,
// then {"evaluations": n, "seconds": wall, "mqe_queries": n, "fallback_queries": {reason: n}}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"sort"
	"time"

	"github.com/go-kit/log"
	"github.com/grafana/dskit/user"
	"github.com/grafana/mimir/pkg/mimirpb"
	"github.com/grafana/mimir/pkg/querier"
	"github.com/grafana/mimir/pkg/querier/engine"
	"github.com/grafana/mimir/pkg/querier/stats"
	"github.com/grafana/mimir/pkg/ruler"
	"github.com/grafana/mimir/pkg/storage/lazyquery"
	"github.com/grafana/mimir/pkg/streamingpromql"
	"github.com/grafana/mimir/pkg/streamingpromql/compat"
	"github.com/grafana/mimir/pkg/util/limiter"
	"github.com/grafana/mimir/pkg/util/validation"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/notifier"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
	"github.com/spf13/afero"
)

const tenant = "replay"

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
	fmt.Fprintf(os.Stderr, "mimir_ruler: "+format+"\n", args...)
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

// tsdbPusher is the ruler's write path (what an ingester receives) into the rules' own TSDB.
type tsdbPusher struct{ db *tsdb.DB }

func (p tsdbPusher) Push(ctx context.Context, req *mimirpb.WriteRequest) (*mimirpb.WriteResponse, error) {
	app := p.db.Appender(ctx)
	for _, ts := range req.Timeseries {
		lset := mimirpb.FromLabelAdaptersToLabels(ts.Labels)
		for _, s := range ts.Samples {
			if _, err := app.Append(0, lset, s.TimestampMs, s.Value); err != nil {
				_ = app.Rollback()
				return nil, err
			}
		}
		if len(ts.Histograms) > 0 {
			_ = app.Rollback()
			return nil, fmt.Errorf("the shipped rules write no histograms, but %s has some", lset)
		}
	}
	return &mimirpb.WriteResponse{}, app.Commit()
}

// defaults: a config struct as Mimir's flags leave it when none is given.
func defaults(register func(*flag.FlagSet)) {
	register(flag.NewFlagSet("defaults", flag.PanicOnError))
}

func main() {
	var ruleFiles multi
	blocks := flag.String("blocks", "", "TSDB directory of the backfilled blocks")
	stalePath := flag.String("stale", "", "JSON lines of staleness markers")
	start := flag.Float64("start", 0, "first evaluation, unix seconds")
	end := flag.Float64("end", 0, "last evaluation, unix seconds")
	interval := flag.Float64("interval", 60, "evaluation interval, seconds")
	delay := flag.Duration("evaluation-delay", 0, "Mimir's -ruler.evaluation-delay-duration (its default is 1m)")
	flag.Var(&ruleFiles, "rules", "rule file (repeatable)")
	flag.Parse()
	if *blocks == "" || len(ruleFiles) == 0 || *end < *start || *interval <= 0 {
		fail("usage: mimir_ruler -blocks DIR -rules FILE... -start S -end S -interval S [-stale FILE]")
	}
	began := time.Now()
	logger := log.NewNopLogger()
	reg := prometheus.NewRegistry()

	var querierCfg querier.Config
	defaults(func(f *flag.FlagSet) { querierCfg.RegisterFlags(f, logger) })
	var rulerCfg ruler.Config
	defaults(func(f *flag.FlagSet) { rulerCfg.RegisterFlags(f, logger) })
	var limits validation.Limits
	defaults(limits.RegisterFlags)
	limits.RulerEvaluationDelay = model.Duration(*delay)
	overrides := validation.NewOverrides(limits, nil)

	backfillOpts := tsdb.DefaultOptions()
	backfillOpts.RetentionDuration = 0
	ro, err := tsdb.Open(*blocks, nil, nil, backfillOpts, nil)
	if err != nil {
		fail("opening %s: %v", *blocks, err)
	}
	ro.DisableCompactions()
	defer ro.Close()
	outDir, err := os.MkdirTemp("", "mimir-ruler-out-")
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

	// querier.New's queryable, with the backfill and the rules' TSDB in the place of the
	// ingesters and the store-gateways.
	var queryable storage.Queryable = storage.QueryableFunc(func(mint, maxt int64) (storage.Querier, error) {
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
	// Not querier.NewMemoryTrackingQueryable: it releases the memory that Mimir's ingester and
	// store-gateway clients account for each series' labels, which a TSDB querier does not.
	lazy := queryable
	queryable = storage.QueryableFunc(func(mint, maxt int64) (storage.Querier, error) {
		q, err := lazy.Querier(mint, maxt)
		if err != nil {
			return nil, err
		}
		return lazyquery.NewLazyQuerier(q), nil
	})
	queryable = querier.NewErrorTranslateQueryableWithFn(queryable, ruler.WrapQueryableErrors)

	// querier.New's choice of engine.
	promOpts, mqeOpts := engine.NewPromQLEngineOptions(querierCfg.EngineConfig, nil, logger, reg, streamingpromql.NewStaticQueryLimitsProvider())
	var eng promql.QueryEngine
	switch querierCfg.QueryEngine {
	case querier.PrometheusEngine:
		eng = limiter.NewUnlimitedMemoryTrackerPromQLEngine(promql.NewEngine(promOpts))
	case querier.MimirEngine:
		planner, err := streamingpromql.NewQueryPlanner(mqeOpts, streamingpromql.NewMaximumSupportedVersionQueryPlanVersionProvider())
		if err != nil {
			fail("Mimir's query planner: %v", err)
		}
		mqe, err := streamingpromql.NewEngine(mqeOpts, stats.NewQueryMetrics(reg), planner)
		if err != nil {
			fail("Mimir's query engine: %v", err)
		}
		eng = mqe
		if querierCfg.EnableQueryEngineFallback {
			eng = compat.NewEngineWithFallback(mqe, limiter.NewUnlimitedMemoryTrackerPromQLEngine(promql.NewEngine(promOpts)), reg, logger)
		}
	default:
		fail("unknown query engine %q", querierCfg.QueryEngine)
	}

	factory := ruler.DefaultTenantManagerFactory(rulerCfg, tsdbPusher{out}, queryable, rules.EngineQueryFunc(eng, queryable),
		afero.NewOsFs(), &ruler.NoopMultiTenantConcurrencyController{}, overrides, reg)
	ctx := user.InjectOrgID(context.Background(), tenant)
	ctx = limiter.ContextWithNewUnlimitedMemoryConsumptionTracker(ctx)
	// An Alertmanager notifier with no Alertmanager: what it is sent is queued and dropped; the
	// alerts' states are read from the rules, as replay/ruler reads them.
	notifications := notifier.NewManager(&notifier.Options{QueueCapacity: 10_000, Registerer: prometheus.NewRegistry()},
		model.UTF8Validation, slog.New(slog.DiscardHandler))
	manager, ok := factory(ctx, tenant, notifications, logger, reg).(*rules.Manager)
	if !ok {
		fail("Mimir's manager factory did not return a *rules.Manager")
	}

	step := time.Duration(*interval * float64(time.Second))
	groupMap, errs := manager.LoadGroups(step, labels.EmptyLabels(), "", nil, false, ruleFiles...)
	if len(errs) > 0 {
		fail("loading rules: %v", errs)
	}
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
				g.Eval(ruler.FederatedGroupContextFunc(ctx, g), ts)
				for due[g] <= ms {
					due[g] += g.Interval().Milliseconds()
				}
			}
			for _, rule := range g.Rules() {
				if err := rule.LastError(); err != nil && !ruleErrors[rule.Name()] {
					ruleErrors[rule.Name()] = true
					fmt.Fprintf(os.Stderr, "mimir_ruler: %s at %d: %v\n", rule.Name(), ms/1000, err)
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
	supported, fallbacks := engineCounts(reg)
	write(enc, map[string]any{"evaluations": evaluations, "seconds": time.Since(began).Seconds(),
		"engine": querierCfg.QueryEngine, "mqe_queries": supported, "fallback_queries": fallbacks})
	if err := w.Flush(); err != nil {
		fail("%v", err)
	}
}

// engineCounts: queries MQE ran, and those it left to Prometheus's engine by reason, from the
// fallback engine's own counters.
func engineCounts(reg *prometheus.Registry) (float64, map[string]float64) {
	families, err := reg.Gather()
	if err != nil {
		fail("reading the engine's counters: %v", err)
	}
	supported, fallbacks := 0.0, map[string]float64{}
	for _, f := range families {
		switch f.GetName() {
		case "cortex_mimir_query_engine_supported_queries_total":
			for _, m := range f.GetMetric() {
				supported += m.GetCounter().GetValue()
			}
		case "cortex_mimir_query_engine_unsupported_queries_total":
			for _, m := range f.GetMetric() {
				fallbacks[reason(m)] += m.GetCounter().GetValue()
			}
		}
	}
	return supported, fallbacks
}

func reason(m *dto.Metric) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == "reason" {
			return l.GetValue()
		}
	}
	return ""
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
