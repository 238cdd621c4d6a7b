package synth

import (
	"context"
	"math"
	"math/rand/v2"
	"regexp"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/grammar"
)

// Defaults of a Satisfier's search (docs/algorithms.md says how they
// were chosen).
const (
	// DefaultRepairSteps bounds the changes a Satisfier tries on one
	// tree before it gives up on it.
	DefaultRepairSteps = 256
	// DefaultFreshTries is how many trees Make checks as they are
	// generated before it repairs one: where a good share of random
	// trees satisfy the constraints, drawing another is cheaper than
	// repairing, and keeps the generator's distribution.
	DefaultFreshTries = 4
	// DefaultConstraintTries is how many trees Make repairs before it
	// gives up on an input.
	DefaultConstraintTries = 4
)

// A Satisfier changes derivation trees until they satisfy a grammar's
// constraints (package constraint), by local search over the tree, as
// Fandango evolves trees but one tree at a time: it picks a broken
// clause instance and changes the tree where it is broken, and keeps a
// change unless it breaks more instances than it mends. The changes:
//
//   - copy in: the broken node takes the value of another node the
//     clause names (a use takes a declared name: the constructive
//     layer, a reference drawn from the values the tree already has);
//   - copy out: another node the clause names takes the broken node's
//     value (a definition gets a use);
//   - regenerate: the broken node's subtree is generated anew;
//   - drop: the repetition the broken node is part of loses it.
//
// A value is copied as a subtree of a rule that both nodes derive their
// whole text through, or as a regex terminal's value its regex matches,
// so the tree stays a derivation of the grammar and its choice sequence
// can be read off it (Generator.ChoicesOf).
//
// Make keeps one choice of each tree it repairs, the 2-path its
// satisfying trees have held least often, through the first quarter of
// the repair (keep.go): a repair left free collapses the inputs onto
// the parts of the language that need nothing to agree.
//
// A Satisfier is deterministic for its seed and not safe for
// concurrent use.
type Satisfier struct {
	set   *constraint.Set
	check *constraint.Checker
	// FreshTries and Tries are Make's numbers of trees checked as
	// generated and of trees repaired (0 means DefaultFreshTries and
	// DefaultConstraintTries).
	FreshTries, Tries int
	r                 *rand.Rand
	gen               *Generator // regenerates subtrees
	MaxSteps          int        // changes tried per tree; 0 means DefaultRepairSteps
	regexes           map[*grammar.Node]*regexp.Regexp
	cands             []*constraint.Node
	undo              []func()
	changed           *grammar.Tree // the node the last change changed the children or value of

	// keep holds the tree nodes a repair must not take out of the tree
	// (Satisfier.protect): the node of the rarest 2-path of the tree
	// being repaired, and its ancestors. Nil when nothing is kept.
	keep map[*grammar.Tree]bool
	// held counts, per 2-path (pathKey), its occurrences in the
	// satisfying trees Make returned, and the repairs that kept it in
	// vain.
	held map[uint64]int
	// NoKeep turns off keeping the rarest 2-path through a repair
	// (docs/algorithms.md says why it is on).
	NoKeep bool
	slots  []slot // regenerateBeside's

	// pastRepair counts, per try of Make but the last, the Makes in a row
	// in which that try drew no tree a repair could mend; makes counts
	// Makes (firstTry).
	pastRepair []int
	makes      int

	// Guide, if set, is the guide that makes the choices of the
	// generator Make draws with (a GuideChooser's), and Make rewards it
	// for each tree it draws, as RLCheck rewards its guide for each
	// input the program judges, with the checker as the judge: a tree
	// that satisfies the clauses and holds a 2-path no satisfying tree
	// drawn before held is new, one that satisfies them otherwise is
	// seen, one that breaks one is invalid. The guide learns which
	// choices, where, make trees that satisfy the clauses.
	Guide  *Guide
	guided map[uint64]bool // the 2-paths of the satisfying trees drawn
}

// NewSatisfier returns a Satisfier of s's constraints whose random
// choices come from seed. Regenerated subtrees keep bounds's MaxDepth,
// MaxRepeat and MaxNodes (bounds may be nil).
func NewSatisfier(s *constraint.Set, seed uint64, bounds *Generator) *Satisfier {
	r := rand.New(rand.NewPCG(seed, 0x5a7157))
	gen := &Generator{G: s.Graph(), Chooser: &Random{R: r}, Policy: RandomPolicy}
	if bounds != nil {
		gen.MaxDepth, gen.MaxRepeat, gen.MaxNodes = bounds.MaxDepth, bounds.MaxRepeat, bounds.MaxNodes
	}
	return &Satisfier{set: s, check: constraint.NewChecker(s), r: r, gen: gen, regexes: map[*grammar.Node]*regexp.Regexp{}}
}

