package grammar

import (
	"strings"
	"testing"
)

// TestExprIDs pins the breadth-first node ids of docs/notation.md.
func TestExprIDs(t *testing.T) {
	g := bundled(t, "expr")
	if len(g.Nodes) != 54 {
		t.Fatalf("expr has %d nodes, want 54", len(g.Nodes))
	}
	want := map[int]string{
		0: "AddExpr_0", 1: "Alt_1", 2: "MultExpr_2", 3: "Cat_3", 5: "AddExpr_5", 7: "MultExpr_7",
		8: "UnaryExpr_8", 10: `"+"_10`, 11: `"-"_11`, 13: "MultExpr_13", 15: "UnaryExpr_15",
		16: "Identifier_16", 22: "DecDigits_22", 23: `"*"_23`, 27: `"+"_27`, 31: `"++"_31`,
		35: `"("_35`, 36: "AddExpr_36", 37: `")"_37`, 38: "Quant+_38", 39: `"x"_39`, 41: `"z"_41`,
		42: "DecDigit_42", 43: "Alt_43", 44: `"0"_44`, 46: `"2"_46`, 48: `"4"_48`, 53: `"9"_53`,
	}
	for id, s := range want {
		if got := g.Nodes[id].String(); got != s {
			t.Errorf("node %d = %s, want %s", id, got, s)
		}
	}
	for i, n := range g.Nodes {
		if n.ID != i {
			t.Fatalf("Nodes[%d].ID = %d", i, n.ID)
		}
	}
	if g.Root != g.Nodes[0] || g.Start != "Expr" {
		t.Errorf("root %v start %s", g.Root, g.Start)
	}
	// Shared right-hand sides: every Ref to AddExpr leads to node 1.
	for _, id := range []int{0, 5, 36} {
		if c := g.Nodes[id].Children[0]; c.ID != 1 {
			t.Errorf("%v's child is %v, want Alt_1", g.Nodes[id], c)
		}
	}
	if n := g.Nodes[36]; n.Rule != "UnaryExpr" || n.Parent.ID != 21 || n.Index != 1 {
		t.Errorf("AddExpr_36: rule %s parent %v index %d", n.Rule, n.Parent, n.Index)
	}
}

func TestAnalyses(t *testing.T) {
	g := mustBuild(t, "t.grammar", `
S := A B? C* ;
A := "a" | "(" S ")" ;
B := "b" B | "b" ;
C := D ;
D := /x*/ ;
`)
	byRule := func(r string) *Node { return g.Bodies[r] }
	tests := []struct {
		rule            string
		nullable        bool
		shortest, depth int
	}{
		{"S", false, 2, 1}, // smallest: Ref A over "a"; one rule expansion deep
		{"A", false, 1, 0},
		{"B", false, 1, 0},
		{"C", true, 2, 1},
		{"D", true, 1, 0},
	}
	for _, tt := range tests {
		n := byRule(tt.rule)
		if got := g.Nullable(n); got != tt.nullable {
			t.Errorf("Nullable(%s) = %v", tt.rule, got)
		}
		if got := g.Shortest(n); got != tt.shortest {
			t.Errorf("Shortest(%s) = %d, want %d", tt.rule, got, tt.shortest)
		}
		if got := g.MinDepth(n); got != tt.depth {
			t.Errorf("MinDepth(%s) = %d, want %d", tt.rule, got, tt.depth)
		}
	}
	// Distances: from the root Cat to the "x" regex: Cat→Quant→Ref C→Ref D→/x*/.
	var regex *Node
	for _, n := range g.Nodes {
		if n.Kind == KindRegex {
			regex = n
		}
	}
	if d := g.Distance(g.Root, regex); d != 4 {
		t.Errorf("Distance(root, /x*/) = %d, want 4", d)
	}
	if g.Reachable(regex, g.Root) {
		t.Errorf("a terminal reaches the root")
	}
	if d := g.Distance(byRule("A"), g.Root); d != 3 { // Alt→Cat→Ref S→root
		t.Errorf("Distance(A, root) = %d, want 3", d)
	}
	if g.Distance(g.Root, g.Root) != 0 {
		t.Errorf("a node is not at distance 0 from itself")
	}
}

func TestSymbolicChildren(t *testing.T) {
	g := bundled(t, "expr")
	var got []string
	for _, c := range g.SymbolicChildren(g.Nodes[0]) {
		got = append(got, c.String())
	}
	if want := "MultExpr_2 AddExpr_5 \"+\"_10 \"-\"_11 MultExpr_7"; strings.Join(got, " ") != want {
		t.Errorf("SymbolicChildren(AddExpr_0) = %s, want %s", strings.Join(got, " "), want)
	}
}

func TestStats(t *testing.T) {
	g := bundled(t, "expr")
	st := g.Stats()
	if st.Rules != 7 || st.Nodes != 54 || st.Symbolic != 39 {
		t.Errorf("stats %+v", st)
	}
	if strings.Join(st.LeftRec, ",") != "AddExpr,MultExpr" {
		t.Errorf("left-recursive %v", st.LeftRec)
	}
	if json := bundled(t, "json").Stats(); json.Conflicts != 0 {
		t.Errorf("json grammar has %d lookahead conflicts: %v", json.Conflicts, bundled(t, "json").Conflicts())
	}
}
