package fuzz

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// Run is what one execution tells the domains: the input, its tree, and
// how the subject ran it. The tree and result are valid only during the
// call that receives them.
type Run struct {
	Input  []byte
	Tree   *grammar.Tree
	Result *coverage.Result
	// Valid is whether the subject accepted the input: it returned
	// without an error (a crash is not a rejection of the input's form,
	// but it is not kept as valid either).
	Valid bool
}

// A Domain is one kind of feedback, as in FuzzFactory: each run maps
// keys to values, and the domain folds them into an aggregate with a
// reducer that is idempotent and insensitive to order (set union, max).
// The fuzzer keeps an input when it changes some domain's aggregate.
type Domain interface {
	// Name is the domain's name in progress lines and results.
	Name() string
	// Observe folds a run into the aggregate and reports whether the
	// aggregate changed.
	Observe(r *Run) bool
	// Size is how many keys the aggregate holds.
	Size() int
}

// Reducer combines a key's aggregate value with a run's value for it. It
// must be idempotent (reduce(a, a) == a) and commutative and associative,
// so that the aggregate does not depend on the order of runs.
type Reducer func(old, new uint64) uint64

// Union is the reducer of sets and bit sets.
func Union(a, b uint64) uint64 { return a | b }

// Max keeps the largest value.
func Max(a, b uint64) uint64 { return max(a, b) }

// MapDomain is a domain whose runs each give a map of keys to values,
// reduced key by key: every built-in domain is one, and a user-defined
// domain takes a feedback function and a reducer.
type MapDomain struct {
	name     string
	reduce   Reducer
	feedback func(r *Run, emit func(key, value uint64))
	agg      map[uint64]uint64
}

// NewDomain returns a domain named name whose runs' feedback is told by
// feedback, one emit per key, and reduced with reduce.
func NewDomain(name string, reduce Reducer, feedback func(r *Run, emit func(key, value uint64))) *MapDomain {
	return &MapDomain{name: name, reduce: reduce, feedback: feedback, agg: map[uint64]uint64{}}
}

// Name is the domain's name.
func (d *MapDomain) Name() string { return d.name }

// Size is the number of keys in the aggregate.
func (d *MapDomain) Size() int { return len(d.agg) }

// Observe folds the run's feedback into the aggregate.
func (d *MapDomain) Observe(r *Run) bool {
	changed := false
	d.feedback(r, func(k, v uint64) {
		old, ok := d.agg[k]
		if ok {
			v = d.reduce(old, v)
		}
		if !ok || v != old {
			d.agg[k] = v
			changed = true
		}
	})
	return changed
}

// Value is key's aggregate value, and whether any run gave one.
func (d *MapDomain) Value(key uint64) (uint64, bool) {
	v, ok := d.agg[key]
	return v, ok
}

