package learn

import (
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// ModelVersion is the version of the model file format. Version 2 added
// feature kinds besides k-paths; version 1 files (k-paths only) are read
// as they are.
const ModelVersion = 2

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
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
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
	if err != nil {
		return nil, fmt.Errorf("%s: not an arbor model (%w)", path, err)
	}
	return m.checked(path)
}

// decodeModel reads a model's JSON, gunzipping it first if it is
// gzipped, and says why bytes are not a model in words about the file.
func decodeModel(f io.ReadSeeker) (*Model, error) {
	var r io.Reader = f
	var magic [2]byte
	n, _ := io.ReadFull(f, magic[:])
	if n == 0 {
		return nil, errors.New("the file is empty")
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	zipped := n == 2 && magic == [2]byte{0x1f, 0x8b}
	if zipped {
		zr, err := gzip.NewReader(f)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, errors.New("the file ends early: truncated?")
		} else if err != nil {
			return nil, fmt.Errorf("a damaged gzip file: %w", err)
		}
		r = zr
	}
	var m Model
	err := json.NewDecoder(r).Decode(&m)
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
	case errors.Is(err, io.EOF) && zipped:
		return nil, errors.New("gzip of an empty file")
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return nil, errors.New("the file ends early: truncated?")
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, new(flate.CorruptInputError)):
		return nil, fmt.Errorf("a damaged gzip file: %w", err)
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
	if _, err := m.FeatureKinds(); err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	for i, f := range m.Features {
		if _, err := f.Feature(); err != nil {
			return nil, fmt.Errorf("model %s: feature %d: %w", path, i, err)
		}
	}
	for _, fn := range m.Functions {
		if fn.Tree == nil || len(fn.Tree.Nodes) == 0 {
			return nil, fmt.Errorf("model %s: function %s has no tree", path, fn.Name)
		}
		if err := fn.Tree.check(len(m.Features)); err != nil {
			return nil, fmt.Errorf("model %s: the tree of %s is malformed: %w", path, fn.Name, err)
		}
	}
	if m.Data != nil {
		if err := m.Data.check(m); err != nil {
			return nil, fmt.Errorf("model %s: %w", path, err)
		}
	}
	return m, nil
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
