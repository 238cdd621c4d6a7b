package grammar

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The analyses of analysis.go and sets.go against straightforward
// reference implementations: the round-based fixed points and the
// per-rule depth-first search they replaced (issue 17, item 4), kept here.

// rawGraph builds the graph as Build does but runs none of the analyses
// (and so reports no unproductive rules), so that they can be compared on
// grammars Build refuses too. It returns nil if the grammar has errors
// before the analyses.
func rawGraph(src []byte) *Graph {
	ast, err := Parse("t.grammar", src)
	if err != nil || len(ast.Rules) == 0 {
		return nil
	}
	var errs ErrorList
	g := &Graph{Source: ast, Start: ast.Rules[0].Name, Bodies: map[string]*Node{}}
	defs := map[string]*Rule{}
	for _, r := range ast.Rules {
		if _, ok := defs[r.Name]; ok {
			return nil
		}
		defs[r.Name] = r
		g.Rules = append(g.Rules, r.Name)
	}
	b := &builder{defs: defs, errs: &errs}
	for _, name := range g.Rules {
		g.Bodies[name] = b.node(defs[name].Body, name, nil, 0)
	}
	for _, ref := range b.refs {
		body, ok := g.Bodies[ref.Name]
		if !ok {
			return nil
		}
		ref.Children = []*Node{body}
	}
	if len(errs) > 0 {
		return nil
	}
	g.Root = g.Bodies[g.Start]
	g.number()
	for _, name := range g.Rules {
		if g.Bodies[name].ID < 0 {
			return nil
		}
	}
	for _, n := range g.Nodes {
		if n.Kind == KindRegex {
			m, err := compileMatcher(n.Name)
			if err != nil {
				return nil
			}
			n.re = m
		}
	}
	g.buildParents()
	return g
}

// refAnalyses is the round-based fixed point: every node re-evaluated
// from its children until nothing changes.
func refAnalyses(g *Graph) (nullable []bool, shortest, minDepth []int) {
	n := len(g.Nodes)
	nullable, shortest, minDepth = make([]bool, n), make([]int, n), make([]int, n)
	for i := range shortest {
		shortest[i], minDepth[i] = infinite, infinite
	}
	eval := func(nd *Node) (bool, int, int) {
		switch nd.Kind {
		case KindLit:
			return nd.Name == "", 1, 0
		case KindRegex:
			return nd.re.nullable, 1, 0
		case KindRef:
			c := nd.Children[0].ID
			return nullable[c], min(infinite, 1+shortest[c]), min(infinite, 1+minDepth[c])
		case KindAlt:
			nl, sh, md := false, infinite, infinite
			for _, c := range nd.Children {
				nl = nl || nullable[c.ID]
				sh = min(sh, shortest[c.ID])
				md = min(md, minDepth[c.ID])
			}
			return nl, sh, md
		case KindCat:
			nl, sh, md := true, 0, 0
			for _, c := range nd.Children {
				nl = nl && nullable[c.ID]
				sh = min(infinite, sh+shortest[c.ID])
				md = max(md, minDepth[c.ID])
			}
			return nl, sh, md
		case KindQuant:
			c := nd.Children[0].ID
			if nd.Min == 0 {
				return true, 0, 0
			}
			return nullable[c], min(infinite, nd.Min*shortest[c]), minDepth[c]
		}
		return false, infinite, infinite
	}
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			nl, sh, md := eval(g.Nodes[i])
			if nl != nullable[i] || sh < shortest[i] || md < minDepth[i] {
				nullable[i] = nl
				shortest[i] = min(sh, shortest[i])
				minDepth[i] = min(md, minDepth[i])
				changed = true
			}
		}
	}
	return nullable, shortest, minDepth
}

