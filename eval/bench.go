package eval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/synth"
)

// BenchConfig configures the performance ratios (eval bench).
type BenchConfig struct {
	Quick    bool // the small preset
	Seed     uint64
	CacheDir string // for the json subject's harness
	// CLIGenerate, if set, runs the command line's generation of n random
	// inputs of a bundled grammar with a seed, in process, writing them
	// nowhere. eval cannot call the command line itself (it sits below
	// it), so the command passes it in; without it the generation row
	// reports the engine alone.
	CLIGenerate func(ctx context.Context, grammarName string, n int, seed uint64) error
	Progress    func(Step)
}

// BenchSizes are the bench's sizes; DefaultBenchSizes and
// QuickBenchSizes are the two presets.
type BenchSizes struct {
	Rounds    int `json:"rounds"`     // timed runs of each side; medians are reported
	Generate  int `json:"generate"`   // inputs generated per run
	Corpus    int `json:"corpus"`     // generated json (and xml) inputs parsed per run
	LargeJSON int `json:"large_json"` // bytes of the one large json document, about
	Record    int `json:"record"`     // json inputs recorded (and trained on)
	RulesA    int `json:"rules_a"`    // rules of the smaller synthetic grammar
	RulesB    int `json:"rules_b"`    // rules of the larger one
}

// DefaultBenchSizes is the default preset.
func DefaultBenchSizes() BenchSizes {
	return BenchSizes{Rounds: 11, Generate: 20000, Corpus: 5000, LargeJSON: 4 << 20, Record: 2000, RulesA: 1000, RulesB: 5000}
}

// QuickBenchSizes is the --quick preset.
func QuickBenchSizes() BenchSizes {
	return BenchSizes{Rounds: 5, Generate: 2000, Corpus: 1000, LargeJSON: 512 << 10, Record: 300, RulesA: 1000, RulesB: 5000}
}

// BenchRow is one ratio: A against B, both in Unit, Ratio = A/B except
// where the row says otherwise.
type BenchRow struct {
	Name     string  `json:"name"`
	Compared string  `json:"compared"` // "A vs B"
	A        float64 `json:"a"`
	B        float64 `json:"b"`
	Ratio    float64 `json:"ratio"`
	Unit     string  `json:"unit"`
	Goal     string  `json:"goal,omitempty"` // the goal for the ratio
	// Met says whether the ratio meets the goal, on this run; absent
	// where the row has no goal.
	Met  *bool  `json:"met,omitempty"`
	Note string `json:"note,omitempty"`
}

// BenchResult is one run of the bench.
type BenchResult struct {
	Preset string     `json:"preset"` // "default" or "quick"
	Seed   uint64     `json:"seed"`
	Sizes  BenchSizes `json:"sizes"`
	Rows   []BenchRow `json:"rows"`
	// HarnessSeconds is the time coverage.Build took (mostly compiling,
	// on the first run; cached afterwards). It is not in any row.
	HarnessSeconds float64 `json:"harness_seconds"`
	Seconds        float64 `json:"seconds"` // the whole bench
}

// benchSteps is the number of progress steps of a bench.
const benchSteps = 7

// Bench measures the ratios that tell whether arbor's layers cost what
// they should (docs/evaluation.md): the command line against the engine,
// the parser against encoding/json and encoding/xml, features and
// prediction against parsing alone, recording against the subject, and
// the grammar analyses at two grammar sizes. Where two things are
// compared they are timed in the same run, alternating, and the medians
// of Rounds runs are compared, so that the load of a shared machine
// falls on both sides alike. Every input is generated with a fixed seed.
func Bench(ctx context.Context, cfg BenchConfig) (*BenchResult, error) {
	start := time.Now()
	sizes := DefaultBenchSizes()
	res := &BenchResult{Preset: "default", Seed: cfg.Seed}
	if cfg.Quick {
		sizes, res.Preset = QuickBenchSizes(), "quick"
	}
	res.Sizes = sizes
	done := 0
	step := func(text string) {
		if cfg.Progress != nil {
			cfg.Progress(Step{Done: done, Total: benchSteps, Text: text})
		}
		done++
	}
	b := &bencher{ctx: ctx, cfg: cfg, sizes: sizes, res: res}
	parts := []struct {
		text string
		run  func() error
	}{
		{"generation: command line vs engine", b.generation},
		{"parsing json vs encoding/json", b.parseJSON},
		{"parsing xml vs encoding/xml", b.parseXML},
		{"k-path features vs parsing", b.features},
		{"recording the json subject", b.record},
		{"prediction vs parsing", b.predict},
		{"grammar analyses at two sizes", b.analyses},
	}
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		step(p.text)
		if err := p.run(); err != nil {
			return nil, fmt.Errorf("%s: %w", p.text, err)
		}
	}
	step("done")
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// bencher holds what the parts of one bench share: the json corpus, and
// the recorded coverage the predictor is trained on.
type bencher struct {
	ctx   context.Context
	cfg   BenchConfig
	sizes BenchSizes
	res   *BenchResult

	jsonG   *grammar.Graph
	jsonIn  [][]byte // generated json inputs that encoding/json accepts
	jsonLen int      // their bytes
	cov     *coverage.File
	covData map[string][]byte
}

