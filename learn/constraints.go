package learn

import (
	"strings"
)

// MaxConstraintGini is the impurity up to which a covered leaf makes a
// covering constraint (DESIGN.md §7).
const MaxConstraintGini = 0.3

// Constraint is a conjunction of present (∃) and absent (∄) features
// that leads to a covered leaf.
type Constraint struct {
	Literals []Literal
	Leaf     int
	Pos, Neg int
	Gini     float64
}

// Literal is one test of a constraint: a feature present or absent.
type Literal struct {
	Feature int
	Present bool
}

// Constraints returns the covering constraints of a function's tree: the
// root-to-leaf paths that end in a covered leaf with gini at most
// MaxConstraintGini, leaving out infeasible ones (a feature both required
// and forbidden, or a required k-path one of whose contiguous sub-paths is
// forbidden: a present path brings all its sub-paths).
func (m *Model) Constraints(fn *FunctionModel) []Constraint {
	var out []Constraint
	var walk func(i int, lits []Literal)
	walk = func(i int, lits []Literal) {
		n := &fn.Tree.Nodes[i]
		if n.Leaf() {
			if n.Covered() && n.Gini <= MaxConstraintGini && m.feasible(lits) {
				out = append(out, Constraint{Literals: append([]Literal(nil), lits...), Leaf: i, Pos: n.Pos, Neg: n.Neg, Gini: n.Gini})
			}
			return
		}
		walk(n.Absent, append(lits, Literal{n.Feature, false}))
		walk(n.Present, append(lits, Literal{n.Feature, true}))
	}
	walk(0, nil)
	return out
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
