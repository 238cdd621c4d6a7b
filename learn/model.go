package learn

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// ModelVersion is the version of the model file format. Version 2 added
// feature kinds besides k-paths; version 1 files (k-paths only) are read
// as they are.
const ModelVersion = 2

// Limits on what a model file may make LoadModel read and allocate.
// Models are shared like any other file, and a file of a few megabytes
// (a gzip bomb: a gigabyte of one repeated byte gzips to a megabyte, or
// JSON of short empty values that each decode to a large struct) must
// not make arbor allocate gigabytes before it can say what is wrong.
const (
	// MaxModelSize is the most bytes of JSON a model may hold, counted
	// after gunzipping. A model's size grows with its training rows
	// times its features (the data it keeps for refitting): the bundled
	// subjects' demo models (3,000 to 5,000 inputs) take 0.5 to 5.2 MB,
	// and goldmark's with every feature kind 2.6 MB. 256 MiB leaves room
	// for about fifty times the largest, as a campaign of 100,000 inputs
	// over thousands of features would make.
	MaxModelSize = 256 << 20
	// MaxModelValues is the most JSON arrays' elements, objects'
	// members and nested values a model may hold, counted together: each
	// decodes to at most a few hundred bytes, so this bounds what
	// decoding allocates besides the text itself. The demo models hold
	// 10,000 to 68,000; 2^21 (2,097,152) is thirty times the largest.
	MaxModelValues = 1 << 21
	// MaxModelK is the longest k-path a model may be trained on: what
	// --max-k accepts.
	MaxModelK = 16
	// MaxTreeDepth is the deepest tree (and tree depth to refit with) a
	// model may have: explanations recurse once per level, and trees are
	// fitted 5 deep by default.
	MaxTreeDepth = 1024
)

// ErrModelTooLarge is the error, wrapped, of a model file past
// MaxModelSize or MaxModelValues.
var ErrModelTooLarge = errors.New("model file too large")

// Model is a trained model: the grammar it reads inputs with, its feature
// vocabulary, and one tree per trainable function.
type Model struct {
	Arbor     string          `json:"arbor"` // "model"
	Version   int             `json:"version"`
	Subject   string          `json:"subject"`
	Grammar   ModelGrammar    `json:"grammar"`
	K         int             `json:"k"`
	Kinds     string          `json:"kinds,omitempty"` // the feature kinds, as --features takes them; empty: k-paths
	Features  []ModelFeature  `json:"features"`
	Functions []FunctionModel `json:"functions"`
	Stats     ModelStats      `json:"stats"`
	// Target is how the subject was reached when its coverage was
	// recorded (from the coverage file), so that targeted inputs can be
	// verified and experiments rerun on any subject that can still be
	// built; nil in models of older versions and of files without it.
	Target *coverage.Target `json:"target,omitempty"`
	// Data is the training data, kept so that trees can be refitted with
	// rows learned later; nil in models made before it was kept.
	Data *ModelData `json:"data,omitempty"`
}

// ModelGrammar identifies and carries the grammar a model was trained on.
type ModelGrammar struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"` // sha256 of the grammar's canonical text
	Source      string `json:"source"`      // that text
}

// ModelFeature is one feature. A k-path has its node ids, the symbols on
// the path (labels without ids, as in String→Escape) and pattern text;
// the other kinds (Kind set) carry the fields of features.Feature, and
// Pattern is their description.
type ModelFeature struct {
	Kind    string  `json:"kind,omitempty"` // empty for a k-path
	IDs     []int   `json:"ids,omitempty"`
	Symbols string  `json:"symbols,omitempty"`
	Symbol  string  `json:"symbol,omitempty"`
	Text    string  `json:"text,omitempty"`
	At      string  `json:"at,omitempty"`
	N       float64 `json:"n,omitempty"`
	Pattern string  `json:"pattern"`
}

