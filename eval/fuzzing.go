package eval

import (
	"context"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/fuzz"
	"github.com/arbor-fuzz/arbor/subject"
	"github.com/arbor-fuzz/arbor/synth"
)

// What the fuzzing experiments (E7, E8, E10) share.

// fuzzDefaults fills the per-input timeout and the generators' depth
// bound the fuzzing experiments default alike.
func fuzzDefaults(timeout *time.Duration, maxDepth *int) {
	setPositive(timeout, time.Second)
	setPositive(maxDepth, synth.DefaultMaxDepth)
}

// eachSubject runs one experiment's part on every subject, each on a
// recording session of its own. A subject the part fails on gets
// failed's result and the others go on; a done context stops them all.
func eachSubject[T any](ctx context.Context, subjects []subject.Setup, cacheDir string, part func(subject.Setup, *fuzzSession) (T, error),
	failed func(name string, err error) T) ([]T, error) {
	var out []T
	for _, s := range subjects {
		v, err := onSession(ctx, s, cacheDir, part)
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			v = failed(s.Name, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func onSession[T any](ctx context.Context, s subject.Setup, cacheDir string, part func(subject.Setup, *fuzzSession) (T, error)) (T, error) {
	sess, err := openFuzzSession(ctx, s, cacheDir)
	if err != nil {
		var none T
		return none, err
	}
	defer sess.Close()
	return part(s, sess)
}

// fuzzSession is a subject's recording session as the fuzzing
// experiments measure it: by basic blocks where the session records them
// (Go programs; Zest measures branches), else by functions.
type fuzzSession struct {
	*coverage.Session
	blocks bool
	unit   string // "blocks" or "functions"
	units  int    // how many the subject has
}

func openFuzzSession(ctx context.Context, s subject.Setup, cacheDir string) (*fuzzSession, error) {
	// As arbor fuzz runs: its speed is part of what E7 measures.
	sess, err := coverage.Open(ctx, s.Target, cacheDir, coverage.RunOptions{KeepPools: true})
	if err != nil {
		return nil, err
	}
	f := &fuzzSession{Session: sess, unit: "functions", units: len(sess.Funcs.Names)}
	if sess.Funcs.Blocks > 0 {
		f.blocks, f.unit, f.units = true, "blocks", sess.Funcs.Blocks
		sess.Blocks = true
	}
	return f, nil
}

// unitsOf is what a run ran, in the session's unit.
func (f *fuzzSession) unitsOf(r *coverage.Result) []int {
	if f.blocks {
		return r.Blocks
	}
	return r.Covered
}

// zestDomains are Zest's coverage and valid coverage, in the session's
// unit.
func (f *fuzzSession) zestDomains() []fuzz.Domain {
	if f.blocks {
		return []fuzz.Domain{fuzz.BlockCoverage(), fuzz.ValidBlockCoverage()}
	}
	return []fuzz.Domain{fuzz.Coverage(), fuzz.ValidCoverage()}
}

// Finished names the subjects the result holds: all of them, or after
// an interruption those finished before it (E7, E8, E9, E10 and E11
// return them with the context's error; an unfinished subject is left
// out, though E7's checkpoint keeps its finished runs).
func (r *E8Result) Finished() []string { return subjectNames(r.Subjects) }

// Finished is as E8Result's.
func (r *E7Result) Finished() []string { return subjectNames(r.Subjects) }

// Finished is as E8Result's.
func (r *E9Result) Finished() []string { return subjectNames(r.Subjects) }

// Finished is as E8Result's.
func (r *E10Result) Finished() []string { return subjectNames(r.Subjects) }

// Finished is as E8Result's.
func (r *E11Result) Finished() []string { return subjectNames(r.Subjects) }

func subjectNames[T interface{ name() string }](subjects []T) []string {
	out := make([]string, len(subjects))
	for i, s := range subjects {
		out[i] = s.name()
	}
	return out
}

func (s E7Subject) name() string  { return s.Subject }
func (s E8Subject) name() string  { return s.Subject }
func (s E9Subject) name() string  { return s.Subject }
func (s E10Subject) name() string { return s.Subject }
func (s E11Subject) name() string { return s.Subject }
