package grammar

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ambiguous is the textbook ambiguous grammar: n operators give a
// Catalan number of trees, and Earley's parser cubic time.
const ambiguous = `E := E "+" E | "1" ;`

func sums(n int) []byte {
	return []byte("1" + strings.Repeat("+1", n))
}

// TestBudgetNamesAmbiguousRule: a parse of an ambiguous grammar that
// needs more than its budget fails with a *BudgetError that names the
// ambiguous rule and shows a part of the input with several trees, by
// every entry point, and whatever the tree limit.
func TestBudgetNamesAmbiguousRule(t *testing.T) {
	g := mustBuild(t, "amb.grammar", ambiguous)
	// A grammar whose ambiguity is one rule down, beside an unambiguous one.
	nested := mustBuild(t, "nested.grammar", `S := "(" L ")" ; L := X+ ; X := "a" | "a" "a" | "b" ;`)
	long := sums(3000)
	tests := []struct {
		name    string
		g       *Graph
		in      []byte
		opts    ParseOptions
		rule    string
		example string
	}{
		{"3000 operators, default budget", g, long, ParseOptions{}, "E", "1+1+1"},
		{"3000 operators, 16 trees", g, long, ParseOptions{Trees: 16}, "E", "1+1+1"},
		{"small budget", g, sums(40), ParseOptions{Budget: 2000}, "E", "1+1+1"},
		{"ambiguity inside a repetition", nested, []byte("(" + strings.Repeat("a", 4000) + ")"), ParseOptions{Budget: 20000}, "L", "aa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := map[string]func() error{
				"Graph.ParseContext": func() error {
					_, err := tt.g.ParseContext(context.Background(), tt.in, tt.opts)
					return err
				},
				"Graph.ParseAllContext": func() error {
					_, err := tt.g.ParseAllContext(context.Background(), tt.in, tt.opts)
					return err
				},
				"Graph.ParseLazyContext": func() error {
					_, err := tt.g.ParseLazyContext(context.Background(), tt.in, tt.opts)
					return err
				},
				"Parser.ParseContext": func() error {
					_, err := tt.g.NewParser().ParseContext(context.Background(), tt.in, tt.opts)
					return err
				},
				"Parser.ParseLazyContext": func() error {
					_, err := tt.g.NewParser().ParseLazyContext(context.Background(), tt.in, tt.opts)
					return err
				},
			}
			for _, name := range slices.Sorted(mapKeys(entries)) {
				err := entries[name]()
				var be *BudgetError
				if !errors.As(err, &be) {
					t.Fatalf("%s: error %v, want a *BudgetError", name, err)
				}
				if len(be.Rules) == 0 || be.Rules[0] != tt.rule || be.Example != tt.example {
					t.Errorf("%s: rules %q, example %q; want rule %s first and example %q", name, be.Rules, be.Example, tt.rule, tt.example)
				}
				msg := err.Error()
				for _, want := range []string{"parse budget of", "rule " + tt.rule + " is ambiguous", fmt.Sprintf("%q", tt.example), "arbor grammar check --conflicts"} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: %q does not say %q", name, msg, want)
					}
				}
			}
		})
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestBudgetOptions: what the budget lets through. The old entry points
// have the default budget; a negative budget is none; a budget large
// enough gives the trees; a budget that runs out while more trees are
// read gives the trees found.
func TestBudgetOptions(t *testing.T) {
	g := mustBuild(t, "amb.grammar", ambiguous)
	tests := []struct {
		name  string
		parse func() ([]*Tree, error)
		trees int // 0: a *BudgetError
	}{
		{"Parse, short input", func() ([]*Tree, error) { t, err := g.Parse(sums(30)); return []*Tree{t}, err }, 1},
		{"ParseAll, short input", func() ([]*Tree, error) { return g.ParseAll(sums(30), 16) }, 16},
		{"Parse, long input", func() ([]*Tree, error) { t, err := g.Parse(sums(3000)); return []*Tree{t}, err }, 0},
		{"ParseAll, long input", func() ([]*Tree, error) { return g.ParseAll(sums(3000), 16) }, 0},
		{"no budget", func() ([]*Tree, error) {
			return g.ParseAllContext(context.Background(), sums(200), ParseOptions{Trees: 3, Budget: -1})
		}, 3},
		{"budget enough for the chart, not for every tree", func() ([]*Tree, error) {
			var w work
			if _, err := g.earleyWork(context.Background(), sums(60), ParseOptions{Budget: -1}, false, &w); err != nil {
				return nil, err
			}
			// The chart's items, and too few steps for 1,000 trees.
			return g.ParseAllContext(context.Background(), sums(60), ParseOptions{Trees: 1000, Budget: w.items + 10})
		}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trees, err := tt.parse()
			var be *BudgetError
			switch {
			case tt.trees == 0:
				if !errors.As(err, &be) {
					t.Fatalf("error %v, want a *BudgetError", err)
				}
			case err != nil:
				t.Fatal(err)
			case tt.trees > 0 && len(trees) != tt.trees:
				t.Fatalf("%d trees, want %d", len(trees), tt.trees)
			case tt.trees < 0 && (len(trees) < 1 || len(trees) >= 1000):
				t.Fatalf("%d trees, want some and fewer than the limit", len(trees))
			}
		})
	}
}