// refLeftRecursive searches, from every rule, the rules its leftmost
// references reach.
func refLeftRecursive(g *Graph) []string {
	left := map[string][]string{}
	var walk func(rule string, n *Node)
	walk = func(rule string, n *Node) {
		switch n.Kind {
		case KindRef:
			left[rule] = append(left[rule], n.Name)
		case KindAlt:
			for _, c := range n.Children {
				walk(rule, c)
			}
		case KindCat:
			for _, c := range n.Children {
				walk(rule, c)
				if !g.nullable[c.ID] {
					break
				}
			}
		case KindQuant:
			walk(rule, n.Children[0])
		}
	}
	for _, r := range g.Rules {
		walk(r, g.Bodies[r])
	}
	var out []string
	for _, r := range g.Rules {
		seen := map[string]bool{}
		stack := append([]string(nil), left[r]...)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if x == r {
				out = append(out, r)
				break
			}
			if !seen[x] {
				seen[x] = true
				stack = append(stack, left[x]...)
			}
		}
	}
	sort.Strings(out)
	return out
}

// refFirstFollow is the round-based fixed point of the first and follow sets.
func refFirstFollow(g *Graph) (first, follow []byteSet) {
	n := len(g.Nodes)
	first, follow = make([]byteSet, n), make([]byteSet, n)
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			nd := g.Nodes[i]
			f := &first[i]
			switch nd.Kind {
			case KindLit:
				if nd.Name != "" && !f.has(int(nd.Name[0])) {
					f.add(int(nd.Name[0]))
					changed = true
				}
			case KindRegex:
				changed = f.union(&nd.re.first) || changed
			case KindRef, KindAlt, KindQuant:
				for _, c := range nd.Children {
					changed = f.union(&first[c.ID]) || changed
				}
			case KindCat:
				for _, c := range nd.Children {
					changed = f.union(&first[c.ID]) || changed
					if !g.nullable[c.ID] {
						break
					}
				}
			}
		}
	}
	follow[g.Root.ID].add(eof)
	for changed := true; changed; {
		changed = false
		for _, nd := range g.Nodes {
			f := &follow[nd.ID]
			switch nd.Kind {
			case KindRef, KindAlt:
				for _, c := range nd.Children {
					changed = follow[c.ID].union(f) || changed
				}
			case KindQuant:
				c := nd.Children[0]
				changed = follow[c.ID].union(f) || changed
				if nd.Max != 1 {
					changed = follow[c.ID].union(&first[c.ID]) || changed
				}
			case KindCat:
				for i, c := range nd.Children {
					var rest byteSet
					restNullable := true
					for _, d := range nd.Children[i+1:] {
						rest.union(&first[d.ID])
						if !g.nullable[d.ID] {
							restNullable = false
							break
						}
					}
					if restNullable {
						rest.union(f)
					}
					changed = follow[c.ID].union(&rest) || changed
				}
			}
		}
	}
	return first, follow
}

// refDistance is a forward breadth-first search from one node.
func refDistance(g *Graph, from, to *Node) int {
	d := map[*Node]int{from: 0}
	queue := []*Node{from}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == to {
			return d[n]
		}
		for _, c := range n.Children {
			if _, ok := d[c]; !ok {
				d[c] = d[n] + 1
				queue = append(queue, c)
			}
		}
	}
	return -1
}

// randomGrammar writes a small seeded grammar of every construct:
// empty literals, nullable regexes, bounded and unbounded quantifiers,
// left and mutual recursion, and rules that may be unproductive. Every
// rule is referenced by an earlier one, so all are reachable.
func randomGrammar(r *rand.Rand) string {
	n := 1 + r.IntN(8)
	name := func(i int) string { return fmt.Sprintf("R%d", i) }
	terms := []string{`"a"`, `"b"`, `""`, `"ab"`, `/x*/`, `/[cd]/`, `/e?f/`}
	var expr func(depth int) string
	expr = func(depth int) string {
		switch x := r.IntN(10); {
		case x < 3 || depth > 2:
			if r.IntN(2) == 0 {
				return name(r.IntN(n))
			}
			return terms[r.IntN(len(terms))]
		case x < 5:
			parts := make([]string, 2+r.IntN(3))
			for i := range parts {
				parts[i] = expr(depth + 1)
			}
			return "(" + strings.Join(parts, " | ") + ")"
		case x < 8:
			parts := make([]string, 2+r.IntN(3))
			for i := range parts {
				parts[i] = expr(depth + 1)
			}
			return "(" + strings.Join(parts, " ") + ")"
		default:
			return "(" + expr(depth+1) + ")" + []string{"?", "*", "+", "{2}", "{0,3}", "{3,}", "{1,2}"}[r.IntN(7)]
		}
	}
	var b strings.Builder
	for i := range n {
		alts := []string{expr(0)}
		for c := 2*i + 1; c <= 2*i+2 && c < n; c++ {
			alts = append(alts, expr(1)+" "+name(c))
		}
		fmt.Fprintf(&b, "%s := %s ;\n", name(i), strings.Join(alts, " | "))
	}
	return b.String()
}