// Make generates a tree with gen that satisfies the constraints: it
// checks up to FreshTries trees as gen makes them and, if none
// satisfies them, repairs the one that breaks the fewest instances (the
// cheapest to repair), and so up to Tries times, each time with trees
// a quarter the size (gen.MaxNodes, restored on return); a tree that
// breaks more instances than a repair can mend is not repaired. It returns the tree,
// the number of instances it still breaks (0 but where the search
// failed Tries times), and whether the tree was changed after gen made
// it (then it is a copy, not in gen's memory). reset, if set, is called
// before each tree is generated (a recorder's or a guide's fresh
// start); the choices recorded are then those of the last tree made,
// which is the tree returned only when it is unchanged. Make starts at
// the first try whose size has lately drawn trees a repair can mend
// (firstTry).
func (s *Satisfier) Make(ctx context.Context, gen *Generator, reset func()) (t *grammar.Tree, broken int, changed bool) {
	fresh, tries := s.FreshTries, s.Tries
	if fresh <= 0 {
		fresh = DefaultFreshTries
	}
	if tries <= 0 {
		tries = DefaultConstraintTries
	}
	size := gen.MaxNodes
	defer func() { gen.MaxNodes = size }()
	first := s.firstTry(tries)
	if first > 1 {
		gen.MaxNodes = RetryMaxNodes(size, first-1)
	}
	for try := first; ; try++ {
		var best *grammar.Tree
		var checked []constraint.Violation // what best breaks, if the checker's last check was of it
		least := 0
		// A tree is counted only as far as it could be chosen: below
		// the best so far and, but on the last try, within what a
		// repair can mend (a tree past it is not repaired).
		limit := s.mendable()
		if try == tries {
			limit = math.MaxInt
		}
		for i := 0; i < fresh; i++ {
			if reset != nil {
				reset()
			}
			t = gen.Generate()
			if best != nil {
				limit = least - 1
			}
			vs, ok := s.check.CheckWithin(t, limit)
			s.reward(t, len(vs) == 0)
			if len(vs) == 0 {
				s.tried(try, tries, true)
				s.note(t)
				return t, 0, false
			}
			checked = nil
			if ok {
				// gen may build the next tree in this one's memory.
				best, least = t, len(vs)
				if i < fresh-1 {
					best = copyTree(t)
				} else {
					checked = vs // of best, the tree last checked
				}
			}
		}
		last := try == tries || ctx.Err() != nil
		s.tried(try, tries, best != nil)
		if best == nil {
			if !last {
				// Past repair in the steps it has: smaller trees at once.
				gen.MaxNodes = RetryMaxNodes(size, try)
				continue
			}
			// Stopped: the last tree, as it is.
			return t, len(s.check.Check(t)), false
		}
		if checked == nil {
			checked = s.check.Check(best)
		}
		var kept uint64
		protected := false
		if !last && !s.NoKeep {
			// The last try keeps nothing: a 2-path the clauses forbid
			// must not cost the input.
			kept, protected = s.protect(best)
		}
		broken, _ := s.satisfy(ctx, best, checked)
		s.settle(best, broken, kept, protected)
		if broken == 0 || last {
			return best, broken, true
		}
		gen.MaxNodes = RetryMaxNodes(size, try)
	}
}

// reward ends the Guide's episode of drawing t (Satisfier.Guide).
func (s *Satisfier) reward(t *grammar.Tree, satisfied bool) {
	g := s.Guide
	if g == nil {
		return
	}
	if !satisfied {
		g.Reward(g.Rewards.Invalid)
		return
	}
	if s.guided == nil {
		s.guided = map[uint64]bool{}
	}
	novel := false
	walkPaths2(t, func(k uint64, _ []*grammar.Tree) {
		if !s.guided[k] {
			s.guided[k], novel = true, true
		}
	})
	if novel {
		g.Reward(g.Rewards.New)
	} else {
		g.Reward(g.Rewards.Seen)
	}
}

// Make skips a try whose draws were past repair in skipAfter Makes in a
// row, but in one Make of probeEvery, which tries every size again:
// exprlang's random trees at the first two sizes break more clauses
// than a repair can mend in every Make, and drawing and checking them
// took half its generation time.
const (
	skipAfter  = 4
	probeEvery = 16
)

