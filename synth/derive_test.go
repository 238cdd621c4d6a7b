package synth

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
)

// TestDeriveRegex: the decisions derived for a text replay, through the
// generator's own regex draw, to exactly that text; texts outside the
// language have no derivation.
func TestDeriveRegex(t *testing.T) {
	tests := []struct {
		re   string
		text string
		ok   bool
	}{
		{`[a-z]+`, "hello", true},
		{`[a-z]+`, "", false},
		{`[a-z]+`, "Hello", false},
		{`(http|https|ftp)`, "https", true},
		{`[0-9]{1,3}(\.[0-9]{1,3}){3}`, "10.0.255.7", true},
		{`[0-9]{1,3}(\.[0-9]{1,3}){3}`, "10.0.2555.7", false},
		{`a*a*b`, "aaab", true},
		// The draw writes a case-folded literal as parsed (upper case
		// here), so only that text derives.
		{`(?i)select`, "SeLeCt", false},
		{`(?i)select`, "SELECT", true},
		{`[^"\\]*`, `x y-z`, true},
		{`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, "-12.5E+3", true},
		{`(a|ab)(c|bcd)(d*)`, "abcd", true},
		{`x?`, "", true},
		{`.`, "\n", false},
		{`λ[α-ω]+`, "λαβ", true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.re, tt.text), func(t *testing.T) {
			dec, ok := deriveRegex(tt.re, tt.text)
			if ok != tt.ok {
				t.Fatalf("derivable %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			ast, err := grammar.Parse("t.grammar", []byte("S := /"+tt.re+"/ ;"))
			if err != nil {
				t.Fatal(err)
			}
			g, err := grammar.Build(ast)
			if err != nil {
				t.Fatal(err)
			}
			replay := &Replay{Choices: dec}
			if got := NewGenerator(g, replay, RandomPolicy).Generate().String(); got != tt.text || replay.Exhausted {
				t.Errorf("replayed %v to %q (exhausted %v), want %q", dec, got, replay.Exhausted, tt.text)
			}
		})
	}
}

// FuzzDeriveRegex: whatever the text, a derivation, when there is one,
// replays to it.
func FuzzDeriveRegex(f *testing.F) {
	f.Add(`[a-c]+(x|yz)*`, "abyzx")
	f.Add(`(a|b)?c{2,3}`, "bccc")
	f.Fuzz(func(t *testing.T, re, text string) {
		if len(re) > 40 || len(text) > 20 {
			return
		}
		ast, err := grammar.Parse("t.grammar", []byte("S := /"+re+"/ ;"))
		if err != nil {
			return
		}
		g, err := grammar.Build(ast)
		if err != nil {
			return
		}
		// The notation has its own escapes: derive from the regex as parsed.
		var src string
		for _, n := range g.Nodes {
			switch n.Kind {
			case grammar.KindRegex:
				if src != "" {
					return // more than one terminal
				}
				src = n.Name
			case grammar.KindRef:
			default:
				return // the rule is more than one regex
			}
		}
		dec, ok := deriveRegex(src, text)
		if !ok {
			return
		}
		if got := NewGenerator(g, &Replay{Choices: dec}, RandomPolicy).Generate().String(); got != text {
			t.Errorf("%q: replayed %v to %q, want %q", re, dec, got, text)
		}
	})
}

// digestGrammars are the bundled grammars the digests below were recorded
// on: grammars bundled since are not in them, so that adding one does
// not change what they pin.
var digestGrammars = []string{"cron", "css", "csv", "expr", "exprlang", "gotemplate", "govaluate", "graphql", "html", "ini", "json", "markdown", "regexp", "toml", "url", "xml", "yaml"}

// TestDeriveRegexDecisions pins deriveRegex's decisions: a digest of
// what it derives for the values the bundled grammars' regex terminals
// take and for texts near them (one rune more, one less, upper case),
// recorded before it became a mode of drawDeriver. The solver replays
// these decisions (steer), so its inputs for a seed depend on them.
func TestDeriveRegexDecisions(t *testing.T) {
	h := sha256.New()
	cases, derived := 0, 0
	for _, name := range digestGrammars {
		g, err := datasets.Grammar(name)
		if err != nil {
			t.Fatal(err)
		}
		gen := NewGenerator(g, NewRandom(1), RandomPolicy)
		gen.MaxNodes = 400
		seen := map[[2]string]bool{}
		for range 20 {
			gen.Generate().Walk(func(s *grammar.Tree, _ int) bool {
				if s.Node.Kind != grammar.KindRegex {
					return true
				}
				v := []rune(s.Value)
				texts := []string{s.Value, s.Value + "x", strings.ToUpper(s.Value)}
				if len(v) > 0 {
					texts = append(texts, string(v[:len(v)-1]), string(v[0])+s.Value)
				}
				for _, text := range texts {
					k := [2]string{s.Node.Name, text}
					if seen[k] {
						continue
					}
					seen[k] = true
					dec, ok := deriveRegex(k[0], k[1])
					cases++
					if ok {
						derived++
					}
					fmt.Fprintf(h, "%q %q %v %v\n", k[0], k[1], ok, dec)
				}
				return true
			})
		}
	}
	t.Logf("%d of %d texts derive", derived, cases)
	if got, want := fmt.Sprintf("%x", h.Sum(nil))[:16], "6873a5b8541a98cc"; got != want {
		t.Errorf("the decisions changed: digest %s, want %s", got, want)
	}
}