// compareAnalyses checks every analysis of a raw graph against its reference.
func compareAnalyses(t *testing.T, g *Graph, distances bool) {
	t.Helper()
	nullable, shortest, minDepth := refAnalyses(g)
	if got := g.nullables(); !slices.Equal(got, nullable) {
		t.Fatalf("nullable = %v, want %v", got, nullable)
	}
	g.nullable = nullable
	if got := g.least(false); !slices.Equal(got, shortest) {
		t.Fatalf("shortest = %v, want %v", got, shortest)
	}
	if got := g.least(true); !slices.Equal(got, minDepth) {
		t.Fatalf("minDepth = %v, want %v", got, minDepth)
	}
	if got, want := g.leftRecursive(), refLeftRecursive(g); !reflect.DeepEqual(got, want) {
		t.Fatalf("left-recursive rules = %v, want %v", got, want)
	}
	ll := &ll1{first: make([]byteSet, len(g.Nodes)), follow: make([]byteSet, len(g.Nodes))}
	g.firstFollow(ll)
	first, follow := refFirstFollow(g)
	if !slices.Equal(ll.first, first) {
		t.Fatalf("first sets differ")
	}
	if !slices.Equal(ll.follow, follow) {
		t.Fatalf("follow sets differ")
	}
	if distances {
		// Every pair would be quadratic in the reference's cost too: a
		// few targets, every source.
		for i := 0; i < len(g.Nodes); i += 1 + len(g.Nodes)/5 {
			to := g.Nodes[i]
			for _, from := range g.Nodes {
				if got, want := g.Distance(from, to), refDistance(g, from, to); got != want {
					t.Fatalf("Distance(%v, %v) = %d, want %d", from, to, got, want)
				}
			}
		}
	}
}

func TestAnalysesAgreeWithReference(t *testing.T) {
	tests := []struct{ name, src string }{
		{"direct left recursion", `E := E "+" T | T ; T := "x" ;`},
		{"mutual left recursion", `A := B "a" | "a" ; B := A "b" | C ; C := "c" ;`},
		{"left recursion after a nullable prefix", `S := N S "x" | "y" ; N := "n"? ;`},
		{"not left recursion", `S := "(" S ")" | "x" ;`},
		{"self reference through a quantifier", `S := S* "x" ;`},
		{"unproductive cycle", `S := A | "s" ; A := B "a" ; B := A ;`},
		{"unproductive via a Cat", `S := "x" | "y" T ; T := T "t" ;`},
		{"empty alternative", `S := "a" S | ;`},
		{"large repetition counts", `S := ("a"{1000}){1000} | T ; T := (("b"{1000}){1000}){1000} ;`},
		{"nested repetitions", `S := ((A? B*)+ "c"){2,5} ; A := "a" A | "" ; B := /b*/ ;`},
		{"long chain", chainGrammar(2000)},
	}
	for _, name := range bundledNames(t) {
		src, err := os.ReadFile("../datasets/grammars/" + name + ".grammar")
		if err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct{ name, src string }{"bundled " + name, string(src)})
	}
	tests = append(tests, struct{ name, src string }{"synthetic", SyntheticGrammar(300, 2)})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := rawGraph([]byte(tt.src))
			if g == nil {
				t.Fatal("the grammar does not build")
			}
			compareAnalyses(t, g, len(g.Nodes) <= 200)
		})
	}
}

