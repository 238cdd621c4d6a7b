package features

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
)

// Where returns a where clause over g (docs/notation.md) that holds on an
// input when feature f is present (present) or absent (!present): what a
// required relation asks of a generator, or a mined relation forbids. Of
// the forms that say it, the most readable one that compiles is returned
// (a scoped clause over rule names before one over descendants(self, ...)).
//
// Relation and Match features have clauses; the other kinds have none
// (k-paths and the one-node kinds are the grammar's shape, Adjacent is
// below its tokens, and a Clause feature is its clause already), and
// neither has a feature about the start rule, which no clause's names
// can reach.
//
// The clause reads the input as clauses do, which can differ from the
// feature at the edges: a Relation compares the i-th occurrences of its
// rules in the occurrence of its scope, not only its direct children;
// a Match compares every text, not only those of 64 bytes at most.
func Where(g *grammar.Graph, f Feature, present bool) (*grammar.Where, error) {
	var forms []*grammar.Where
	switch f.Kind {
	case Relation:
		forms = relationForms(g, f, present)
	case Match:
		forms = matchForms(g, f, present)
	default:
		return nil, fmt.Errorf("a %s feature has no where clause", f.Kind)
	}
	if len(forms) == 0 {
		return nil, fmt.Errorf("%s: no where clause says it", f.describeRelational())
	}
	var first error
	for _, w := range forms {
		if _, err := constraint.CompileClauses(g, []*grammar.Where{w}); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		return w, nil
	}
	return nil, fmt.Errorf("%s: no form of it compiles: %w", f.describeRelational(), first)
}

// startRule is the rule a top-level clause's scope is.
func startRule(g *grammar.Graph) string { return g.Start }

// rules reports whether every name is a rule of g. A feature from a
// model file names what its writer chose; only rule names go into a
// clause's text.
func rules(g *grammar.Graph, names ...string) bool {
	for _, n := range names {
		if _, ok := g.Bodies[n]; !ok {
			return false
		}
	}
	return true
}

// nests reports whether rule can occur inside itself (some right-hand
// side refers to it), so that a clause's name for it does not see every
// occurrence (names skip nested occurrences of the scope).
func nests(g *grammar.Graph, rule string) bool {
	for _, n := range g.Nodes {
		if n != nil && n.Kind == grammar.KindRef && n.Name == rule && n.Parent != nil {
			return true
		}
	}
	return false
}

// relationRef is one side of a Relation's comparison: the i-th
// occurrence of Rule, and the field compared.
type relationRef struct {
	rule  string
	i     int
	field string
}

func parseRelationRef(s string) (relationRef, error) {
	name, rest, ok := strings.Cut(s, "[")
	idx, field, ok2 := strings.Cut(rest, "].")
	i, err := strconv.Atoi(idx)
	if !ok || !ok2 || err != nil || name == "" || (field != "num" && field != "text") {
		return relationRef{}, errors.New("malformed relation " + strconv.Quote(s))
	}
	return relationRef{name, i, field}, nil
}

// parseRelation reads a Relation feature's Text: "A[i].f op B[j].f".
func parseRelation(text string) (a, b relationRef, op string, err error) {
	parts := strings.Fields(text)
	if len(parts) != 3 {
		return a, b, "", errors.New("malformed relation " + strconv.Quote(text))
	}
	if a, err = parseRelationRef(parts[0]); err == nil {
		b, err = parseRelationRef(parts[2])
	}
	return a, b, parts[1], err
}

func relationForms(g *grammar.Graph, f Feature, present bool) []*grammar.Where {
	a, b, op, err := parseRelation(f.Text)
	if err != nil || f.Symbol == startRule(g) || !rules(g, f.Symbol, a.rule, b.rule) || !slices.Contains([]string{"<", "==", ">", "!="}, op) {
		return nil
	}
	var forms []*grammar.Where
	if !present {
		// In every occurrence of the scope, not: the rules' names there
		// are one node or a list, whichever the grammar allows; only the
		// form that fits compiles.
		type side struct{ guard, value string }
		sides := func(r relationRef) []side {
			out := []side{{fmt.Sprintf("len(%s) > %d", r.rule, r.i), fmt.Sprintf("%s[%d].%s", r.rule, r.i, r.field)}}
			if r.i == 0 {
				out = append(out, side{r.rule + " != nil", r.rule + "." + r.field})
			}
			return out
		}
		for _, x := range sides(a) {
			for _, y := range sides(b) {
				if a.rule == b.rule && (strings.HasPrefix(x.guard, "len") != strings.HasPrefix(y.guard, "len")) {
					continue // one rule has one shape
				}
				guard := x.guard + " && " + y.guard
				if x.guard == y.guard {
					guard = x.guard
				}
				if a.rule == b.rule && strings.HasPrefix(x.guard, "len") {
					guard = fmt.Sprintf("len(%s) > %d", a.rule, max(a.i, b.i))
				}
				forms = append(forms, &grammar.Where{Scope: f.Symbol,
					Expr: fmt.Sprintf("!(%s && %s %s %s)", guard, x.value, op, y.value)})
			}
		}
	}
	// Anywhere in the input: some occurrence of the scope whose own
	// occurrences of the two rules compare so.
	some := fmt.Sprintf(`any(descendants(self, %q), {let p = #; let a = filter(descendants(p, %q), {enclosing(#, %q) == p}); `+
		`let b = filter(descendants(p, %q), {enclosing(#, %q) == p}); len(a) > %d && len(b) > %d && a[%d].%s %s b[%d].%s})`,
		f.Symbol, a.rule, f.Symbol, b.rule, f.Symbol, a.i, b.i, a.i, a.field, op, b.i, b.field)
	if !present {
		some = "!" + some
	}
	return append(forms, &grammar.Where{Expr: some})
}

func matchForms(g *grammar.Graph, f Feature, present bool) []*grammar.Where {
	start := startRule(g)
	if f.Symbol == start || f.Text == start || !rules(g, f.Symbol, f.Text) {
		return nil
	}
	var names [][2]string // ways to name the two rules' occurrences in the input
	if !nests(g, start) {
		names = append(names, [2]string{f.Symbol, f.Text})
	}
	names = append(names, [2]string{fmt.Sprintf("descendants(self, %q)", f.Symbol), fmt.Sprintf("descendants(self, %q)", f.Text)})
	var forms []*grammar.Where
	for _, n := range names {
		a, b := n[0], n[1]
		var expr string
		elsewhere := "(before(#, x) || after(#, x))"
		switch {
		case f.At == MatchSome && f.Symbol == f.Text:
			expr = fmt.Sprintf("len(uniq(map(%s, .text))) == len(%s)", a, a)
			if present {
				expr = fmt.Sprintf("len(uniq(map(%s, .text))) < len(%s)", a, a)
			}
		case f.At == MatchSome:
			expr = fmt.Sprintf("any(%s, {let x = #; any(%s, {.text == x.text && %s})})", a, b, elsewhere)
			if !present {
				expr = fmt.Sprintf("none(%s, {let x = #; any(%s, {.text == x.text && %s})})", a, b, elsewhere)
			}
		case f.At == MatchNone || f.At == MatchNoneBefore:
			where := elsewhere
			if f.At == MatchNoneBefore {
				where = "before(#, x)"
			}
			expr = fmt.Sprintf("all(%s, {let x = #; any(%s, {.text == x.text && %s})})", a, b, where)
			if present {
				expr = fmt.Sprintf("any(%s, {let x = #; none(%s, {.text == x.text && %s})})", a, b, where)
			}
		default:
			return nil
		}
		forms = append(forms, &grammar.Where{Expr: expr})
	}
	return forms
}
