package eval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
	"github.com/arbor-fuzz/arbor/targeting"
)

// The demo (arbor demo) runs arbor end to end on one subject, in six
// steps: learn which inputs run which functions, predict new inputs'
// coverage (the two are E3), explain one function's calling condition,
// generate inputs aimed at it without running the program, run them to
// verify, and compare targeted with random inputs over every function
// (E4).

// DemoSteps is the number of the demo's steps.
const DemoSteps = 6

// DemoAim is how many inputs the demo aims at its function.
const DemoAim = 10

// demoFunctions are the functions the demo would rather explain, in
// order: each has a calling condition a JSON user recognises.
var demoFunctions = []string{
	"encoding/json.stateInStringEscU",
	"encoding/json.(*decodeState).object",
	"encoding/json.unquoteBytes",
}

// DemoConfig configures Demo.
type DemoConfig struct {
	Subject subject.Setup
	// Out is the folder everything is written to: E3's inputs, coverage
	// and model; the inputs aimed at the function, in targeted/; E4's, in
	// comparison/.
	Out         string
	Train, Test int // grammar-random inputs
	Seed        uint64
	// NoConstraints makes the grammar-random inputs and step 6's
	// targeting loop ignore the grammar's constraints (where clauses)
	// (E3Config.NoConstraints); by default they satisfy them. Step 4's
	// inputs are the solver's (targeting.Offline), which the constraints
	// do not reach.
	NoConstraints bool
	CacheDir      string
	// Progress gets the experiments' progress lines.
	Progress func(string)
	// Step, if set, is told when each step starts and when it is done,
	// with the result so far, so that the story can be told as it
	// happens; an error it returns stops the demo.
	Step func(DemoStep) error
}

// DemoStep is one of the demo's steps, starting or done.
type DemoStep struct {
	N      int  // 1 to DemoSteps
	Done   bool // false: starting
	Result *DemoResult
}

// DemoResult is what the demo found.
type DemoResult struct {
	Out         string        `json:"out"`     // the folder everything was written to
	Subject     string        `json:"subject"` // a bundled subject's library and version, else the program
	Seconds     float64       `json:"seconds"`
	Prediction  *E3Result     `json:"prediction"` // trees against the recorded coverage of new inputs
	Function    string        `json:"function"`   // the function explained and targeted
	Constraints []string      `json:"covering_constraints"`
	Targeted    DemoTargeted  `json:"targeted"`
	Comparison  *TargetResult `json:"comparison"` // targeted against random inputs over every function (E4)

	// Model is the trained model and Explained its function that the
	// demo explains and targets.
	Model     *learn.Model         `json:"-"`
	Explained *learn.FunctionModel `json:"-"`
	// TrainDistinct and TestDistinct are the distinct inputs recorded
	// (recording skips an input it has seen).
	TrainDistinct, TestDistinct int `json:"-"`
}

// DemoTargeted is the inputs aimed at the function and how many ran it.
type DemoTargeted struct {
	Dir    string   `json:"dir"`
	Inputs []string `json:"inputs"`
	Ran    int      `json:"ran"`   // inputs that, run, ran the function
	Total  int      `json:"total"` // inputs run
}

// Demo runs the demo's six steps on cfg.Subject into cfg.Out.
func Demo(ctx context.Context, cfg DemoConfig) (*DemoResult, error) {
	start := time.Now()
	s := cfg.Subject
	d := &demoRun{cfg: cfg, r: &DemoResult{Out: cfg.Out, Subject: demoSubject(s)}}
	d.e3 = E3Config{Subject: s.Name, GrammarName: s.GrammarName, Grammar: s.Grammar, Target: s.Target, Train: cfg.Train, Test: cfg.Test,
		Seed: cfg.Seed, NoConstraints: cfg.NoConstraints, WorkDir: cfg.Out, CacheDir: cfg.CacheDir, Progress: cfg.Progress}
	if err := d.do(ctx, 1, d.learn); err != nil {
		return nil, err
	}
	// Step 2's work, E3's predictions, is done in step 1.
	if err := d.do(ctx, 2, nil); err != nil {
		return nil, err
	}
	if err := d.choose(); err != nil {
		return nil, err
	}
	// Step 3's work, the model's explanation of the function, is the
	// story's to tell.
	if err := d.do(ctx, 3, nil); err != nil {
		return nil, err
	}
	if err := d.do(ctx, 4, d.aim); err != nil {
		return nil, err
	}
	if err := d.do(ctx, 5, d.verify); err != nil {
		return nil, err
	}
	if err := d.do(ctx, 6, d.compare); err != nil {
		return nil, err
	}
	d.r.Seconds = time.Since(start).Seconds()
	return d.r, nil
}

// demoRun is a run of the demo: its config, E3's config, and the result
// so far.
type demoRun struct {
	cfg DemoConfig
	e3  E3Config
	r   *DemoResult
}

