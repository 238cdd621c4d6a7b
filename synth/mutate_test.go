package synth_test

import (
	"slices"
	"testing"

	"github.com/arbor-fuzz/arbor/synth"
)

// TestMutatorRealize: an unchanged sequence replays its input exactly,
// and every mutant and splice is a derivation of the grammar (it parses
// back) whose recorded choices replay it.
func TestMutatorRealize(t *testing.T) {
	for _, name := range []string{"expr", "json", "url", "css"} {
		t.Run(name, func(t *testing.T) {
			g := mustGrammar(t, name)
			m := synth.NewMutator(g, 1)
			m.MaxNodes = 300
			var pool []*synth.Derivation
			for range 20 {
				pool = append(pool, m.Realize(nil))
			}
			changed := 0
			for i := range 200 {
				a := pool[i%len(pool)]
				if again := m.Realize(a.Choices); again.Text != a.Text || !slices.Equal(again.Choices, a.Choices) {
					t.Fatalf("replay of %q gave %q", a.Text, again.Text)
				}
				var choices []int
				if i%2 == 0 {
					choices = m.Mutate(a.Choices)
				} else {
					choices = m.Splice(a, pool[(i*7+3)%len(pool)])
				}
				d := m.Realize(choices)
				mustParse(t, g, d.Text)
				if d.Text != a.Text {
					changed++
				}
				// Spans nest and lie within the choices.
				for _, s := range d.Spans {
					if s.Start < 0 || s.End < s.Start || s.End > len(d.Choices) {
						t.Fatalf("span %+v of %d choices", s, len(d.Choices))
					}
				}
				pool = append(pool, d)
			}
			if changed < 100 {
				t.Errorf("only %d of 200 mutants differ from their parent", changed)
			}
		})
	}
}

// TestSpliceKeepsSymbol: splicing replaces one symbol's subtree by the
// same symbol's subtree from the other input, so the spliced input's
// choices are a's outside one span and b's inside it.
func TestSpliceKeepsSymbol(t *testing.T) {
	g := mustGrammar(t, "expr")
	m := synth.NewMutator(g, 7)
	a := m.Realize(nil)
	b := m.Realize(nil)
	for a.Text == b.Text {
		b = m.Realize(nil)
	}
	for range 20 {
		s := m.Splice(a, b)
		d := m.Realize(s)
		mustParse(t, g, d.Text)
		// A prefix of a and a suffix of a surround the replaced part.
		p := 0
		for p < len(s) && p < len(a.Choices) && s[p] == a.Choices[p] {
			p++
		}
		q := 0
		for q < len(s)-p && q < len(a.Choices)-p && s[len(s)-1-q] == a.Choices[len(a.Choices)-1-q] {
			q++
		}
		mid := s[p : len(s)-q]
		if len(mid) > 0 && !containsRun(b.Choices, mid) {
			t.Errorf("spliced middle %v is not a run of b's choices %v", mid, b.Choices)
		}
	}
}

func containsRun(s, run []int) bool {
	for i := 0; i+len(run) <= len(s); i++ {
		if slices.Equal(s[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
