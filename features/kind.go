package features

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Kind is a family of binary features of a derivation tree.
type Kind uint8

// The feature kinds. Every feature is binary (present or not in an
// input), so the trees, constraints and explanations built on k-paths
// work on all of them.
const (
	// KPath: a k-path occurs in the tree (Path holds its node ids).
	KPath Kind = iota
	// Sibling: two symbolic nodes are adjacent children of one parent
	// (Path = [a, b]); a is Edge for "b comes first", b is Edge for "a
	// comes last". It says what stands next to what, which presence of a
	// path cannot: "an optional prefix is missing in some instance".
	Sibling
	// Value: a regex terminal derives exactly Text in some instance (Path
	// = [node]). Only values frequent in training get a feature.
	Value
	// Class: the text of a regex terminal (Path = [node]) has a character
	// of class Text somewhere, or first or last (At).
	Class
	// Length: the longest text a symbol derives in the input is at least
	// N bytes (Symbol is the symbol's label).
	Length
	// Occurrences: the symbol occurs at least N times.
	Occurrences
	// Number: the largest number a symbol's text reads as is at least N.
	Number
	// Relation: in some occurrence of rule Symbol, two of its children
	// compare as Text says ("Second[0].num > Second[1].num",
	// "ElementName[0].text != EndName[0].text"): the i-th child of one
	// rule against the j-th of another (or the same), as numbers when
	// both read as numbers, else as texts.
	Relation
	// Match: the texts of rule Symbol's occurrences against those of rule
	// Text's elsewhere in the input (At): "some" (an occurrence of Symbol
	// has the text of an occurrence of Text; of another occurrence, if
	// they are one rule), "none" (an occurrence of Symbol has a text no
	// occurrence of Text has) or "none before" (no occurrence of Text
	// before it has its text). A reference with no definition, a repeated
	// name, a label defined and used are matches.
	Match
	// Adjacent: two tokens (terminals) stand next to each other in the
	// text, the first ending with a character of class Text and the
	// second starting with one of class At (see ClassOf): what a scanner
	// may read as one token ("-" "-" as "--").
	Adjacent
	// Clause: the input breaks the grammar's where clause Text (as
	// written) somewhere; or, with At BeforeBreak, an occurrence of rule
	// Symbol ends before the first broken instance of any clause (or
	// anywhere, if none is broken): a program that checks as it reads
	// stops at the first break.
	Clause
	numKinds
)

var kindNames = [numKinds]string{"kpath", "sibling", "value", "class", "length", "count", "number",
	"relation", "match", "adjacent", "clause"}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind reads a kind's name.
