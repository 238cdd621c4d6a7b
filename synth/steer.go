package synth

import (
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// FeatureLiteral is a literal of a constraint over a feature that is not a k-path
// (a sibling pair, a terminal's value or character class, a symbol's
// length, count or number). The solver steers toward it as described at
// steering, and checks it on every tree it builds.
type FeatureLiteral struct {
	Feature features.Feature
	Present bool
}

// checker tells which Checks a tree satisfies, through a vocabulary of
// just their features.
type checker struct {
	checks []FeatureLiteral
	v      *features.Vocabulary
	ids    []int // per check: its feature id in v
	has    []bool
}

func newChecker(g *grammar.Graph, checks []FeatureLiteral) *checker {
	if len(checks) == 0 {
		return nil
	}
	var kinds features.Kinds
	for _, c := range checks {
		kinds = kinds.With(c.Feature.Kind)
	}
	ch := &checker{checks: checks, v: features.NewVocabulary(g, features.Options{MaxK: 1, Kinds: kinds})}
	for _, c := range checks {
		ch.ids = append(ch.ids, ch.v.Intern(c.Feature))
	}
	ch.has = make([]bool, ch.v.Len())
	return ch
}

// holds returns, per check, whether the trees (one input's) satisfy it.
func (ch *checker) holds(trees ...*grammar.Tree) []bool {
	clear(ch.has)
	for _, id := range ch.v.Features(trees...) {
		ch.has[id] = true
	}
	out := make([]bool, len(ch.checks))
	for i, c := range ch.checks {
		out[i] = ch.has[ch.ids[i]] == c.Present
	}
	return out
}

// steering is what the solver's greedy does for a constraint's checks:
//
//   - a required sibling pair, value, class, length or number adds its
//     nodes (a symbol's first occurrence in the grammar, for lengths,
//     counts and numbers) as goals the greedy goes toward, like the
//     start of a required k-path, without counting them as literals;
//   - a required value is drawn: the first instance of its terminal in a
//     completion replays the regex decisions that derive the value;
//   - a class steers the terminal's character draws: toward a character
//     of the class (the first character, for "first"; every one, for
//     "last" and "anywhere", with the most repetitions inside the
//     terminal) or, for an absent class, away from it;
//   - a length, count or number threshold steers repetition counts: the
//     most repetitions under the symbol (or, for a count, of a part that
//     leads to it) when the threshold must be met, the fewest when not;
//
// What stays unsteered (an absent sibling pair or value) is still
// checked on every completion, and the outer search varies decisions to
// meet it.
type steering struct {
	hints  []features.Path      // extra goals for the greedy
	values map[int][]int        // terminal id -> decisions deriving its value
	class  map[int][]classSteer // terminal id -> class steers
	reps   map[string]int       // symbol label -> +1 most repetitions, -1 fewest
	counts []countSteer         // symbols whose count is steered
	nodes  map[string][]*grammar.Node
}

type classSteer struct {
	class   string
	at      string
	present bool
}

type countSteer struct {
	nodes []*grammar.Node
	more  bool
}

func newSteering(g *grammar.Graph, checks []FeatureLiteral) *steering {
	st := &steering{values: map[int][]int{}, class: map[int][]classSteer{}, reps: map[string]int{}}
	// The symbols named by length, count and number literals; most
	// constraints (all of a k-path model's) have none, and solving one
	// runs many times.
	var symbols map[string][]*grammar.Node
	nodesOf := func(label string) []*grammar.Node {
		if symbols == nil {
			symbols = map[string][]*grammar.Node{}
			for _, n := range g.Nodes {
				if n.Kind.Symbolic() {
					symbols[n.Label()] = append(symbols[n.Label()], n)
				}
			}
		}
		return symbols[label]
	}
	hint := func(id int) {
		if id >= 0 && g.Node(id) != nil {
			st.hints = append(st.hints, features.Path{id})
		}
	}
	for _, c := range checks {
		f := c.Feature
		switch f.Kind {
		case features.Sibling:
			if c.Present && len(f.Path) == 2 {
				hint(f.Path[0])
				hint(f.Path[1])
			}
		case features.Value:
			if len(f.Path) != 1 || g.Node(f.Path[0]) == nil {
				continue
			}
			if c.Present {
				hint(f.Path[0])
				if n := g.Node(f.Path[0]); n.Kind == grammar.KindRegex {
					if dec, ok := deriveRegex(n.Name, f.Text); ok {
						st.values[n.ID] = dec
					}
				}
			}
		case features.Class:
			if len(f.Path) != 1 || g.Node(f.Path[0]) == nil {
				continue
			}
			if c.Present {
				hint(f.Path[0])
				if f.At != "first" {
					// More characters, more places for one of the class.
					st.reps[g.Node(f.Path[0]).Label()] = 1
				}
			}
			st.class[f.Path[0]] = append(st.class[f.Path[0]], classSteer{class: f.Text, at: f.At, present: c.Present})
		case features.Length, features.Number:
			if ns := nodesOf(f.Symbol); len(ns) > 0 {
				if c.Present {
					hint(ns[0].ID)
					st.reps[f.Symbol] = 1
				} else {
					st.reps[f.Symbol] = -1
				}
			}
		case features.Occurrences:
			if ns := nodesOf(f.Symbol); len(ns) > 0 {
				if c.Present {
					hint(ns[0].ID)
				}
				st.counts = append(st.counts, countSteer{nodes: ns, more: c.Present})
			}
		}
	}
	return st
}

// regexChar steers a character draw of terminal id; instance counts the
// characters drawn so far in this instance of it. It returns false when
// nothing steers the draw.
func (st *steering) regexChar(id int, p Point, instance int, pick func([]int) int) (int, bool) {
	cs := st.class[id]
	if len(cs) == 0 {
		return 0, false
	}
	opts := p.Options
	var want, avoid []string
	for _, c := range cs {
		switch {
		case !c.present:
			avoid = append(avoid, c.class)
		case c.at == "first" && instance > 0:
		default:
			want = append(want, c.class)
		}
	}
	var good []int
	for _, o := range opts {
		cls := features.ClassOf(rune(o))
		ok := len(want) == 0
		for _, w := range want {
			if cls == w {
				ok = true
			}
		}
		for _, a := range avoid {
			if cls == a {
				ok = false
			}
		}
		if ok {
			good = append(good, o)
		}
	}
	if len(good) == 0 {
		return 0, false // the class has no character here (the candidates are all its printable ASCII)
	}
	return pick(good), true
}

// repetition steers a repetition count: +1 for the most, -1 for the
// fewest, 0 for no steer. labels are the labels of the symbols the
// repetition is directly under (its rule's, and a terminal's own).
func (st *steering) repetition(g *grammar.Graph, p Point) int {
	if len(st.reps) > 0 {
		// The innermost symbolic ancestors: the terminal itself (inside a
		// regex) and the rule the repetition is written in.
		for i := len(p.Stack) - 1; i >= 0 && i >= len(p.Stack)-2; i-- {
			if n := g.Node(p.Stack[i]); n != nil {
				if d := st.reps[n.Label()]; d != 0 {
					return d
				}
			}
		}
	}
	if p.Kind == Repetition && len(st.counts) > 0 && p.Node.Kind == grammar.KindQuant {
		for _, c := range st.counts {
			for _, n := range c.nodes {
				if d := g.Distance(p.Node.Children[0], n); d >= 0 && d <= 4 {
					if c.more {
						return 1
					}
					return -1
				}
			}
		}
	}
	return 0
}