// Describe is how explanations show a feature. A k-path leads with its
// symbols, parent→child, which say what the feature is about in a few
// words, and then "in:" the grammar text they are substituted into,
// which says where but takes a whole rule to say it; another kind is its
// description.
func (f ModelFeature) Describe() string {
	if f.Kind != "" || f.Symbols == "" || f.Pattern == f.Symbols {
		return f.Pattern
	}
	return f.Symbols + "   in: " + f.Pattern
}

// Feature is the feature the model stores.
func (f ModelFeature) Feature() (features.Feature, error) {
	k := features.KPath
	if f.Kind != "" {
		var err error
		if k, err = features.ParseKind(f.Kind); err != nil {
			return features.Feature{}, err
		}
	}
	return features.Feature{Kind: k, Path: f.IDs, Symbol: f.Symbol, Text: f.Text, At: f.At, N: f.N}, nil
}

// IsPath reports whether the feature is a k-path.
func (f ModelFeature) IsPath() bool { return f.Kind == "" || f.Kind == "kpath" }

func newModelFeature(g *grammar.Graph, f features.Feature) ModelFeature {
	if f.Kind == features.KPath {
		labels := make([]string, len(f.Path))
		for i, id := range f.Path {
			labels[i] = g.Node(id).Label()
		}
		return ModelFeature{IDs: f.Path, Symbols: strings.Join(labels, "→"), Pattern: features.Pattern(g, f.Path)}
	}
	return ModelFeature{Kind: f.Kind.String(), IDs: f.Path, Symbol: f.Symbol, Text: f.Text, At: f.At, N: f.N, Pattern: f.Describe(g)}
}

// ModelStats describe the training run.
type ModelStats struct {
	Rows          int            `json:"rows"`
	Skipped       map[string]int `json:"skipped,omitempty"`
	Observed      int            `json:"functions_observed"` // covered by at least one row
	Trainable     int            `json:"functions_trainable"`
	AlwaysCovered []string       `json:"always_covered,omitempty"`
	Seed          uint64         `json:"seed"`
}

// Fingerprint identifies a grammar by its canonical text, so that
// formatting and comments do not matter.
func Fingerprint(g *grammar.Graph) (fingerprint, source string) {
	source = grammar.Format(g.Source)
	sum := sha256.Sum256([]byte(source))
	return hex.EncodeToString(sum[:]), source
}

// NewModel assembles a model from a dataset and its trained functions.
// The model keeps the dataset's columns and its functions' labels, and
// how the trees were fitted (opts).
func NewModel(subject, grammarName string, g *grammar.Graph, d *Dataset, fns []FunctionModel, opts TrainOptions) *Model {
	seed := opts.Seed
	fp, src := Fingerprint(g)
	m := &Model{Arbor: "model", Version: ModelVersion, Subject: subject, K: d.Vocab.MaxK(),
		Grammar: ModelGrammar{Name: grammarName, Fingerprint: fp, Source: src}, Functions: fns,
		Stats: ModelStats{Rows: d.Rows, Skipped: d.Skipped, Trainable: len(fns), Seed: seed}}
	if k := d.Vocab.Kinds(); k != features.KPaths {
		m.Kinds = k.String()
	}
	for id := 0; id < d.Vocab.Len(); id++ {
		m.Features = append(m.Features, newModelFeature(g, d.Vocab.Feature(id)))
	}
	m.Data = newModelData(d, fns, opts)
	for f, l := range d.Labels {
		switch c := l.Count(); {
		case c == d.Rows && c > 0:
			m.Stats.AlwaysCovered = append(m.Stats.AlwaysCovered, d.Functions[f])
			m.Stats.Observed++
		case c > 0:
			m.Stats.Observed++
		}
	}
	return m
}

// Save writes the model as JSON, gzipped if the path ends in .gz.
func (m *Model) Save(path string) error {
	// Written beside the path and renamed: a kill leaves the old model
	// or the new one, and two saves at once do not share a file.
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	tmp := f.Name()
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("save model: %w", err)
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		zw = gzip.NewWriter(f)
		w = zw
	}
	err = json.NewEncoder(w).Encode(m)
	if zw != nil && err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("save model: %w", err)
	}
	return os.Rename(tmp, path)
}

