package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// maxE7File bounds the e7.json ReadE7 reads: a campaign of 10-minute
// runs keeps every run's curve, some megabytes a subject.
const maxE7File = 1 << 30

// ReadE7 reads an e7.json that E7 wrote (a whole campaign's, a shard's,
// or an interrupted run's). The file is data from elsewhere, perhaps
// another machine: one that is not E7's result is an error, never a
// panic.
func ReadE7(path string) (*E7Result, error) {
	return readResult(path, maxE7File, "E7's result", DecodeE7)
}

// DecodeE7 decodes an e7.json and checks that it is whole: settings in
// range, known methods, subjects of its list each once, and runs of its
// methods within its repetitions, each once.
func DecodeE7(b []byte) (*E7Result, error) {
	var r E7Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("not E7's result: %w", err)
	}
	switch {
	case len(r.All) == 0:
		return nil, errors.New("not E7's result of this version: no list of subjects (all_subjects)")
	case r.Reps < 1 || r.Seconds <= 0 || len(r.Methods) == 0:
		return nil, fmt.Errorf("not E7's result: %d repetitions of %v seconds, %d methods", r.Reps, r.Seconds, len(r.Methods))
	}
	if dup := duplicate(r.All); dup != "" {
		return nil, fmt.Errorf("subject %s is listed twice", dup)
	}
	if dup := duplicate(r.Methods); dup != "" {
		return nil, fmt.Errorf("method %s is listed twice", dup)
	}
	for _, m := range r.Methods {
		if !slices.Contains(E7Methods, m) {
			return nil, fmt.Errorf("no method %q", m)
		}
	}
	seen := map[string]bool{}
	for _, s := range r.Subjects {
		switch {
		case !slices.Contains(r.All, s.Subject):
			return nil, fmt.Errorf("results of subject %q, which is not in the campaign's list", s.Subject)
		case seen[s.Subject]:
			return nil, fmt.Errorf("two entries of subject %s", s.Subject)
		}
		seen[s.Subject] = true
		runs := map[e7Key]bool{}
		for i, run := range s.Runs {
			if run.Failure != nil && run.Failures == 0 {
				// Written before Go's fuzzer was started again after a
				// failure: the run stopped at its first.
				s.Runs[i].Stopped, s.Runs[i].Failures = true, 1
			}
			k := e7Key{run.Method, run.Rep}
			switch {
			case !slices.Contains(r.Methods, run.Method):
				return nil, fmt.Errorf("%s: a run of method %q, which the campaign does not run", s.Subject, run.Method)
			case run.Rep < 0 || run.Rep >= r.Reps:
				return nil, fmt.Errorf("%s: %s run of repetition %d, of %d", s.Subject, run.Method, run.Rep, r.Reps)
			case runs[k]:
				return nil, fmt.Errorf("%s: two %s runs of repetition %d", s.Subject, run.Method, run.Rep)
			case run.Failures < 0 || run.Restarts < 0:
				return nil, fmt.Errorf("%s: a %s run of %d failures and %d restarts", s.Subject, run.Method, run.Failures, run.Restarts)
			}
			runs[k] = true
		}
	}
	return &r, nil
}

// sameCampaign says how b's settings differ from a's, if they do.
func sameCampaign(a, b *E7Result) error {
	switch {
	case a.Seconds != b.Seconds:
		return fmt.Errorf("%v seconds a run, not %v", b.Seconds, a.Seconds)
	case a.Reps != b.Reps:
		return fmt.Errorf("%d repetitions, not %d", b.Reps, a.Reps)
	case !slices.Equal(a.Methods, b.Methods):
		return fmt.Errorf("methods %v, not %v", b.Methods, a.Methods)
	case a.Fresh != b.Fresh:
		return fmt.Errorf("a share %v of fresh inputs, not %v", b.Fresh, a.Fresh)
	case a.Seed != b.Seed:
		return fmt.Errorf("seed %d, not %d", b.Seed, a.Seed)
	case a.MaxDepth != b.MaxDepth || a.TimeoutMS != b.TimeoutMS:
		return fmt.Errorf("depth bound %d and timeout %d ms, not %d and %d", b.MaxDepth, b.TimeoutMS, a.MaxDepth, a.TimeoutMS)
	case a.NoConstraints != b.NoConstraints:
		return fmt.Errorf("constraints %s, not %s", onOff(!b.NoConstraints), onOff(!a.NoConstraints))
	case !slices.Equal(a.All, b.All):
		return fmt.Errorf("subjects %v, not %v", b.All, a.All)
	}
	return nil
}

