package grammar

import (
	"fmt"
	"sort"
	"strings"
)

const infinite = 1 << 40

// analyse computes nullability, shortest derivations, minimum depths,
// productivity, lookahead tables and warnings.
func (g *Graph) analyse(errs *ErrorList) {
	n := len(g.Nodes)
	g.nullable = make([]bool, n)
	g.shortest = make([]int, n)
	g.minDepth = make([]int, n)
	for i := range g.shortest {
		g.shortest[i], g.minDepth[i] = infinite, infinite
	}
	// Fixed points, iterated in reverse ID order so that most children are
	// settled before their parents.
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			nd := g.Nodes[i]
			nl, sh, md := g.evalNode(nd)
			if nl != g.nullable[i] || sh < g.shortest[i] || md < g.minDepth[i] {
				g.nullable[i] = nl
				g.shortest[i] = min(sh, g.shortest[i])
				g.minDepth[i] = min(md, g.minDepth[i])
				changed = true
			}
		}
	}
	for _, name := range g.Rules {
		body := g.Bodies[name]
		if g.shortest[body.ID] >= infinite {
			errs.add(g.rulePos(name), "rule %s is unproductive: it cannot derive any finite input (each alternative needs an unproductive rule again)", name)
		}
	}
	if len(*errs) > 0 {
		return
	}
	g.ll = g.lookahead()
	g.warnDuplicates()
	for _, r := range g.leftRecursive() {
		g.Warnings = append(g.Warnings, Warning{Pos: g.rulePos(r),
			Msg: fmt.Sprintf("rule %s is left-recursive (arbor parses it, with the general parser)", r)})
	}
	sort.SliceStable(g.Warnings, func(i, j int) bool {
		a, b := g.Warnings[i].Pos, g.Warnings[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
}

func (g *Graph) rulePos(name string) Position {
	if g.Source != nil {
		for _, r := range g.Source.Rules {
			if r.Name == name {
				return r.Pos
			}
		}
	}
	return Position{}
}

// evalNode computes nullable, shortest and minDepth of a node from its children's current values.
func (g *Graph) evalNode(nd *Node) (nullable bool, shortest, depth int) {
	switch nd.Kind {
	case KindLit:
		return nd.Name == "", 1, 0
	case KindRegex:
		return nd.re.nullable, 1, 0
	case KindRef:
		c := nd.Children[0].ID
		return g.nullable[c], min(infinite, 1+g.shortest[c]), min(infinite, 1+g.minDepth[c])
	case KindAlt:
		shortest, depth = infinite, infinite
		for _, c := range nd.Children {
			nullable = nullable || g.nullable[c.ID]
			shortest = min(shortest, g.shortest[c.ID])
			depth = min(depth, g.minDepth[c.ID])
		}
		return
	case KindCat:
		nullable = true
		for _, c := range nd.Children {
			nullable = nullable && g.nullable[c.ID]
			shortest = min(infinite, shortest+g.shortest[c.ID])
			depth = max(depth, g.minDepth[c.ID])
		}
		return
	case KindQuant:
		c := nd.Children[0].ID
		if nd.Min == 0 {
			return true, 0, 0
		}
		return g.nullable[c], min(infinite, nd.Min*g.shortest[c]), g.minDepth[c]
	}
	return false, infinite, infinite
}

// canonical is a structural key for an expression below a node, used to
// spot duplicate alternatives.
func canonical(n *Node) string {
	if n.Kind.Symbolic() {
		return n.Label()
	}
	parts := make([]string, len(n.Children))
	for i, c := range n.Children {
		parts[i] = canonical(c)
	}
	switch n.Kind {
	case KindAlt:
		return "(" + strings.Join(parts, " | ") + ")"
	case KindQuant:
		return "(" + parts[0] + ")" + QuantSuffix(n.Min, n.Max)
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func (g *Graph) warnDuplicates() {
	for _, n := range g.Nodes {
		if n.Kind != KindAlt {
			continue
		}
		seen := map[string]int{}
		for i, c := range n.Children {
			key := canonical(c)
			if j, ok := seen[key]; ok {
				g.Warnings = append(g.Warnings, Warning{Pos: c.Pos, Msg: fmt.Sprintf(
					"in rule %s, alternative %d repeats alternative %d (%s); the grammar is ambiguous there",
					n.Rule, i+1, j+1, key)})
				continue
			}
			seen[key] = i
		}
	}
}

// leftRecursive lists the rules that can derive themselves as the leftmost
// symbol (after nullable symbols), sorted by name.
func (g *Graph) leftRecursive() []string {
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
