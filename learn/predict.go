package learn

import (
	"context"
	"fmt"
	"slices"

	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// Predictor evaluates a model on inputs without running the program.
type Predictor struct {
	Model *Model
	Graph *grammar.Graph
	// Reasons makes every prediction carry the tests on its tree's path
	// to the leaf, as readable literals.
	Reasons bool
	vocab   *features.Vocabulary
	has     []bool
	// parser records each input's parse in the memory of the one
	// before, so that its features are read off the record rather than
	// a second parse.
	parser *grammar.Parser
	// used is the vocabulary of the features the trees test alone, which
	// Predict and PredictTrees extract: dense maps a model feature id to
	// its id there (-1 if no tree tests it), and stamp[id] == gen marks
	// the used features present in the input being evaluated.
	used  *features.Vocabulary
	dense []int32
	stamp []uint32
	gen   uint32
	ids   []int // reused feature buffer
	// why caches the Reasons' texts per model feature: "has " and "not "
	// with its description, made on first use.
	whyHas, whyNot []string
	// flat is every function's tree compiled over the dense ids, which
	// Predict and PredictTrees walk where no reasons are asked for.
	flat []flatTree
}

// flatTree is a function's tree as one array of tests over the dense
// feature ids of Predictor.used, with its leaves' predictions made
// once. A branch (and start) is an index into nodes, or ^i for leaves[i].
type flatTree struct {
	start  int32
	nodes  []flatNode
	leaves []Prediction
}

type flatNode struct {
	feat            int32 // dense id
	present, absent int32
}

// compile flattens fn's tree; dense maps model feature ids to dense ids.
func compile(fn *FunctionModel, dense []int32) flatTree {
	nodes := fn.Tree.Nodes
	var ft flatTree
	code := make([]int32, len(nodes))
	for j := range nodes {
		if nodes[j].Leaf() {
			code[j] = ^int32(len(ft.leaves))
			n := &nodes[j]
			ft.leaves = append(ft.leaves, Prediction{Function: fn.Name, Covered: n.Covered(), Purity: n.Purity(), Leaf: j})
		} else {
			code[j] = int32(len(ft.nodes))
			ft.nodes = append(ft.nodes, flatNode{})
		}
	}
	for j := range nodes {
		if n := &nodes[j]; !n.Leaf() {
			ft.nodes[code[j]] = flatNode{feat: dense[n.Feature], present: code[n.Present], absent: code[n.Absent]}
		}
	}
	ft.start = code[0]
	return ft
}

// NewPredictor rebuilds the model's grammar and vocabulary. If g is not
// nil it must be the grammar the model was trained on.
func NewPredictor(m *Model, g *grammar.Graph) (*Predictor, error) {
	if g == nil {
		ast, err := grammar.Parse(m.Grammar.Name+".grammar", []byte(m.Grammar.Source))
		if err != nil {
			return nil, fmt.Errorf("model grammar: %w", err)
		}
		if g, err = grammar.Build(ast); err != nil {
			return nil, fmt.Errorf("model grammar: %w", err)
		}
	}
	if fp, _ := Fingerprint(g); fp != m.Grammar.Fingerprint {
		return nil, fmt.Errorf("the model was trained on another grammar (%s, fingerprint %.12s; this one is %.12s)", m.Grammar.Name, m.Grammar.Fingerprint, fp)
	}
	kinds, err := m.FeatureKinds()
	if err != nil {
		return nil, err
	}
	p := &Predictor{Model: m, Graph: g, vocab: features.NewVocabulary(g, features.Options{MaxK: m.K, Kinds: kinds}), has: make([]bool, len(m.Features)), parser: g.NewParser()}
	for i, mf := range m.Features {
		f, err := mf.Feature()
		if err != nil {
			return nil, fmt.Errorf("model feature %d: %w", i, err)
		}
		// The solver and the pattern text index the graph by these ids.
		if mf.IsPath() && len(mf.IDs) == 0 {
			return nil, fmt.Errorf("model feature %d: a k-path with no nodes", i)
		}
		for _, id := range mf.IDs {
			if !mf.IsPath() && id == features.Edge {
				continue // a sibling pair at the first or last child
			}
			if id < 0 || id >= len(g.Nodes) {
				return nil, fmt.Errorf("model feature %d: node %d is not in the grammar (it has %d nodes)", i, id, len(g.Nodes))
			}
		}
		if id := p.vocab.Intern(f); id != i {
			return nil, fmt.Errorf("model feature %d repeats feature %d", i, id)
		}
	}
	p.dense = make([]int32, len(m.Features))
	for i := range p.dense {
		p.dense[i] = -1
	}
	var used []int
	for _, fn := range m.Functions {
		if fn.Tree == nil || len(fn.Tree.Nodes) == 0 {
			return nil, fmt.Errorf("function %s has no tree", fn.Name)
		}
		for _, n := range fn.Tree.Nodes {
			if n.Leaf() {
				continue
			}
			if n.Feature >= len(m.Features) {
				return nil, fmt.Errorf("function %s: its tree tests feature %d (the model has %d)", fn.Name, n.Feature, len(m.Features))
			}
			if p.dense[n.Feature] < 0 {
				p.dense[n.Feature] = int32(len(used))
				used = append(used, n.Feature)
			}
		}
	}
	p.used = p.vocab.Restrict(used)
	p.stamp = make([]uint32, len(used))
	p.flat = make([]flatTree, len(m.Functions))
	for i := range m.Functions {
		p.flat[i] = compile(&m.Functions[i], p.dense)
	}
	p.whyHas, p.whyNot = make([]string, len(m.Features)), make([]string, len(m.Features))
	return p, nil
}

// Prediction is a function's predicted coverage for one input.
type Prediction struct {
	Function string  `json:"function"`
	Covered  bool    `json:"covered"`
	Purity   float64 `json:"purity"` // share of the majority class in the leaf reached
	Leaf     int     `json:"leaf"`
	// Why lists the tests on the path to the leaf ("has PATTERN",
	// "not PATTERN"), when the Predictor gives reasons.
	Why []string `json:"why,omitempty"`
}

// Features returns the model's feature ids present in an input.
func (p *Predictor) Features(input []byte) ([]int, error) {
	return p.FeaturesContext(context.Background(), input)
}

// FeaturesContext is Features with the parse stopped when ctx is done
// (the error then wraps ctx.Err()).
func (p *Predictor) FeaturesContext(ctx context.Context, input []byte) ([]int, error) {
	// The features are read off the parse: a large input's tree is not
	// built where the deterministic parser takes it.
	parsed, err := p.parser.ParseLazyContext(ctx, input, grammar.ParseOptions{Trees: grammar.DefaultTreeLimit})
	if err != nil {
		return nil, err
	}
	return p.vocab.ParsedFeatures(parsed), nil
}

// PredictTrees evaluates every function's tree on an input given as its
// trees (all of an ambiguous input's).
func (p *Predictor) PredictTrees(trees ...*grammar.Tree) []Prediction {
	return p.appendUsed(nil, p.used.Features(trees...))
}

// Predict parses the input, extracts its features and evaluates every
// function's tree. A Predictor is not safe for concurrent use.
func (p *Predictor) Predict(input []byte) ([]Prediction, error) {
	return p.AppendPredictContext(context.Background(), nil, input)
}

// PredictContext is Predict with the parse stopped when ctx is done (the
// error then wraps ctx.Err()): one input of an ambiguous grammar can
// take the parse budget's seconds, and a caller predicting many inputs
// also looks at ctx between them.
func (p *Predictor) PredictContext(ctx context.Context, input []byte) ([]Prediction, error) {
	return p.AppendPredictContext(ctx, nil, input)
}

// AppendPredict is Predict appending the predictions to dst: a caller
// that passes the previous result back, as dst[:0], predicts without an
// allocation of its own per input (a model of 80 functions returns 5 KB
// of predictions).
func (p *Predictor) AppendPredict(dst []Prediction, input []byte) ([]Prediction, error) {
	return p.AppendPredictContext(context.Background(), dst, input)
}

// AppendPredictContext is AppendPredict with the parse stopped when ctx
// is done, as PredictContext.
func (p *Predictor) AppendPredictContext(ctx context.Context, dst []Prediction, input []byte) ([]Prediction, error) {
	// Only the features some tree tests are extracted, from the parse's
	// record.
	parsed, err := p.parser.ParseLazyContext(ctx, input, grammar.ParseOptions{Trees: grammar.DefaultTreeLimit})
	if err != nil {
		return dst, err
	}
	p.ids = p.used.AppendParsedFeatures(p.ids, parsed)
	return p.appendUsed(dst, p.ids), nil
}

// appendUsed evaluates every tree on a set of ids of p.used, appending
// the predictions to dst.
func (p *Predictor) appendUsed(dst []Prediction, ids []int) []Prediction {
	p.gen++
	if p.gen == 0 { // wrapped: clear the stamps
		clear(p.stamp)
		p.gen = 1
	}
	for _, id := range ids {
		p.stamp[id] = p.gen
	}
	if p.Reasons {
		return append(dst, p.evaluate(func(f int) bool { return p.stamp[p.dense[f]] == p.gen })...)
	}
	// The compiled trees: no call per test, and each leaf's prediction
	// copied whole.
	out := slices.Grow(dst, len(p.flat))
	for i := range p.flat {
		ft := &p.flat[i]
		k := ft.start
		for k >= 0 {
			n := &ft.nodes[k]
			if p.stamp[n.feat] == p.gen {
				k = n.present
			} else {
				k = n.absent
			}
		}
		out = append(out, ft.leaves[^k])
	}
	return out
}

// PredictFeatures evaluates every tree on a set of feature ids.
func (p *Predictor) PredictFeatures(ids []int) []Prediction {
	for _, id := range ids {
		p.has[id] = true
	}
	out := p.evaluate(func(f int) bool { return p.has[f] })
	for _, id := range ids {
		p.has[id] = false
	}
	return out
}

// evaluate runs every function's tree, has telling which model features
// the input has.
func (p *Predictor) evaluate(has func(f int) bool) []Prediction {
	out := make([]Prediction, len(p.Model.Functions))
	for i, fn := range p.Model.Functions {
		nodes := fn.Tree.Nodes
		leaf := 0
		for !nodes[leaf].Leaf() {
			if has(nodes[leaf].Feature) {
				leaf = nodes[leaf].Present
			} else {
				leaf = nodes[leaf].Absent
			}
		}
		n := &nodes[leaf]
		out[i] = Prediction{Function: fn.Name, Covered: n.Covered(), Purity: n.Purity(), Leaf: leaf}
		if p.Reasons {
			for j := 0; !nodes[j].Leaf(); {
				f := nodes[j].Feature
				if has(f) {
					j = nodes[j].Present
					if p.whyHas[f] == "" {
						p.whyHas[f] = "has " + p.Model.Features[f].Describe()
					}
					out[i].Why = append(out[i].Why, p.whyHas[f])
				} else {
					j = nodes[j].Absent
					if p.whyNot[f] == "" {
						p.whyNot[f] = "not " + p.Model.Features[f].Describe()
					}
					out[i].Why = append(out[i].Why, p.whyNot[f])
				}
			}
		}
	}
	return out
}