// MergeE7 joins the results of a campaign's shards (or of any runs of
// the same campaign: the same settings and subjects) into one result:
// each subject's runs in the order of repetitions and methods, its rows
// computed again from all of them. A run in two results is an error;
// missing counts the runs of the campaign no result has (a shard not run
// or stopped early; methods skipped on a subject are not missing).
func MergeE7(results []*E7Result) (merged *E7Result, missing int, err error) {
	if len(results) == 0 {
		return nil, 0, errors.New("no results to merge")
	}
	first := results[0]
	subjects := map[string]*E7Subject{}
	seen := map[string]map[e7Key]bool{} // subject → its runs so far
	for i, r := range results {
		if err := sameCampaign(first, r); err != nil {
			return nil, 0, fmt.Errorf("result %d is of another campaign than result 1: %w", i+1, err)
		}
		for _, s := range r.Subjects {
			m := subjects[s.Subject]
			if m == nil {
				m = &E7Subject{Subject: s.Subject, Unit: s.Unit, Units: s.Units, Runs: []E7Run{}}
				subjects[s.Subject] = m
			}
			switch {
			case len(s.Runs) > 0 && len(m.Runs) > 0 && (s.Unit != m.Unit || s.Units != m.Units):
				return nil, 0, fmt.Errorf("%s: %d %s in result %d, %d %s before", s.Subject, s.Units, s.Unit, i+1, m.Units, m.Unit)
			case len(m.Runs) == 0:
				m.Unit, m.Units = s.Unit, s.Units
			}
			for _, run := range s.Runs {
				k := e7Key{run.Method, run.Rep}
				if seen[s.Subject][k] {
					return nil, 0, fmt.Errorf("%s: the %s run of repetition %d is in two results (the second is result %d)", s.Subject, run.Method, run.Rep, i+1)
				}
				if seen[s.Subject] == nil {
					seen[s.Subject] = map[e7Key]bool{}
				}
				seen[s.Subject][k] = true
				m.Runs = append(m.Runs, run)
			}
			for _, sk := range s.Skipped {
				if !slices.ContainsFunc(m.Skipped, func(o E7Skip) bool { return o.Method == sk.Method }) {
					m.Skipped = append(m.Skipped, sk)
				}
			}
			if s.Error != "" && m.Error == "" {
				m.Error = s.Error
			}
		}
	}
	merged = &E7Result{Seconds: first.Seconds, Reps: first.Reps, Methods: first.Methods, Fresh: first.Fresh, Seed: first.Seed,
		MaxDepth: first.MaxDepth, TimeoutMS: first.TimeoutMS, NoConstraints: first.NoConstraints, All: first.All, Subjects: []E7Subject{}}
	for _, name := range first.All {
		s := subjects[name]
		if s == nil {
			missing += first.Reps * len(first.Methods)
			continue
		}
		slices.SortFunc(s.Runs, func(a, b E7Run) int {
			if a.Rep != b.Rep {
				return a.Rep - b.Rep
			}
			return slices.Index(E7Methods, a.Method) - slices.Index(E7Methods, b.Method)
		})
		if len(s.Runs) > 0 {
			s.Error = "" // a shard that failed where another ran: the runs stand
		}
		s.Rows = e7Rows(s.Runs)
		applies := len(first.Methods)
		for _, m := range first.Methods {
			if slices.ContainsFunc(s.Skipped, func(o E7Skip) bool { return o.Method == m }) {
				applies--
			}
		}
		if s.Error == "" {
			missing += first.Reps*applies - len(s.Runs)
		}
		merged.Subjects = append(merged.Subjects, *s)
	}
	return merged, missing, nil
}
