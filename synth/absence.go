package synth

import (
	"github.com/arbor-fuzz/arbor/grammar"
)

// WithAbsence rewrites a grammar so that the absence of an optional part
// is a symbol too: every X?, X* and X{0,n} becomes ("" | X), ("" | X+) or
// ("" | X{1,n}). Covering the k-paths of the rewritten grammar then also
// covers "this part left out". Inputs generated from it are inputs of the
// original grammar.
func WithAbsence(src *grammar.Grammar) (*grammar.Graph, error) {
	out := &grammar.Grammar{Filename: src.Filename}
	for _, r := range src.Rules {
		out.Rules = append(out.Rules, &grammar.Rule{Name: r.Name, Pos: r.Pos, Body: absent(r.Body)})
	}
	return grammar.Build(out)
}

func absent(e grammar.Expr) grammar.Expr {
	switch e := e.(type) {
	case *grammar.Alt:
		alts := make([]grammar.Expr, len(e.Alts))
		for i, a := range e.Alts {
			alts[i] = absent(a)
		}
		return &grammar.Alt{At: e.At, Alts: alts}
	case *grammar.Seq:
		items := make([]grammar.Expr, len(e.Items))
		for i, x := range e.Items {
			items[i] = absent(x)
		}
		return &grammar.Seq{At: e.At, Items: items}
	case *grammar.Repeat:
		x := absent(e.X)
		if e.Min > 0 {
			return &grammar.Repeat{At: e.At, X: x, Min: e.Min, Max: e.Max}
		}
		var present grammar.Expr = x
		if e.Max != 1 {
			present = &grammar.Repeat{At: e.At, X: x, Min: 1, Max: e.Max}
		}
		return &grammar.Alt{At: e.At, Alts: []grammar.Expr{&grammar.Lit{At: e.At}, present}}
	}
	return e
}