// interleave times each function rounds times, after one untimed run of
// each, alternating their order from round to round, and returns each
// one's median. Run in one loop, the functions share the machine's
// state (load, frequency, caches) as closely as a shared machine allows.
func (b *bencher) interleave(fs ...func() error) ([]time.Duration, error) {
	times := make([][]time.Duration, len(fs))
	for _, f := range fs {
		if err := f(); err != nil {
			return nil, err
		}
	}
	order := make([]int, len(fs))
	for r := 0; r < b.sizes.Rounds; r++ {
		for i := range order {
			order[i] = i
		}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			if err := b.ctx.Err(); err != nil {
				return nil, err
			}
			t := time.Now()
			if err := fs[i](); err != nil {
				return nil, err
			}
			times[i] = append(times[i], time.Since(t))
		}
	}
	med := make([]time.Duration, len(fs))
	for i, ts := range times {
		slices.Sort(ts)
		med[i] = ts[len(ts)/2]
	}
	return med, nil
}

// row adds a row; goal, if set, says whether a ratio meets the goal.
func (b *bencher) row(r BenchRow, goal func(float64) bool) {
	if goal != nil {
		met := goal(r.Ratio)
		r.Met = &met
	}
	b.res.Rows = append(b.res.Rows, r)
}

func perUnit(d time.Duration, n int, unit time.Duration) float64 {
	return float64(d) / float64(unit) / float64(max(n, 1))
}

func (b *bencher) generation() error {
	g, err := datasets.Grammar("json")
	if err != nil {
		return err
	}
	n, seed := b.sizes.Generate, b.cfg.Seed
	var sink int // the texts' lengths, so that making them is not optimized away
	engine := func() error {
		gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
		gen.Reuse = true
		for i := 0; i < n; i++ {
			// A look at the context every 256 inputs costs nothing
			// measurable and stops a run of 20,000 within milliseconds.
			if i%256 == 0 {
				if err := b.ctx.Err(); err != nil {
					return err
				}
			}
			sink += len(gen.Generate().String())
		}
		return nil
	}
	if b.cfg.CLIGenerate == nil {
		med, err := b.interleave(engine)
		if err != nil {
			return err
		}
		e := perUnit(med[0], n, time.Microsecond)
		b.row(BenchRow{Name: "generate", Compared: "synth engine (json, Reuse)", A: e, B: e, Ratio: 1, Unit: "µs/input",
			Note: "command line not measured (no in-process runner given): A and B are the engine"}, nil)
		return nil
	}
	cli := func() error { return b.cfg.CLIGenerate(b.ctx, "json", n, seed) }
	med, err := b.interleave(cli, engine)
	if err != nil {
		return err
	}
	c, e := perUnit(med[0], n, time.Microsecond), perUnit(med[1], n, time.Microsecond)
	b.row(BenchRow{Name: "generate", Compared: "arbor generate json (in process, JSON Lines discarded) vs synth engine (Reuse, text only)",
		A: c, B: e, Ratio: c / e, Unit: "µs/input", Goal: "≤ 1.2",
		Note: fmt.Sprintf("%d inputs, seed %d; the command line's time includes loading the grammar; engine %.0f inputs/s", n, seed, 1e6/e)},
		func(r float64) bool { return r <= 1.2 })
	return nil
}

// jsonCorpus generates the json inputs the parsing, feature and
// prediction rows share, once.
func (b *bencher) jsonCorpus() error {
	if b.jsonIn != nil {
		return nil
	}
	g, err := datasets.Grammar("json")
	if err != nil {
		return err
	}
	b.jsonG = g
	if b.jsonIn, b.jsonLen, err = generateAccepted(b.ctx, g, b.sizes.Corpus, b.cfg.Seed, json.Valid); err != nil {
		return err
	}
	if len(b.jsonIn) == 0 {
		return errors.New("no generated json input is valid to encoding/json")
	}
	return nil
}

