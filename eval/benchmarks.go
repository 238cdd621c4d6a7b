package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/internal/bst"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// E6Benchmarks builds E6's three benchmarks: the binary-search-tree
// example (bstTrials), JSON documents that must pass NumberRecord, and
// XML documents the xml subject must accept (trials each). closeFn stops
// the xml subject's harness, which the xml oracle runs.
func E6Benchmarks(ctx context.Context, seed uint64, bstTrials, trials int, cacheDir string) (_ []Benchmark, closeFn func(), _ error) {
	jsonG, err := datasets.Grammar("json")
	if err != nil {
		return nil, nil, err
	}
	xml, err := subject.Load(ctx, "xml")
	if err != nil {
		return nil, nil, err
	}
	sess, err := coverage.Open(ctx, xml.Target, cacheDir, coverage.RunOptions{})
	if err != nil {
		return nil, nil, err
	}
	benchmarks := []Benchmark{
		{Name: "bst", Trials: bstTrials, Make: func(g *synth.Guide) (func() []byte, synth.Oracle, error) {
			gen, o := bst.Generator(g, synth.TreeState, seed)
			return gen, o, nil
		}},
		{Name: "json-schema", Trials: trials, Make: func(g *synth.Guide) (func() []byte, synth.Oracle, error) {
			return synth.GrammarGenerator(jsonG, g, synth.TreeState, seed, 12), synth.FuncOracle(NumberRecord), nil
		}},
		{Name: "xml", Trials: trials, Make: func(g *synth.Guide) (func() []byte, synth.Oracle, error) {
			return synth.GrammarGenerator(xml.Grammar, g, synth.TreeState, seed, 12), &subject.SessionOracle{Session: sess, Timeout: time.Second}, nil
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
