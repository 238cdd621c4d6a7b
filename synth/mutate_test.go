package synth_test

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestMutatorRealize: an unchanged sequence replays its input exactly,
// and every mutant and splice is a derivation of the grammar (it parses
// back) whose recorded choices replay it.
func TestMutatorRealize(t *testing.T) {
	for _, name := range []string{"expr", "json", "url", "css"} {
		t.Run(name, func(t *testing.T) {
			g := fixture.Grammar(t, name)
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
	g := fixture.Grammar(t, "expr")
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

// TestMutatorDraws pins the Mutator's random draws: a digest of the
// inputs and choices that fixed seeds' realizations, mutations and
// splices give, recorded from the Mutator as it was before it came to
// share its geometric draw with package fuzz. The targeting loop's
// results for a seed depend on every one of these draws, so a change
// that moves one changes them: it must be deliberate, and record the new
// digests here.
func TestMutatorDraws(t *testing.T) {
	want := map[string]string{
		"expr": "d29e2c01c360770c",
		"json": "677814895905444e",
		"url":  "8208a93a5200fe6b",
		"css":  "c20774834802f5b0",
	}
	for _, name := range []string{"expr", "json", "url", "css"} {
		t.Run(name, func(t *testing.T) {
			g := fixture.Grammar(t, name)
			h := sha256.New()
			for _, m := range []*synth.Mutator{
				synth.NewMutator(g, 5),
				{G: g, MaxDepth: 8, MaxNodes: 60, Rand: rand.New(rand.NewPCG(6, 0x70))},
				{G: g, MaxNodes: 300, MeanSpans: 1, MeanSpanLength: 9, Rand: rand.New(rand.NewPCG(7, 8))},
			} {
				var pool []*synth.Derivation
				for range 8 {
					pool = append(pool, m.Realize(nil))
				}
				for i := range 150 {
					a := pool[(i*5)%len(pool)]
					var choices []int
					switch i % 4 {
					case 0, 2:
						choices = m.Mutate(a.Choices)
					case 1:
						choices = m.Splice(a, pool[(i*7+3)%len(pool)])
					case 3:
						choices = m.Mutate(nil)
					}
					d := m.Realize(choices)
					fmt.Fprintf(h, "%v\n%q %v %d\n", choices, d.Text, d.Choices, len(d.Spans))
					pool = append(pool, d)
				}
			}
			if got := fmt.Sprintf("%x", h.Sum(nil))[:16]; got != want[name] {
				t.Errorf("the draws changed: digest %s, want %s", got, want[name])
			}
		})
	}
}

// TestMutateDraws pins a few mutations' values readably: the positions
// each changes in a sequence of zeros, and the raw values (31 bits,
// whatever the grammar) it gives them.
func TestMutateDraws(t *testing.T) {
	want := []map[int]int{
		{6: 332156593},
		{13: 2113090310},
		{16: 1948941385},
		{20: 2067078663, 21: 977798097, 22: 2132295778, 23: 877542728},
	}
	m := synth.NewMutator(fixture.Grammar(t, "json"), 1)
	for i, w := range want {
		got := map[int]int{}
		for j, v := range m.Mutate(make([]int, 24)) {
			if v != 0 {
				got[j] = v
			}
		}
		if !maps.Equal(got, w) {
			t.Errorf("mutation %d changed %v, want %v", i, got, w)
		}
	}
}