// firstTry is the try Make starts at: the first that has not been past
// repair in skipAfter Makes in a row, or 1 in a probing Make.
func (s *Satisfier) firstTry(tries int) int {
	s.makes++
	if len(s.pastRepair) < tries-1 {
		s.pastRepair = append(s.pastRepair, make([]int, tries-1-len(s.pastRepair))...)
	}
	if s.makes%probeEvery == 0 {
		return 1
	}
	try := 1
	for try < tries && s.pastRepair[try-1] >= skipAfter {
		try++
	}
	return try
}

// tried notes whether a try of tries drew a tree a repair could mend;
// the last try, never skipped, is not counted.
func (s *Satisfier) tried(try, tries int, mendable bool) {
	switch {
	case try >= tries:
	case mendable:
		s.pastRepair[try-1] = 0
	default:
		s.pastRepair[try-1]++
	}
}

// RetryMaxNodes is the size bound (Generator.MaxNodes; 0 means
// DefaultMaxNodes) of the trees drawn after try draws of trees under
// bound that were past repair or could not be repaired: a quarter the
// size at each try, as Make draws. Large random trees (exprlang's run
// to thousands of characters) break clauses by the hundred, more than a
// repair can mend, where small ones break few.
func RetryMaxNodes(bound, try int) int {
	if bound <= 0 {
		bound = DefaultMaxNodes
	}
	return max(minRegenerate, bound>>(2*try))
}

// steps is the most changes Satisfy tries on a tree.
func (s *Satisfier) steps() int {
	if s.MaxSteps > 0 {
		return s.MaxSteps
	}
	return DefaultRepairSteps
}

// mendable is the most instances a tree may break for a repair to be
// tried: past it, a repair in the steps there are has no hope.
func (s *Satisfier) mendable() int { return s.steps() / hopeless }

// keepSteps: a repair keeps the node Make chose (Satisfier.protect)
// for the first 1/keepSteps of its steps. Keeping for half of them
// widened the inputs no more than a quarter did, at more cost (E11 on
// the whole suite, docs/algorithms.md).
const keepSteps = 4

// hopeless is the ratio of repair steps to broken instances under which
// Make does not try to repair a tree but draws smaller ones: a change
// mends at most an instance or two, and most changes are undone.
const hopeless = 4

// RepairStats counts what Satisfy did.
type RepairStats struct {
	Steps int // changes tried
	Kept  int // changes kept: the tree was changed if any
}

// Satisfy changes t in place until it breaks no clause instance, the
// step limit is reached or ctx is done, and returns the number of
// instances still broken (0: t satisfies every constraint). t must be
// a complete tree of the Set's grammar that the caller owns: subtrees
// are replaced and copied. A change that makes the tree more than
// twice its size (and minRegenerate) is undone: the search repairs,
// it does not grow inputs.
func (s *Satisfier) Satisfy(ctx context.Context, t *grammar.Tree) (broken int, st RepairStats) {
	if s.set.Len() == 0 {
		return 0, st
	}
	return s.satisfy(ctx, t, s.check.Check(t))
}

// satisfy is Satisfy of a tree the checker has just checked in full
// and found to break vs: a caller that checked it need not again.
func (s *Satisfier) satisfy(ctx context.Context, t *grammar.Tree, vs []constraint.Violation) (broken int, st RepairStats) {
	// The subtrees regenerated for this tree share no block with other
	// trees' (arena.detach).
	s.gen.a.detach()
	limit := s.steps()
	most := 2*t.Size() + minRegenerate
	for st.Steps < limit && len(vs) > 0 && ctx.Err() == nil {
		if st.Steps == limit/keepSteps && s.keep != nil {
			// The steps that keep a node did not repair the tree
			// around it: the rest may change anything.
			s.keep = nil
		}
		st.Steps++
		v := vs[s.r.IntN(len(vs))]
		s.undo = s.undo[:0]
		if !s.change(t, v) {
			continue
		}
		// Only the scope occurrences that hold the changed node are
		// evaluated again, after the change and after its undoing.
		// A change that breaks more instances than it mends is undone:
		// the check stops counting past that.
		after, within := s.check.RecheckWithin(t, s.changed, len(vs))
		if within && t.Size() <= most && (len(after) < len(vs) || s.r.IntN(2) == 0) {
			vs = after
			st.Kept++
			continue
		}
		for i := len(s.undo) - 1; i >= 0; i-- {
			s.undo[i]()
		}
		// The tree is as it was before the change, and so are the
		// instances it breaks: the checker takes back what it learnt
		// and its Nodes of vs.
		s.check.Revert()
	}
	if st.Kept > 0 {
		// The verdict, from a check of the whole tree: Recheck's takes
		// the instances away from the change as they were.
		vs = s.check.Check(t)
	}
	return len(vs), st
}