// do runs step n's work (nil: none; the story tells what is known),
// telling cfg.Step when it starts and when it is done.
func (d *demoRun) do(ctx context.Context, n int, work func(context.Context) error) error {
	tell := func(done bool) error {
		if d.cfg.Step == nil {
			return nil
		}
		return d.cfg.Step(DemoStep{N: n, Done: done, Result: d.r})
	}
	if err := tell(false); err != nil {
		return err
	}
	if work != nil {
		if err := work(ctx); err != nil {
			return err
		}
	}
	return tell(true)
}

// demoSubject names the subject as the demo's story does: a bundled
// subject's library and version, else the program.
func demoSubject(s subject.Setup) string {
	if b, err := datasets.LookupSubject(s.Name); err == nil {
		return b.Library + " " + b.Version()
	}
	return s.Target.String()
}

// learn is step 1, and does step 2's work too: E3, which trains the
// model on the training inputs and predicts the test inputs.
func (d *demoRun) learn(ctx context.Context) error {
	e3, err := E3(ctx, d.e3)
	if err != nil {
		return err
	}
	r := d.r
	r.Prediction = e3
	if r.Model, err = learn.LoadModel(e3.Model); err != nil {
		return err
	}
	if r.TrainDistinct, err = recordedInputs(filepath.Join(d.cfg.Out, "train.cov.jsonl")); err != nil {
		return err
	}
	r.TestDistinct, err = recordedInputs(filepath.Join(d.cfg.Out, "test.cov.jsonl"))
	return err
}

// choose picks the function to explain and target.
func (d *demoRun) choose() error {
	m := d.r.Model
	fn := pickDemoFunction(m)
	if fn == nil {
		return errors.New("the model has no function with a covering constraint to show")
	}
	d.r.Function, d.r.Explained = fn.Name, fn
	for _, c := range m.Covering(fn) {
		d.r.Constraints = append(d.r.Constraints, m.Text(c, false))
	}
	return nil
}

// aim is step 4: DemoAim inputs solved from the function's constraints
// at once, written to targeted/ with their manifest, not run.
func (d *demoRun) aim(ctx context.Context) error {
	m, fn := d.r.Model, d.r.Explained
	dir := filepath.Join(d.cfg.Out, "targeted")
	cons := m.Constraints(fn, learn.EveryLeaf)
	res := targeting.Offline(ctx, d.cfg.Subject.Grammar, m, fn, DemoAim, learn.EveryLeaf, synth.SolveOptions{Seed: d.cfg.Seed})
	if _, err := targeting.WriteOffline(corpus.Layout{Ext: corpus.Extension(m.Grammar.Name)}, dir, m, "", cons, res); err != nil {
		return err
	}
	d.r.Targeted.Dir = dir
	for _, in := range res.Inputs {
		d.r.Targeted.Inputs = append(d.r.Targeted.Inputs, in.Text)
	}
	return nil
}

// verify is step 5: the subject runs step 4's inputs.
func (d *demoRun) verify(ctx context.Context) error {
	t := &d.r.Targeted
	bin, err := coverage.Build(ctx, d.cfg.Subject.Target, d.cfg.CacheDir)
	if err != nil {
		return fmt.Errorf("the subject %s cannot be built here: %w", d.cfg.Subject.Target, err)
	}
	t.Ran, t.Total, err = targeting.VerifyDir(ctx, bin, d.r.Model, d.r.Function, t.Dir)
	return err
}

// compare is step 6: E4 on the model, every function, in a folder of its
// own (its inputs are not step 4's).
func (d *demoRun) compare(ctx context.Context) error {
	cmp := d.e3
	cmp.WorkDir = filepath.Join(d.cfg.Out, "comparison")
	tr, err := Targeted(ctx, TargetConfig{E3Config: cmp, Model: d.r.Model, Solve: synth.SolveOptions{Seed: d.cfg.Seed}})
	d.r.Comparison = tr
	return err
}

// recordedInputs counts the records of a coverage file: the distinct
// inputs recorded, since recording skips an input it has seen.
func recordedInputs(path string) (int, error) {
	f, err := coverage.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return len(f.Records), nil
}

// pickDemoFunction prefers a well-known function, else the function whose
// constraints use the most features among those learned well.
func pickDemoFunction(m *learn.Model) *learn.FunctionModel {
	for _, name := range demoFunctions {
		if fn, err := m.Function(name); err == nil && len(m.Covering(fn)) > 0 && fn.TrainAccuracy >= 0.95 {
			return fn
		}
	}
	var best *learn.FunctionModel
	score := -1
	for i := range m.Functions {
		fn := &m.Functions[i]
		n := 0
		for _, c := range m.Covering(fn) {
			n = max(n, len(c.Literals))
		}
		if n > 0 && fn.TrainAccuracy >= 0.95 && n > score {
			best, score = fn, n
		}
	}
	return best
}