// LoadModel reads a model file (gzipped or not). A file that is not a
// model at all (another file given by mistake, a truncated download) is
// refused as "PATH: not an arbor model (why)", so that the message names
// the mistake rather than the decoder's first surprise.
func LoadModel(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	m, err := decodeModel(f)
	if errors.Is(err, ErrModelTooLarge) {
		// The reason is the whole message: the decoder's first surprise
		// would be about bytes that were never read.
		return nil, fmt.Errorf("model file %s: %w: not an arbor model, or a damaged one", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not an arbor model (%w)", path, err)
	}
	return m.checked(path)
}

// limitError is a bound of MaxModelSize or MaxModelValues that a model
// file crosses.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrModelTooLarge }

// valueLength reads r to the end of the JSON value it starts with and
// returns the value's length in bytes, failing once it has read
// MaxModelSize bytes or MaxModelValues values (every '[' and '{' and
// every ',' outside strings starts one). It keeps nothing it reads: a
// gzip bomb is refused in constant memory, and a model is read again
// into a buffer of the length found, where json.Decoder would read it
// into one that doubles as it fills. Text that ends inside the value
// counts whole, for the decoder to say where it ends.
func valueLength(r io.Reader, zipped bool) (int, error) {
	buf := make([]byte, 64<<10)
	length, values, depth := 0, 0, 0
	inString, escaped := false, false
	for {
		n, err := r.Read(buf)
		for i, c := range buf[:n] {
			switch {
			case escaped:
				escaped = false
			case inString:
				escaped = c == '\\'
				inString = c != '"'
			case c == '"':
				inString = true
			case c == '[' || c == '{':
				values++
				depth++
			case c == ']' || c == '}':
				if depth--; depth == 0 {
					return length + i + 1, nil // the end of the value
				}
			case c == ',':
				values++
			}
		}
		length += n
		switch {
		case length > MaxModelSize:
			what := "size"
			if zipped {
				what = "decompressed size"
			}
			return 0, &limitError{fmt.Sprintf("%s exceeds %d MiB", what, MaxModelSize>>20)}
		case values > MaxModelValues:
			return 0, &limitError{fmt.Sprintf("more than %d JSON values", MaxModelValues)}
		case err == io.EOF:
			return length, nil
		case err != nil:
			return 0, err
		}
	}
}

// decodeModel reads a model's JSON, gunzipping it first if it is
// gzipped, and says why bytes are not a model in words about the file.
func decodeModel(f io.ReadSeeker) (*Model, error) {
	var magic [2]byte
	n, _ := io.ReadFull(f, magic[:])
	if n == 0 {
		return nil, errors.New("the file is empty")
	}
	zipped := n == 2 && magic == [2]byte{0x1f, 0x8b}
	// The file is read twice: once to measure and bound its JSON, then
	// into a buffer of that length.
	open := func() (io.Reader, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		if !zipped {
			return f, nil
		}
		zr, err := gzip.NewReader(f)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, errors.New("the file ends early: truncated?")
		} else if err != nil {
			return nil, fmt.Errorf("a damaged gzip file: %w", err)
		}
		return zr, nil
	}
	r, err := open()
	if err != nil {
		return nil, err
	}
	length, err := valueLength(r, zipped)
	if err == nil {
		if r, err = open(); err != nil {
			return nil, err
		}
	}
	text := make([]byte, length)
	if err == nil {
		_, err = io.ReadFull(r, text)
	}
	switch {
	case errors.Is(err, ErrModelTooLarge):
		return nil, err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, errors.New("the file ends early: truncated?")
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, new(flate.CorruptInputError)):
		return nil, fmt.Errorf("a damaged gzip file: %w", err)
	case err != nil:
		return nil, err
	case zipped && len(bytes.TrimSpace(text)) == 0:
		return nil, errors.New("gzip of an empty file")
	}
	var m Model
	err = json.Unmarshal(text, &m)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil || errors.As(err, &typ):
		// After a type error the decoder goes on with the other fields, so
		// "arbor" tells a model with one wrong field from other JSON.
		switch {
		case m.Arbor == "model" && err != nil:
			return nil, fmt.Errorf("a damaged model: field %s: %w", typ.Field, err)
		case m.Arbor == "model":
			return &m, nil
		case m.Arbor != "":
			return nil, fmt.Errorf("an arbor %s file", m.Arbor)
		case typ != nil && typ.Field == "":
			return nil, fmt.Errorf("JSON %s, where a model is an object", typ.Value)
		}
		return nil, errors.New(`JSON without "arbor":"model"`)
	case errors.As(err, &syntax) && syntax.Offset >= int64(len(text)):
		// The text ended inside the value: valueLength stopped at the
		// end of the file, not of the value.
		return nil, errors.New("the file ends early: truncated?")
	case errors.As(err, &syntax) && zipped:
		return nil, fmt.Errorf("gzip of something that is not JSON: %w at byte %d", err, syntax.Offset)
	case errors.As(err, &syntax):
		return nil, fmt.Errorf("not JSON: %w at byte %d", err, syntax.Offset)
	}
	return nil, err
}