// Keys lists the aggregate's keys in increasing order.
func (d *MapDomain) Keys() []uint64 {
	keys := make([]uint64, 0, len(d.agg))
	for k := range d.agg {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// Coverage is Zest's coverage domain: the set of functions any input ran
// (key: the function's index in the subject's function list).
func Coverage() *MapDomain {
	return NewDomain("cov", Union, func(r *Run, emit func(k, v uint64)) {
		for _, f := range r.Result.Covered {
			emit(uint64(f), 1)
		}
	})
}

// ValidCoverage is Zest's validity domain: the functions valid inputs
// ran. With Coverage it gives Zest's rule: keep an input that covers
// something new, or that is valid and covers something no valid input
// covered before.
func ValidCoverage() *MapDomain {
	return NewDomain("valid", Union, func(r *Run, emit func(k, v uint64)) {
		if !r.Valid {
			return
		}
		for _, f := range r.Result.Covered {
			emit(uint64(f), 1)
		}
	})
}

// BlockCoverage is Coverage at the finer grain of basic blocks (the
// run's Result.Blocks, which a Go subject's session gives with
// coverage.Session.Blocks set): Zest measures branches, and most inputs
// that run a new block run no new function.
func BlockCoverage() *MapDomain {
	return NewDomain("blocks", Union, func(r *Run, emit func(k, v uint64)) {
		for _, b := range r.Result.Blocks {
			emit(uint64(b), 1)
		}
	})
}

// ValidBlockCoverage is ValidCoverage over basic blocks.
func ValidBlockCoverage() *MapDomain {
	return NewDomain("valid-blocks", Union, func(r *Run, emit func(k, v uint64)) {
		if !r.Valid {
			return
		}
		for _, b := range r.Result.Blocks {
			emit(uint64(b), 1)
		}
	})
}

// Counts is AFL's hit-count domain: for each function, the union of the
// powers of two its call counts fell in (1, 2, 3-4, 5-8, ...), so an
// input that calls a function in a new order of magnitude is kept.
func Counts() *MapDomain {
	return NewDomain("counts", Union, func(r *Run, emit func(k, v uint64)) {
		for i, f := range r.Result.Covered {
			emit(uint64(f), 1<<bucket(r.Result.Counts[i]))
		}
	})
}

// bucket is the log2 class of a count: 0 for 1, 1 for 2, 2 for 3-4, 3
// for 5-8...
func bucket(n uint32) uint {
	if n <= 1 {
		return 0
	}
	return uint(bits.Len32(n - 1))
}

// Perf is PerfFuzz's domain: for each function, the most times one input
// called it. An input is kept when it makes some function do more work
// than any input before.
func Perf() *MapDomain {
	return NewDomain("perf", Max, func(r *Run, emit func(k, v uint64)) {
		for i, f := range r.Result.Covered {
			emit(uint64(f), uint64(r.Result.Counts[i]))
		}
	})
}

// KPaths is the domain of the grammar's k-paths (1 to k) the inputs'
// trees hold: structural coverage of the input language, which needs no
// subject at all.
func KPaths(g *grammar.Graph, k int) Domain {
	return &kpathDomain{k: k, cov: features.NewCoverage(g, k)}
}

type kpathDomain struct {
	k   int
	cov *features.Coverage
}

func (d *kpathDomain) Name() string { return "kpath" }

func (d *kpathDomain) Size() int {
	n := 0
	for k := 1; k <= d.k; k++ {
		n += d.cov.Covered(k)
	}
	return n
}

func (d *kpathDomain) Observe(r *Run) bool {
	before := d.Size()
	d.cov.Add(r.Tree)
	return d.Size() != before
}

// DomainNames lists the built-in domains' names, for flags.
func DomainNames() []string {
	return []string{"cov", "valid", "blocks", "valid-blocks", "counts", "perf", "kpath"}
}

// NewDomains returns the built-in domains named in names (see
// DomainNames), in that order; k is the path length of the kpath domain.
func NewDomains(names []string, g *grammar.Graph, k int) ([]Domain, error) {
	var ds []Domain
	seen := map[string]bool{}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if seen[name] {
			return nil, fmt.Errorf("domain %q is named twice", name)
		}
		seen[name] = true
		switch name {
		case "cov":
			ds = append(ds, Coverage())
		case "valid":
			ds = append(ds, ValidCoverage())
		case "blocks":
			ds = append(ds, BlockCoverage())
		case "valid-blocks":
			ds = append(ds, ValidBlockCoverage())
		case "counts":
			ds = append(ds, Counts())
		case "perf":
			ds = append(ds, Perf())
		case "kpath":
			ds = append(ds, KPaths(g, k))
		default:
			return nil, fmt.Errorf("unknown domain %q: want one of %s", name, strings.Join(DomainNames(), ", "))
		}
	}
	if len(ds) == 0 {
		return nil, fmt.Errorf("no domain: want one or more of %s", strings.Join(DomainNames(), ", "))
	}
	return ds, nil
}