// generateAccepted generates n inputs and keeps those accept takes, so
// that both sides of a comparison parse the same, whole inputs (a
// decoder that stops at an error early would look fast). It stops when
// ctx is done, with ctx's error.
func generateAccepted(ctx context.Context, g *grammar.Graph, n int, seed uint64, accept func([]byte) bool) ([][]byte, int, error) {
	gen := synth.NewGenerator(g, synth.NewRandom(seed), synth.RandomPolicy)
	var out [][]byte
	size := 0
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		in := []byte(gen.Generate().String())
		if accept(in) {
			out = append(out, in)
			size += len(in)
		}
	}
	return out, size, nil
}

// parseAll parses every input with arbor's parser without building
// trees where the deterministic parser takes them (as encoding/json.Valid
// builds nothing either): the cheapest parse arbor has, a check. Every
// parse of the bench stops when ctx is done (a large document's takes a
// good part of a second); a parse looks at its context every few
// thousand steps, which costs nothing measurable.
func parseAll(ctx context.Context, g *grammar.Graph, ins [][]byte) error {
	for _, in := range ins {
		if _, err := g.ParseLazyContext(ctx, in, lazyOptions()); err != nil {
			return err
		}
	}
	return nil
}

// buildAll builds every input's tree with one reused grammar.Parser, each
// tree in the memory of the one before.
func buildAll(ctx context.Context, p *grammar.Parser, ins [][]byte) error {
	for _, in := range ins {
		if _, err := p.ParseContext(ctx, in, grammar.ParseOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// recordAll parses every input with one reused grammar.Parser, as
// Predictor.Predict does: recording each parse whose tree is small enough.
func recordAll(ctx context.Context, p *grammar.Parser, ins [][]byte) error {
	for _, in := range ins {
		if _, err := p.ParseLazyContext(ctx, in, lazyOptions()); err != nil {
			return err
		}
	}
	return nil
}

// lazyOptions are the options of ParseLazy: up to
// grammar.DefaultTreeLimit trees, within the default budget.
func lazyOptions() grammar.ParseOptions { return grammar.ParseOptions{Trees: grammar.DefaultTreeLimit} }

// allocated returns the bytes f allocates, run once more.
func allocated(f func() error) (uint64, error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// parseNote says what building and recording trees cost next to the
// check a parse row compares, from the medians of one interleaved run:
// ns/byte of the check, of encoding/json.Valid, of tree building and of
// recording, over size bytes.
func parseNote(med []time.Duration, size int, build func() error) (string, error) {
	perByte := func(d time.Duration) float64 { return perUnit(d, size, time.Nanosecond) }
	valid := perByte(med[1])
	alloc, err := allocated(build)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("; tree building (grammar.Parser.Parse, reused) %.3g ns/byte, %.3g× encoding/json.Valid (goal ≤ 10), %.2g B allocated per input byte (goal ≤ 10); Parser.ParseLazy, as Predict parses (recording trees of up to 65,536 nodes, checking larger ones) %.3g ns/byte, %.3g×",
		perByte(med[2]), perByte(med[2])/valid, float64(alloc)/float64(max(size, 1)), perByte(med[3]), perByte(med[3])/valid), nil
}

func (b *bencher) parseJSON() error {
	if err := b.jsonCorpus(); err != nil {
		return err
	}
	g := b.jsonG
	valid := func(ins [][]byte) func() error {
		return func() error {
			for _, in := range ins {
				if !json.Valid(in) {
					return errors.New("encoding/json rejects an input it accepted before")
				}
			}
			return nil
		}
	}
	parser := g.NewParser()
	build := func(ins [][]byte) func() error { return func() error { return buildAll(b.ctx, parser, ins) } }
	record := func(ins [][]byte) func() error { return func() error { return recordAll(b.ctx, parser, ins) } }
	med, err := b.interleave(func() error { return parseAll(b.ctx, g, b.jsonIn) }, valid(b.jsonIn), build(b.jsonIn), record(b.jsonIn))
	if err != nil {
		return err
	}
	a, e := perUnit(med[0], b.jsonLen, time.Nanosecond), perUnit(med[1], b.jsonLen, time.Nanosecond)
	note, err := parseNote(med, b.jsonLen, build(b.jsonIn))
	if err != nil {
		return err
	}
	goal := func(r float64) bool { return r <= 10 }
	b.row(BenchRow{Name: "parse json corpus", Compared: "arbor ParseLazy vs encoding/json.Valid",
		A: a, B: e, Ratio: a / e, Unit: "ns/byte", Goal: "≤ 10",
		Note: fmt.Sprintf("%d generated inputs, %d bytes", len(b.jsonIn), b.jsonLen) + note}, goal)

	// One large document: the corpus's inputs as the elements of one
	// array, repeated up to the size asked for.
	var doc bytes.Buffer
	doc.WriteByte('[')
	for i := 0; doc.Len() < b.sizes.LargeJSON; i++ {
		if i > 0 {
			doc.WriteByte(',')
		}
		doc.Write(b.jsonIn[i%len(b.jsonIn)])
	}
	doc.WriteByte(']')
	large := [][]byte{doc.Bytes()}
	if !json.Valid(large[0]) {
		return errors.New("the large json document is not valid to encoding/json")
	}
	med, err = b.interleave(func() error { return parseAll(b.ctx, g, large) }, valid(large), build(large), record(large))
	if err != nil {
		return err
	}
	a, e = perUnit(med[0], doc.Len(), time.Nanosecond), perUnit(med[1], doc.Len(), time.Nanosecond)
	if note, err = parseNote(med, doc.Len(), build(large)); err != nil {
		return err
	}
	b.row(BenchRow{Name: "parse json document", Compared: "arbor ParseLazy vs encoding/json.Valid",
		A: a, B: e, Ratio: a / e, Unit: "ns/byte", Goal: "≤ 10", Note: fmt.Sprintf("one document of %d bytes", doc.Len()) + note}, goal)
	return nil
}

// xmlTokens decodes an input's tokens to the end, as a reader of the
// document would.
func xmlTokens(in []byte) error {
	d := xml.NewDecoder(bytes.NewReader(in))
	for {
		if _, err := d.RawToken(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func (b *bencher) parseXML() error {
	g, err := datasets.Grammar("xml")
	if err != nil {
		return err
	}
	ins, size, err := generateAccepted(b.ctx, g, b.sizes.Corpus, b.cfg.Seed, func(in []byte) bool { return xmlTokens(in) == nil })
	if err != nil {
		return err
	}
	if len(ins) == 0 {
		return errors.New("no generated xml input decodes with encoding/xml")
	}
	med, err := b.interleave(func() error { return parseAll(b.ctx, g, ins) }, func() error {
		for _, in := range ins {
			if err := xmlTokens(in); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	a, e := perUnit(med[0], size, time.Nanosecond), perUnit(med[1], size, time.Nanosecond)
	b.row(BenchRow{Name: "parse xml corpus", Compared: "arbor ParseLazy vs encoding/xml Decoder.RawToken to the end",
		A: a, B: e, Ratio: a / e, Unit: "ns/byte",
		Note: fmt.Sprintf("%d of %d generated inputs (those encoding/xml decodes), %d bytes", len(ins), b.sizes.Corpus, size)}, nil)
	return nil
}

func (b *bencher) features() error {
	if err := b.jsonCorpus(); err != nil {
		return err
	}
	g := b.jsonG
	v := features.NewVocabulary(g, features.Options{MaxK: 4})
	for _, in := range b.jsonIn {
		p, err := g.ParseLazyContext(b.ctx, in, lazyOptions())
		if err != nil {
			return err
		}
		v.AddParsed(p) // the vocabulary is filled before timing: lookups only
	}
	n := 0
	med, err := b.interleave(func() error {
		for _, in := range b.jsonIn {
			p, err := g.ParseLazyContext(b.ctx, in, lazyOptions())
			if err != nil {
				return err
			}
			n += len(v.ParsedFeatures(p))
		}
		return nil
	}, func() error { return parseAll(b.ctx, g, b.jsonIn) })
	if err != nil {
		return err
	}
	f, p := perUnit(med[0], len(b.jsonIn), time.Microsecond), perUnit(med[1], len(b.jsonIn), time.Microsecond)
	b.row(BenchRow{Name: "features", Compared: "parse + k-paths (k ≤ 4, Vocabulary.ParsedFeatures) vs parse",
		A: f, B: p, Ratio: f / p, Unit: "µs/input",
		Note: fmt.Sprintf("%d json inputs; %d features in the vocabulary", len(b.jsonIn), v.Len())}, nil)
	return nil
}

func (b *bencher) record() error {
	dir, err := os.MkdirTemp("", "arbor-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, err := datasets.LookupSubject("json")
	if err != nil {
		return err
	}
	target, err := s.TargetContext(b.ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	bin, err := coverage.Build(b.ctx, target, b.cfg.CacheDir)
	if err != nil {
		return err
	}
	b.res.HarnessSeconds = time.Since(start).Seconds()
	g, err := datasets.Grammar("json")
	if err != nil {
		return err
	}
	// The training inputs of the prediction row: seeded apart from the
	// corpus that is predicted.
	gen := synth.NewGenerator(g, synth.NewRandom(b.cfg.Seed+1), synth.RandomPolicy)
	files := make([]string, b.sizes.Record)
	for i := range files {
		if err := b.ctx.Err(); err != nil {
			return err
		}
		files[i] = filepath.Join(dir, fmt.Sprintf("%05d.json", i+1))
		if err := os.WriteFile(files[i], []byte(gen.Generate().String()), 0o644); err != nil {
			return err
		}
	}
	out := filepath.Join(dir, "cov.jsonl")
	start = time.Now()
	sum, err := coverage.RecordInputs(b.ctx, bin, files, out, coverage.Options{Subject: "json"})
	if err != nil {
		return err
	}
	wall := time.Since(start)
	if sum.Recorded == 0 || sum.SubjectTime <= 0 {
		return fmt.Errorf("recorded %d inputs, subject time %v: nothing to compare", sum.Recorded, sum.SubjectTime)
	}
	if b.cov, err = coverage.ReadFile(out); err != nil {
		return err
	}
	b.covData = map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		b.covData[hex.EncodeToString(sum[:])] = data // the key NewDataset looks inputs up by
	}
	rec, subj := perUnit(sum.RecordTime, 1, time.Microsecond), perUnit(sum.SubjectTime, 1, time.Microsecond)
	note := fmt.Sprintf("json subject, %d inputs in one harness process after a warm-up pass (one run, not interleaved: the summary times both)", sum.Recorded)
	if sum.RecordTime <= 0 {
		// A summary without the record pass's time would make a ratio of
		// 0; the whole call's time per input overstates it instead, and
		// the row says so.
		rec = perUnit(wall, sum.Recorded, time.Microsecond)
		note = fmt.Sprintf("json subject, %d inputs; Summary.RecordTime was 0, so A is RecordInputs' wall time per input, harness start and warm-up pass included (an upper bound)", sum.Recorded)
	}
	b.row(BenchRow{Name: "record", Compared: "coverage.RecordInputs per input vs the subject's own time per input",
		A: rec, B: subj, Ratio: rec / subj, Unit: "µs/input", Note: note}, nil)
	return nil
}

func (b *bencher) predict() error {
	if err := b.jsonCorpus(); err != nil {
		return err
	}
	if b.cov == nil {
		return errors.New("no recorded coverage to train on")
	}
	g := b.jsonG
	d, err := learn.NewDatasetContext(b.ctx, g, features.Options{MaxK: 4, Kinds: learn.DefaultFeatures}, b.cov, b.covData)
	if err != nil {
		return err
	}
	m, err := learn.TrainModel(b.ctx, g, d, learn.ModelConfig{Subject: "json", GrammarName: "json", Train: learn.TrainOptions{Seed: b.cfg.Seed}})
	if err != nil {
		return err
	}
	p, err := learn.NewPredictor(m, g)
	if err != nil {
		return err
	}
	// The parse Predict makes records its nodes, which costs more than
	// the check that is the baseline; the note says how much, and what
	// Predict costs where each input's predictions are a new slice.
	parser := g.NewParser()
	var preds []learn.Prediction
	med, err := b.interleave(func() error {
		for _, in := range b.jsonIn {
			var err error
			if preds, err = p.AppendPredictContext(b.ctx, preds[:0], in); err != nil {
				return err
			}
		}
		return nil
	}, func() error { return parseAll(b.ctx, g, b.jsonIn) }, func() error { return recordAll(b.ctx, parser, b.jsonIn) }, func() error {
		for _, in := range b.jsonIn {
			if _, err := p.PredictContext(b.ctx, in); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	pr, pa := perUnit(med[0], len(b.jsonIn), time.Microsecond), perUnit(med[1], len(b.jsonIn), time.Microsecond)
	rec, alloc := perUnit(med[2], len(b.jsonIn), time.Microsecond), perUnit(med[3], len(b.jsonIn), time.Microsecond)
	b.row(BenchRow{Name: "predict", Compared: "Predictor.AppendPredict (parse, features, every tree, into reused storage) vs parse",
		A: pr, B: pa, Ratio: pr / pa, Unit: "µs/input", Goal: "≤ 2 (throughput ≥ 50% of parsing's)",
		Note: fmt.Sprintf("%d json inputs; model of %d functions trained on %d recorded inputs; B is a check (Graph.ParseLazy); prediction parses once, recording the tree (Parser.ParseLazy): %.3g µs/input, %.3g× the check; Predict, a new slice of predictions per input: %.3g µs/input",
			len(b.jsonIn), len(m.Functions), d.Rows, rec, rec/pa, alloc)},
		func(r float64) bool { return r <= 2 })
	return nil
}

func (b *bencher) analyses() error {
	srcA, srcB := benchGrammar(b.sizes.RulesA, b.cfg.Seed), benchGrammar(b.sizes.RulesB, b.cfg.Seed)
	load := func(src []byte) func() error {
		return func() error {
			ast, err := grammar.Parse("synthetic.grammar", src)
			if err != nil {
				return err
			}
			_, err = grammar.Build(ast)
			return err
		}
	}
	med, err := b.interleave(load(srcB), load(srcA))
	if err != nil {
		return err
	}
	big, small := med[0].Seconds(), med[1].Seconds()
	scale := float64(b.sizes.RulesB) / float64(b.sizes.RulesA)
	r := big / small / scale
	b.row(BenchRow{Name: "grammar analyses", Compared: fmt.Sprintf("load and check (grammar.Parse + Build) of %d rules vs %d rules", b.sizes.RulesB, b.sizes.RulesA),
		A: big, B: small, Ratio: r, Unit: "s",
		Goal: "≈ 1 (linear; met at ≤ 1.5)",
		Note: fmt.Sprintf("ratio is time(%d)/time(%d)/%g; synthetic grammars of %d and %d bytes", b.sizes.RulesB, b.sizes.RulesA, scale, len(srcB), len(srcA))},
		func(r float64) bool { return r <= 1.5 })
	return nil
}

// benchGrammar writes a seeded grammar of n rules shaped like an imported
// language grammar: a few alternatives per rule, sequences of references,
// keywords, punctuation and token regexes, optional parts and lists, and
// references back to any rule, so the graph is full of cycles, some of
// them left-recursive. Rule i's first alternative refers to rules 2i+1
// and 2i+2 only (a tree over the rules) and a rule past the leaves of
// that tree is terminals only, so every rule is reachable and productive.
func benchGrammar(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	terms := []string{`"select"`, `"from"`, `"where"`, `"if"`, `"("`, `")"`, `","`, `";"`, `"="`, `"+"`, `/[a-z]+/`, `/[0-9]+/`, `/'[^']*'/`}
	term := func() string { return terms[r.IntN(len(terms))] }
	name := func(i int) string { return "R" + strconv.Itoa(i) }
	var sb strings.Builder
	for i := 0; i < n; i++ {
		var alts []string
		var first []string
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < n {
				first = append(first, name(c))
			}
		}
		first = append(first, term())
		alts = append(alts, strings.Join(first, " "))
		for a := r.IntN(3); a > 0; a-- {
			var seq []string
			if r.IntN(8) == 0 {
				seq = append(seq, name(i)) // left recursion
			}
			seq = append(seq, term())
			for k := r.IntN(3); k > 0; k-- {
				ref := name(r.IntN(n))
				switch r.IntN(4) {
				case 0:
					ref += "?"
				case 1:
					ref = "(" + ref + ` ("," ` + ref + ")*)?"
				}
				seq = append(seq, ref)
			}
			alts = append(alts, strings.Join(seq, " "))
		}
		fmt.Fprintf(&sb, "%s := %s ;\n", name(i), strings.Join(alts, " | "))
	}
	return []byte(sb.String())
}

// WriteBench writes bench.json and bench.csv into dir.
func WriteBench(dir string, r *BenchResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	header, rows := r.CSVTable()
	if err := writeCSV(filepath.Join(dir, "bench.csv"), header, rows); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "bench.json"), r)
}