// checked validates a decoded model's version, features, trees and data.
func (m *Model) checked(path string) (*Model, error) {
	if m.Version != ModelVersion && m.Version != 1 {
		return nil, fmt.Errorf("model %s has format version %d; this arbor reads version %d", path, m.Version, ModelVersion)
	}
	// k bounds the k-paths the predictor's vocabulary reads off every
	// parse; the command line accepts 1 to MaxModelK. A model without
	// one (written by hand or by another tool) reads the k-paths it has.
	if m.K == 0 {
		for _, f := range m.Features {
			if f.IsPath() {
				m.K = max(m.K, min(len(f.IDs), MaxModelK))
			}
		}
		m.K = max(m.K, 1)
	}
	if m.K < 1 || m.K > MaxModelK {
		return nil, fmt.Errorf("model %s: k is %d; models are trained on k-paths of 1 to %d symbols", path, m.K, MaxModelK)
	}
	if _, err := m.FeatureKinds(); err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	for i, f := range m.Features {
		if _, err := f.Feature(); err != nil {
			return nil, fmt.Errorf("model %s: feature %d: %w", path, i, err)
		}
		if f.IsPath() && len(f.IDs) > m.K {
			return nil, fmt.Errorf("model %s: feature %d is a k-path of %d symbols, longer than the model's k of %d", path, i, len(f.IDs), m.K)
		}
	}
	for _, fn := range m.Functions {
		if fn.Tree == nil || len(fn.Tree.Nodes) == 0 {
			return nil, fmt.Errorf("model %s: function %s has no tree", path, fn.Name)
		}
		if err := fn.Tree.check(len(m.Features)); err != nil {
			return nil, fmt.Errorf("model %s: the tree of %s is malformed: %w", path, fn.Name, err)
		}
		if d := treeDepth(fn.Tree); d > MaxTreeDepth {
			return nil, fmt.Errorf("model %s: the tree of %s is %d deep; trees of at most %d levels are read", path, fn.Name, d, MaxTreeDepth)
		}
	}
	if md := m.Data; md != nil {
		if err := md.checkBounds(); err != nil {
			return nil, fmt.Errorf("model %s: training data: %w", path, err)
		}
		if err := md.check(m); err != nil {
			return nil, fmt.Errorf("model %s: %w", path, err)
		}
	}
	return m, nil
}

