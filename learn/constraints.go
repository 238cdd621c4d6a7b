package learn

import (
	"cmp"
	"slices"
	"strings"
)

// MaxConstraintGini is the impurity up to which a covered leaf made a
// covering constraint in the design (docs/algorithms.md). Targeting no longer
// stops there: a rare function's leaves are seldom that pure, and an
// impure leaf is still the best place the tree knows to aim at. It
// remains the strict choice (target --max-gini 0.3) and what explain
// calls a covering constraint.
const MaxConstraintGini = 0.3

// EveryLeaf is the largest gini a two-class leaf can have: as the most
// gini a constraint may have, it takes every leaf with positive rows.
const EveryLeaf = 0.5

// Constraint is a conjunction of present (∃) and absent (∄) features
// that leads to a leaf with positive training rows.
type Constraint struct {
	Literals []Literal
	Leaf     int
	Pos, Neg int
	Gini     float64
}

// Precision is the Laplace-smoothed share of positive rows in the
// constraint's leaf, (Pos+1)/(Pos+Neg+2): how likely an input that
// satisfies it is to run the function, with a leaf of few rows trusted
// less than a leaf of many with the same share.
func (c Constraint) Precision() float64 { return smoothedPrecision(c.Pos, c.Neg) }

func smoothedPrecision(pos, neg int) float64 { return float64(pos+1) / float64(pos+neg+2) }

// Literal is one test of a constraint: a feature present or absent.
type Literal struct {
	Feature int
	Present bool
}

// Constraints returns the covering constraints of a function's tree
// whose leaf gini is at most maxGini: the root-to-leaf paths that end in
// a covered leaf (positives at least as many as negatives) with gini at
// most maxGini, leaving out infeasible ones (a feature both required and
// forbidden, or a required k-path one of whose contiguous sub-paths is
// forbidden: a present path brings all its sub-paths). With maxGini of
// 0.5 or more (the most a two-class gini can be), every leaf that has
// positive rows makes a constraint, whatever its majority, so that a
// function that ran for some training input always has something to aim
// at. Constraints come ranked: by Precision, then by positive rows, then
// in the tree's order.
func (m *Model) Constraints(fn *FunctionModel, maxGini float64) []Constraint {
	var out []Constraint
	every := maxGini >= 0.5
	var walk func(i int, lits []Literal)
	walk = func(i int, lits []Literal) {
		n := &fn.Tree.Nodes[i]
		if n.Leaf() {
			ok := n.Pos > 0 && (every || n.Covered() && n.Gini <= maxGini)
			if ok && m.feasible(lits) {
				out = append(out, Constraint{Literals: append([]Literal(nil), lits...), Leaf: i, Pos: n.Pos, Neg: n.Neg, Gini: n.Gini})
			}
			return
		}
		walk(n.Absent, append(lits, Literal{n.Feature, false}))
		walk(n.Present, append(lits, Literal{n.Feature, true}))
	}
	walk(0, nil)
	slices.SortStableFunc(out, func(a, b Constraint) int {
		if c := cmp.Compare(b.Precision(), a.Precision()); c != 0 {
			return c
		}
		return cmp.Compare(b.Pos, a.Pos)
	})
	return out
}

// Covering returns the strict covering constraints of docs/algorithms.md
// (gini at most MaxConstraintGini), as explanations show them.
func (m *Model) Covering(fn *FunctionModel) []Constraint {
	return m.Constraints(fn, MaxConstraintGini)
}

func (m *Model) feasible(lits []Literal) bool {
	for _, a := range lits {
		if !a.Present {
			continue
		}
		for _, b := range lits {
			if b.Present {
				continue
			}
			fa, fb := m.Features[a.Feature], m.Features[b.Feature]
			if a.Feature == b.Feature || fa.IsPath() && fb.IsPath() && contains(fa.IDs, fb.IDs) {
				return false
			}
		}
	}
	return true
}

// contains reports whether q is a contiguous sub-path of p.
func contains(p, q []int) bool {
	if len(q) > len(p) {
		return false
	}
	for i := 0; i+len(q) <= len(p); i++ {
		match := true
		for j := range q {
			if p[i+j] != q[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// Text renders a constraint, one literal per line (∃/∄, or has/not).
func (m *Model) Text(c Constraint, ascii bool) string {
	lits := make([]string, len(c.Literals))
	for i, l := range c.Literals {
		prefix := map[[2]bool]string{{true, false}: "∃ ", {false, false}: "∄ ", {true, true}: "has ", {false, true}: "not "}[[2]bool{l.Present, ascii}]
		lits[i] = prefix + m.Features[l.Feature].Describe()
	}
	return strings.Join(lits, "\n")
}