// change makes one change to t at violation v; false if none applied.
func (s *Satisfier) change(t *grammar.Tree, v constraint.Violation) bool {
	e := v.At
	if e == v.Scope && s.r.IntN(5) > 0 {
		// A clause that holds or not for the scope as a whole: change
		// one of the nodes it names, not (always) all of the scope.
		var named []*constraint.Node
		for _, sym := range v.Clause.Symbols() {
			named = append(named, v.Scope.Descendants(sym)...)
		}
		if len(named) > 0 {
			e = named[s.r.IntN(len(named))]
		}
	}
	switch k := s.r.IntN(10); {
	case k < 5:
		if s.copyIn(v, e) {
			return true
		}
	case k < 6:
		if s.copyOut(v, e) {
			return true
		}
	case k < 7:
		if s.drop(t, e) {
			return true
		}
	}
	if s.regenerate(e) {
		return true
	}
	// What the change would have taken out holds the kept node: a
	// subtree beside it changes instead, under e or an occurrence
	// above it (a field kept whose type is wrong for where it is
	// selected needs a change above it).
	for up := Geometric(s.r, 2) - 1; up > 0 && e.Parent() != nil && e != v.Scope; up-- {
		e = e.Parent()
	}
	return s.keep != nil && s.regenerateBeside(e)
}

// candidates lists the other occurrences, in v's scope, of the rules
// v's clause names whose text differs from e's.
func (s *Satisfier) candidates(v constraint.Violation, e *constraint.Node) []*constraint.Node {
	s.cands = s.cands[:0]
	for _, sym := range v.Clause.Symbols() {
		for _, d := range v.Scope.Descendants(sym) {
			if d.Tree() != e.Tree() && d.Text != e.Text {
				s.cands = append(s.cands, d)
			}
		}
	}
	return s.cands
}

// copyIn gives e the value of another node the clause names.
func (s *Satisfier) copyIn(v constraint.Violation, e *constraint.Node) bool {
	cands := s.candidates(v, e)
	for range 4 {
		if len(cands) == 0 {
			return false
		}
		i := s.r.IntN(len(cands))
		// A node copied into one inside it would grow the tree by its
		// own size at every such step.
		if !e.Inside(cands[i]) && s.copyValue(cands[i].Tree(), e.Tree()) {
			return true
		}
		cands[i] = cands[len(cands)-1]
		cands = cands[:len(cands)-1]
	}
	return false
}

// copyOut gives another node the clause names e's value.
func (s *Satisfier) copyOut(v constraint.Violation, e *constraint.Node) bool {
	cands := s.candidates(v, e)
	if len(cands) == 0 {
		return false
	}
	d := cands[s.r.IntN(len(cands))]
	return !d.Inside(e) && s.copyValue(e.Tree(), d.Tree())
}

// copyValue makes dst derive src's text, if a rule or regex terminal
// through which both derive their whole text allows it.
func (s *Satisfier) copyValue(src, dst *grammar.Tree) bool {
	from, to := chain(src), chain(dst)
	for _, d := range to {
		for _, f := range from {
			switch {
			case d.Node.Kind == grammar.KindRef && f.Node.Kind == grammar.KindRef && d.Node.Name == f.Node.Name && !s.keep[d.Children[0]]:
				s.replaceChild(d, 0, copyTree(f.Children[0]))
				return true
			case d.Node.Kind == grammar.KindRegex && f.Node.Kind.Symbolic() && f.Node.Kind != grammar.KindRef && s.matches(d.Node, f.Value):
				old := d.Value
				d.Value = f.Value
				s.changed = d
				s.undo = append(s.undo, func() { d.Value = old })
				return true
			}
		}
	}
	return false
}

// chain lists the tree nodes that derive all of t's text: t, and
// downwards through every node that has one child deriving all of it
// (the others deriving nothing).
func chain(t *grammar.Tree) []*grammar.Tree {
	var out []*grammar.Tree
	for t != nil {
		if t.Node.Kind.Symbolic() {
			out = append(out, t)
		}
		var only *grammar.Tree
		for _, c := range t.Children {
			if c == nil || c.Size() == 0 || isEmpty(c) {
				continue
			}
			if only != nil {
				return out
			}
			only = c
		}
		t = only
	}
	return out
}

// isEmpty reports whether t derives the empty string.
func isEmpty(t *grammar.Tree) bool {
	empty := true
	t.Walk(func(n *grammar.Tree, _ int) bool {
		if (n.Node.Kind == grammar.KindLit || n.Node.Kind == grammar.KindRegex) && n.Value != "" {
			empty = false
		}
		return empty
	})
	return empty
}