// checkBounds refuses the fitting options and row counts of training
// data that a refit could not use or that would allocate without bound:
// Model.Dataset makes a bitset of Rows bits for every never-covered
// function, which no stored bitset pins when the model has no features.
func (md *ModelData) checkBounds() error {
	switch {
	case md.MaxDepth < 0 || md.MaxDepth > MaxTreeDepth:
		return fmt.Errorf("tree depth %d, where trees are fitted 1 to %d deep (0 for the default)", md.MaxDepth, MaxTreeDepth)
	case md.MinSamplesLeaf < 0:
		return fmt.Errorf("%d rows at least in a leaf", md.MinSamplesLeaf)
	case md.Rows < 0:
		return fmt.Errorf("%d rows", md.Rows)
	}
	// The rows' bitsets rebuilt must fit in what a model file may hold.
	if size := (int64(md.Rows) + 7) / 8 * int64(len(md.NeverCovered)+1); size > MaxModelSize {
		return fmt.Errorf("%d rows for %d functions that no row ran: their bitsets would take %d MiB, more than a model may (%d MiB)",
			md.Rows, len(md.NeverCovered), size>>20, MaxModelSize>>20)
	}
	return nil
}

// treeDepth is Tree.Depth without recursion, for a tree that passed
// check: a model file may hold a deep chain of nodes, and depth is what
// is being checked before anything recurses into it.
func treeDepth(t *Tree) int {
	type step struct{ node, depth int }
	deepest := 0
	stack := []step{{0, 0}}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deepest = max(deepest, s.depth)
		if n := &t.Nodes[s.node]; !n.Leaf() {
			stack = append(stack, step{n.Absent, s.depth + 1}, step{n.Present, s.depth + 1})
		}
	}
	return deepest
}

// FeatureKinds is the set of feature kinds the model was trained with.
func (m *Model) FeatureKinds() (features.Kinds, error) {
	if m.Kinds == "" {
		return features.KPaths, nil
	}
	return features.ParseKinds(m.Kinds)
}

// Function returns the model of the named function.
func (m *Model) Function(name string) (*FunctionModel, error) {
	for i := range m.Functions {
		if m.Functions[i].Name == name {
			return &m.Functions[i], nil
		}
	}
	for _, a := range m.Stats.AlwaysCovered {
		if a == name {
			return nil, fmt.Errorf("%s ran for every training input: there is nothing to learn about it", name)
		}
	}
	var close []string
	for _, f := range m.Functions {
		if strings.Contains(f.Name, name) {
			close = append(close, f.Name)
		}
	}
	if len(close) > 0 && len(close) <= 5 {
		return nil, fmt.Errorf("the model has no function %q; did you mean %s?", name, strings.Join(close, " or "))
	}
	return nil, fmt.Errorf("the model has no function %q (it has %d; 'arbor explain --model M' lists them)", name, len(m.Functions))
}

// RareRate is the base rate (the share of random inputs that run a
// function) under which a function is rare: the functions a user needs
// targeting for (target --rare, the experiments' rare functions).
const RareRate = 0.05

// ModelConfig names a model and says how to train it.
type ModelConfig struct {
	// Subject is the program's name, as its coverage file has it, and
	// GrammarName the grammar's, as the model records them.
	Subject, GrammarName string
	// Train shapes the trees.
	Train TrainOptions
	// Target, if set, is how the program was run, recorded in the model
	// (a model is data: commands run it only when the user names it).
	Target *coverage.Target
}

// TrainModel is the training recipe of arbor train, the demo and the
// experiments: a tree for every function that some of the dataset's
// rows run and others do not (Train), wrapped with the grammar, the
// feature vocabulary and the training data into a model (NewModel).
func TrainModel(ctx context.Context, g *grammar.Graph, d *Dataset, cfg ModelConfig) (*Model, error) {
	fns, err := Train(ctx, d, cfg.Train)
	if err != nil {
		return nil, err
	}
	m := NewModel(cfg.Subject, cfg.GrammarName, g, d, fns, cfg.Train)
	m.Target = cfg.Target
	return m, nil
}