func ParseKind(s string) (Kind, error) {
	for k, n := range kindNames {
		if n == s {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown feature kind %q (kinds: %s)", s, strings.Join(kindNames[:], ", "))
}

// Kinds is a set of feature kinds.
type Kinds uint16

// KPaths is the set of k-paths alone, arbor's original feature set.
const KPaths Kinds = 1 << KPath

// AllKinds is the set of every kind.
const AllKinds Kinds = 1<<numKinds - 1

// Has reports whether k is in the set.
func (s Kinds) Has(k Kind) bool { return s&(1<<k) != 0 }

// With returns the set with k added.
func (s Kinds) With(k Kind) Kinds { return s | 1<<k }

// On returns the kinds of s that g's inputs can have: without where
// clauses, no Clause features. A vocabulary reads only these, so that
// asking for clause features of a grammar without clauses costs
// nothing (k-paths alone take the fastest walk).
func (s Kinds) On(g *grammar.Graph) Kinds {
	if s.Has(Clause) && (g.Source == nil || len(g.Source.Where) == 0) {
		s &^= 1 << Clause
	}
	if s == 0 {
		s = KPaths
	}
	return s
}

// String lists the kinds, comma-separated, in their fixed order.
func (s Kinds) String() string {
	var names []string
	for k := Kind(0); k < numKinds; k++ {
		if s.Has(k) {
			names = append(names, k.String())
		}
	}
	return strings.Join(names, ",")
}

// ParseKinds reads a comma-separated list of kinds ("kpath,sibling"), or
// "all". A set always contains kpath: the other kinds refine k-paths,
// and targeting steers by k-paths.
func ParseKinds(s string) (Kinds, error) {
	set := KPaths
	if strings.TrimSpace(s) == "all" {
		return AllKinds, nil
	}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		k, err := ParseKind(name)
		if err != nil {
			return 0, err
		}
		set = set.With(k)
	}
	return set, nil
}

// Edge stands for "no sibling" in a Sibling feature's path: [Edge, b]
// means b comes first under its parent, [a, Edge] that a comes last.
const Edge = -1

// Feature is one binary feature. Which fields matter depends on Kind.
type Feature struct {
	Kind   Kind
	Path   Path    // KPath: the path; Sibling: the pair; Value, Class: the terminal
	Symbol string  // Length, Occurrences, Number: the symbol's label (rule name, "lit", /re/); Relation: the parent rule; Match: the first rule
	Text   string  // Value: the text; Class: the class (see ClassOf); Relation: the comparison; Match: the second rule; Adjacent: the first class; Clause: the clause
	At     string  // Class: "" for anywhere, "first" or "last"; Match: "some", "none" or "none before"; Adjacent: the second class
	N      float64 // Length, Occurrences, Number: the threshold
}

// Key identifies the feature, for use as a map key.
func (f Feature) Key() string { return string(f.appendKey(nil)) }

// appendKey appends the feature's key to b; lookups with a reused buffer
// do not allocate.
func (f Feature) appendKey(b []byte) []byte {
	b = append(b, byte(f.Kind))
	b = f.Path.appendKey(b)
	switch f.Kind {
	case Value, Class:
		b = append(b, 0)
		b = append(b, f.At...)
		b = append(b, 0)
		b = append(b, f.Text...)
	case Length, Occurrences, Number:
		b = append(b, f.Symbol...)
		b = append(b, 0)
		b = strconv.AppendFloat(b, f.N, 'g', -1, 64)
	case Relation, Match, Adjacent, Clause:
		b = append(b, f.Symbol...)
		b = append(b, 0)
		b = append(b, f.At...)
		b = append(b, 0)
		b = append(b, f.Text...)
	}
	return b
}

// Describe renders the feature as a person reads it. A k-path is its
// Pattern; the other kinds name the rule or terminal they are about:
//
//	in Host: Port comes first
//	/[a-z]+/ in Scheme is "http"
//	/[^;]*/ in Param has ';'
//	#Member ≥ 3
func (f Feature) Describe(g *grammar.Graph) string {
	label := func(id int) string {
		if n := g.Node(id); n != nil {
			return symbolText(n)
		}
		return "?" + strconv.Itoa(id)
	}
	rule := func(id int) string {
		if n := g.Node(id); n != nil {
			return n.Rule
		}
		return "?"
	}
	switch f.Kind {
	case KPath:
		return Pattern(g, f.Path)
	case Sibling:
		if len(f.Path) != 2 {
			break
		}
		a, b := f.Path[0], f.Path[1]
		switch {
		case a == Edge && b == Edge:
		case a == Edge:
			return fmt.Sprintf("in %s: %s comes first", rule(b), label(b))
		case b == Edge:
			return fmt.Sprintf("in %s: %s comes last", rule(a), label(a))
		default:
			return fmt.Sprintf("in %s: %s directly followed by %s", rule(a), label(a), label(b))
		}
	case Value:
		if len(f.Path) == 1 {
			return fmt.Sprintf("%s in %s is %s", label(f.Path[0]), rule(f.Path[0]), strconv.Quote(f.Text))
		}
	case Class:
		if len(f.Path) == 1 {
			where := "has"
			if f.At != "" {
				where = "has " + f.At + " char"
			}
			return fmt.Sprintf("%s in %s %s %s", label(f.Path[0]), rule(f.Path[0]), where, f.Text)
		}
	case Length:
		return fmt.Sprintf("len(%s) ≥ %s", f.Symbol, strconv.FormatFloat(f.N, 'g', -1, 64))
	case Occurrences:
		return fmt.Sprintf("#%s ≥ %s", f.Symbol, strconv.FormatFloat(f.N, 'g', -1, 64))
	case Number:
		return fmt.Sprintf("%s ≥ %s (as a number)", f.Symbol, strconv.FormatFloat(f.N, 'g', -1, 64))
	case Relation, Match, Adjacent, Clause:
		return f.describeRelational()
	}
	return fmt.Sprintf("%s feature %v", f.Kind, f.Path)
}

// ClassOf is the character class of r that Class features name: "digit",
// "letter", "space", "control", "non-ASCII", or, for ASCII punctuation,
// the character itself quoted ("';'"), because which separator a text
// holds is what parsers decide on.
func ClassOf(r rune) string {
	if r >= 0 && r < utf8.RuneSelf {
		return asciiClasses[r]
	}
	return "non-ASCII"
}

// asciiClasses is ClassOf of every ASCII character, computed once so that
// classifying allocates nothing.
var asciiClasses = func() (t [utf8.RuneSelf]string) {
	for r := range rune(utf8.RuneSelf) {
		switch {
		case r >= '0' && r <= '9':
			t[r] = "digit"
		case unicode.IsLetter(r):
			t[r] = "letter"
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
			t[r] = "space"
		case r < 0x20 || r == 0x7f:
			t[r] = "control"
		default:
			t[r] = "'" + string(r) + "'"
		}
	}
	return t
}()

// classesOf appends the distinct classes of s (anywhere) to dst.
func classesOf(s string, dst []string) []string {
	for _, r := range s {
		c := ClassOf(r)
		if !slices.Contains(dst, c) {
			dst = append(dst, c)
		}
	}
	return dst
}