// chainGrammar is a left-recursive chain of n rules, deeper than the
// recursive searches could bear at large n.
func chainGrammar(n int) string {
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "R%d := R%d \"x\" | \"y\" ;\n", i, i+1)
	}
	fmt.Fprintf(&b, "R%d := R0 \"z\" | \"w\" ;\n", n-1)
	return b.String()
}

func TestAnalysesOfRandomGrammars(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	built := 0
	for i := range 600 {
		src := randomGrammar(r)
		g := rawGraph([]byte(src))
		if g == nil {
			t.Fatalf("grammar %d does not build:\n%s", i, src)
		}
		compareAnalyses(t, g, true)
		if _, err := Build(mustParse(t, src)); err == nil {
			built++
		}
	}
	if built < 20 {
		t.Errorf("only %d of the random grammars are productive", built)
	}
}

// TestBuildKeepsResults: what Build reports (left recursion and
// unproductive rules in its messages, Stats) follows the analyses.
func TestBuildKeepsResults(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for range 500 {
		src := randomGrammar(r)
		raw := rawGraph([]byte(src))
		_, shortest, _ := refAnalyses(raw)
		var unproductive []string
		for _, name := range raw.Rules {
			if shortest[raw.Bodies[name].ID] >= infinite {
				unproductive = append(unproductive, name)
			}
		}
		g, err := Build(mustParse(t, src))
		if len(unproductive) > 0 {
			if err == nil {
				t.Fatalf("unproductive %v, but Build succeeded:\n%s", unproductive, src)
			}
			for _, name := range unproductive {
				if !strings.Contains(err.Error(), "rule "+name+" is unproductive") {
					t.Fatalf("Build does not report %s as unproductive: %v", name, err)
				}
			}
			continue
		}
		if err != nil {
			t.Fatalf("Build: %v\n%s", err, src)
		}
		raw.nullable, _, _ = refAnalyses(raw)
		want := refLeftRecursive(raw)
		if got := g.Stats().LeftRec; !reflect.DeepEqual(got, want) {
			t.Fatalf("Stats().LeftRec = %v, want %v", got, want)
		}
		warned := 0
		for _, w := range g.Warnings {
			if strings.Contains(w.Msg, "is left-recursive") {
				warned++
			}
		}
		if warned != len(want) {
			t.Fatalf("%d left-recursion warnings, want %d", warned, len(want))
		}
	}
}

// FuzzAnalyses compares the analyses with their references on any
// grammar text that builds a graph.
func FuzzAnalyses(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		f.Add(randomGrammar(r))
	}
	f.Add(`E := E "+" T | T ; T := "x" ;`)
	f.Fuzz(func(t *testing.T, src string) {
		g := rawGraph([]byte(src))
		if g == nil || len(g.Nodes) > 500 {
			return
		}
		compareAnalyses(t, g, len(g.Nodes) <= 60)
	})
}

func mustParse(t *testing.T, src string) *Grammar {
	t.Helper()
	ast, err := Parse("t.grammar", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return ast
}

func TestSCCs(t *testing.T) {
	// 0 → 1 → 2 → 0, 2 → 3, 3 → 3, 4 → 3, 5 alone.
	edges := [][2]int32{{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 3}, {4, 3}}
	var in inclusions
	for _, e := range edges {
		in.add(int(e[0]), int(e[1]))
	}
	off, succ := in.rows(6)
	comp := sccs(off, succ)
	if comp[0] != comp[1] || comp[1] != comp[2] {
		t.Errorf("0, 1, 2 in components %v", comp[:3])
	}
	distinct := map[int32]bool{}
	for _, v := range []int{0, 3, 4, 5} {
		distinct[comp[v]] = true
	}
	if len(distinct) != 4 {
		t.Errorf("components %v, want 0-2, 3, 4 and 5 apart", comp)
	}
	// Reverse topological order: a component after every one it reaches.
	if !(comp[3] < comp[0] && comp[3] < comp[4]) {
		t.Errorf("components %v: 3 is reached from 0 and 4 and must finish first", comp)
	}
}