func (s *Satisfier) matches(n *grammar.Node, v string) bool {
	re, ok := s.regexes[n]
	if !ok {
		re, _ = regexp.Compile(`^(?:` + n.Name + `)$`)
		s.regexes[n] = re
	}
	return re != nil && re.MatchString(v)
}

// regenerate generates anew e's subtree or, half of the time, that of
// an occurrence e is inside (geometrically fewer the further up): a use
// with no declaration before it may need its statement to become one.
func (s *Satisfier) regenerate(e *constraint.Node) bool {
	if s.r.IntN(2) == 0 {
		for up := 1 + Geometric(s.r, 1); up > 0 && e.Parent() != nil; up-- {
			e = e.Parent()
		}
	}
	t := e.Tree()
	defer s.bound(t.Size() + len(e.Text))()
	if t.Node.Kind != grammar.KindRef {
		// The start rule's outermost occurrence: the whole tree.
		return s.regenerateRoot(t)
	}
	if s.keep[t.Children[0]] {
		return false
	}
	s.gen.nodes = 0
	s.replaceChild(t, 0, s.gen.Expand(t.Node.Children[0], e.Depth()))
	return true
}

// bound sets the generator's size bound for a subtree made anew in
// place of one of size n, and returns what restores it. The new one is
// about the size of the one it replaces, at most twice (the generator
// closes off past it): on a grammar whose random trees are large
// (govaluate's average 3.5 KB), a regeneration within the generator's
// own bound made subtrees a hundred times the input's size, which every
// later check paid for.
func (s *Satisfier) bound(n int) (restore func()) {
	limit := s.gen.MaxNodes
	s.gen.MaxNodes = max(minRegenerate, 2*n)
	return func() { s.gen.MaxNodes = limit }
}

// minRegenerate is the size bound (in the generator's units: nodes and
// terminal characters) of a regenerated subtree that replaces a small
// one, so that it can still grow.
const minRegenerate = 64

func (s *Satisfier) regenerateRoot(t *grammar.Tree) bool {
	if s.keep != nil {
		return false
	}
	s.gen.nodes = 0
	fresh := s.gen.Expand(t.Node, 0)
	old := t.Children
	t.Children = fresh.Children
	s.changed = t
	s.undo = append(s.undo, func() { t.Children = old })
	return true
}

// drop removes the repetition of the nearest enclosing quantifier that
// holds e, where the quantifier allows one fewer.
func (s *Satisfier) drop(root *grammar.Tree, e *constraint.Node) bool {
	path := pathTo(root, e.Tree())
	for i := len(path) - 1; i >= 0; i-- {
		p := path[i]
		n := p.parent.Node
		if n.Kind != grammar.KindQuant {
			continue
		}
		if len(p.parent.Children) <= n.Min || s.keep[p.parent.Children[p.index]] {
			return false
		}
		parent, old := p.parent, p.parent.Children
		kids := make([]*grammar.Tree, 0, len(old)-1)
		kids = append(append(kids, old[:p.index]...), old[p.index+1:]...)
		parent.Children = kids
		s.changed = parent
		s.undo = append(s.undo, func() { parent.Children = old })
		return true
	}
	return false
}

type treeStep struct {
	parent *grammar.Tree
	index  int
}

// pathTo returns the steps from root down to target.
func pathTo(root, target *grammar.Tree) []treeStep {
	var path []treeStep
	var walk func(t *grammar.Tree) bool
	walk = func(t *grammar.Tree) bool {
		if t == target {
			return true
		}
		for i, c := range t.Children {
			if c == nil {
				continue
			}
			path = append(path, treeStep{t, i})
			if walk(c) {
				return true
			}
			path = path[:len(path)-1]
		}
		return false
	}
	if !walk(root) {
		return nil
	}
	return path
}

func (s *Satisfier) replaceChild(t *grammar.Tree, i int, c *grammar.Tree) {
	old := t.Children[i]
	t.Children[i] = c
	s.changed = t
	s.undo = append(s.undo, func() { t.Children[i] = old })
}

// copyTree returns a deep copy of t.
func copyTree(t *grammar.Tree) *grammar.Tree {
	if t == nil {
		return nil
	}
	c := &grammar.Tree{Node: t.Node, Value: t.Value}
	if len(t.Children) > 0 {
		c.Children = make([]*grammar.Tree, len(t.Children))
		for i, k := range t.Children {
			c.Children[i] = copyTree(k)
		}
	}
	return c
}
