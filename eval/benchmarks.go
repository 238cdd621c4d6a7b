package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/bst"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// E6BenchmarkConfig says how E6Benchmarks builds E6's benchmarks.
type E6BenchmarkConfig struct {
	Seed      uint64
	BSTTrials int // trials of the binary-search-tree example
	Trials    int // trials of the JSON and XML benchmarks
	// NoConstraints generates the JSON and XML documents without regard
	// to their grammars' constraints (where clauses); by default each
	// guided tree is repaired to satisfy them (synth.ConstrainedGenerator).
	NoConstraints bool
	CacheDir      string // for the xml subject's harness
}

// E6Benchmarks builds E6's three benchmarks: the binary-search-tree
// example (cfg.BSTTrials), JSON documents that must pass NumberRecord,
// and XML documents the xml subject must accept (cfg.Trials each).
// closeFn stops the xml subject's harness, which the xml oracle runs.
func E6Benchmarks(ctx context.Context, cfg E6BenchmarkConfig) (_ []Benchmark, closeFn func(), _ error) {
	seed := cfg.Seed
	jsonG, err := datasets.Grammar("json")
	if err != nil {
		return nil, nil, err
	}
	jsonCons, err := constraintsOf(jsonG, cfg.NoConstraints)
	if err != nil {
		return nil, nil, fmt.Errorf("json: %w", err)
	}
	xml, err := subject.Load(ctx, "xml")
	if err != nil {
		return nil, nil, err
	}
	xmlCons, err := constraintsOf(xml.Grammar, cfg.NoConstraints)
	if err != nil {
		return nil, nil, fmt.Errorf("xml: %w", err)
	}
	sess, err := coverage.Open(ctx, xml.Target, cfg.CacheDir, coverage.RunOptions{})
	if err != nil {
		return nil, nil, err
	}
	benchmarks := []Benchmark{
		{Name: "bst", Trials: cfg.BSTTrials, Make: func(g *synth.Guide) (BenchmarkRun, error) {
			gen, o := bst.Generator(g, synth.TreeState, seed)
			return BenchmarkRun{Next: gen, Oracle: o}, nil
		}},
		{Name: "json-schema", Trials: cfg.Trials, Make: func(g *synth.Guide) (BenchmarkRun, error) {
			gen, unrepaired := synth.ConstrainedGenerator(jsonG, g, synth.TreeState, seed, 12, jsonCons)
			return BenchmarkRun{Next: gen, Oracle: synth.FuncOracle(NumberRecord), Unrepaired: unrepaired}, nil
		}},
		{Name: "xml", Trials: cfg.Trials, Make: func(g *synth.Guide) (BenchmarkRun, error) {
			gen, unrepaired := synth.ConstrainedGenerator(xml.Grammar, g, synth.TreeState, seed, 12, xmlCons)
			return BenchmarkRun{Next: gen, Oracle: &subject.SessionOracle{Session: sess, Timeout: time.Second}, Unrepaired: unrepaired}, nil
		}},
	}
	return benchmarks, func() { sess.Close() }, nil
}

// NumberRecord is E6's schema-like rule for JSON: an object of at least
// two members whose values are all numbers, keys distinct.
func NumberRecord(in []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(in))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return false
	}
	keys := map[string]bool{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		key, _ := k.(string)
		if keys[key] {
			return false
		}
		keys[key] = true
		v, err := dec.Token()
		if _, isNumber := v.(float64); err != nil || !isNumber {
			return false
		}
	}
	if end, err := dec.Token(); err != nil || end != json.Delim('}') {
		return false
	}
	_, err = dec.Token()
	return err != nil && len(keys) >= 2 // nothing may follow the object
}