// TestParseCancelled: a cancelled context stops a parse, by every entry
// point, with an error that wraps the context's; one cancelled while the
// chart is being built stops it there.
func TestParseCancelled(t *testing.T) {
	g := mustBuild(t, "amb.grammar", ambiguous)
	long := sums(3000)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	entries := []struct {
		name  string
		parse func(ctx context.Context) error
	}{
		{"Graph.ParseContext", func(ctx context.Context) error {
			_, err := g.ParseContext(ctx, long, ParseOptions{Budget: -1})
			return err
		}},
		{"Graph.ParseAllContext", func(ctx context.Context) error {
			_, err := g.ParseAllContext(ctx, long, ParseOptions{Budget: -1})
			return err
		}},
		{"Graph.ParseLazyContext", func(ctx context.Context) error {
			_, err := g.ParseLazyContext(ctx, long, ParseOptions{Budget: -1})
			return err
		}},
		{"Parser.ParseContext", func(ctx context.Context) error {
			_, err := g.NewParser().ParseContext(ctx, long, ParseOptions{Budget: -1})
			return err
		}},
		{"Parser.ParseLazyContext", func(ctx context.Context) error {
			_, err := g.NewParser().ParseLazyContext(ctx, long, ParseOptions{Budget: -1})
			return err
		}},
	}
	for _, tt := range entries {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.parse(done); !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
		})
	}
	t.Run("while building the chart", func(t *testing.T) {
		// The context is cancelled from inside the parse, by its own
		// look at it: the Earley loop must then stop.
		ctx := &cancelAfter{Context: context.Background(), looks: 3}
		_, err := g.ParseContext(ctx, long, ParseOptions{Budget: -1})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want one wrapping context.Canceled", err)
		}
		if !strings.Contains(err.Error(), "parse stopped at byte") {
			t.Errorf("error %q does not say where the parse stopped", err)
		}
	})
	t.Run("while reading trees", func(t *testing.T) {
		// Enough looks for the chart of 60 operators, then cancelled
		// while a million trees are read.
		var w work
		if _, err := g.earleyWork(context.Background(), sums(60), ParseOptions{Budget: -1}, false, &w); err != nil {
			t.Fatal(err)
		}
		ctx := &cancelAfter{Context: context.Background(), looks: w.items/checkEvery + 3}
		_, err := g.ParseAllContext(ctx, sums(60), ParseOptions{Trees: 1 << 20, Budget: -1})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want one wrapping context.Canceled", err)
		}
	})
}

// cancelAfter is a context that is cancelled from its looks+1st look at
// its error on.
type cancelAfter struct {
	context.Context
	looks int
}

func (c *cancelAfter) Err() error {
	if c.looks--; c.looks < 0 {
		return context.Canceled
	}
	return nil
}

// TestDefaultBudgetMargin holds the default budget a margin above what
// the bundled grammars' inputs need: generated inputs of each, and
// mutations of them, parsed by the general parser with 16 trees, take at
// most a tenth of the default budget.
func TestDefaultBudgetMargin(t *testing.T) {
	inputs := 200
	if testing.Short() {
		inputs = 40
	}
	for _, name := range bundledNames(t) {
		g := bundled(t, name)
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(31, uint64(len(name))))
			most, at := 0.0, ""
			for i := range inputs {
				in := []byte(randomTree(g, r, 4+i%8).String())
				if i%2 == 1 && len(in) > 0 {
					k := r.IntN(len(in))
					in = append(in[:k:k], append([]byte{in[r.IntN(len(in))]}, in[k:]...)...)
				}
				if len(in) > 50000 {
					continue
				}
				var w work
				_, err := g.earleyWork(context.Background(), in, ParseOptions{Trees: DefaultTreeLimit, Budget: -1}, false, &w)
				var pe *ParseError
				if err != nil && !errors.As(err, &pe) {
					t.Fatalf("input %q: %v", in, err)
				}
				if f := float64(max(w.items, w.steps)) / float64(DefaultBudget(len(in))); f > most {
					most, at = f, string(in)
				}
			}
			if most > 0.1 {
				t.Errorf("an input takes %.0f%% of the default budget: %q", 100*most, at)
			}
		})
	}
}

// TestMeasureBudget measures the work of the general parser over folders
// of generated inputs, for the choice of the default budget: set
// ARBOR_BUDGET_CORPUS to a folder of GRAMMAR.*.jsonl files, as 'arbor
// generate GRAMMAR --out -' writes them.
func TestMeasureBudget(t *testing.T) {
	dir := os.Getenv("ARBOR_BUDGET_CORPUS")
	if dir == "" {
		t.Skip("set ARBOR_BUDGET_CORPUS to a folder of generated inputs")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .jsonl files in %s: %v", dir, err)
	}
	graphs := map[string]*Graph{}
	t.Logf("%-24s %6s %9s %12s %12s %10s %12s", "file", "inputs", "max bytes", "max items", "max steps", "items/B", "small inputs")
	for _, file := range files {
		name, _, _ := strings.Cut(filepath.Base(file), ".")
		g := graphs[name]
		if g == nil {
			g = bundled(t, name)
			graphs[name] = g
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<26)
		n, longest, items, steps, small := 0, 0, 0, 0, 0
		perByte := 0.0
		for sc.Scan() {
			var line struct{ Input string }
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			in := []byte(line.Input)
			var w work
			if _, err := g.earleyWork(context.Background(), in, ParseOptions{Trees: DefaultTreeLimit, Budget: -1}, false, &w); err != nil {
				t.Errorf("%s: %v", file, err)
			}
			n++
			longest = max(longest, len(in))
			items, steps = max(items, w.items), max(steps, w.steps)
			if len(in) >= 100 {
				perByte = max(perByte, float64(max(w.items, w.steps))/float64(len(in)))
			} else {
				small = max(small, w.items, w.steps)
			}
		}
		f.Close()
		t.Logf("%-24s %6d %9d %12d %12d %10.1f %12d", filepath.Base(file), n, longest, items, steps, perByte, small)
	}
}
