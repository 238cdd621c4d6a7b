package antlr

import "github.com/arbor-fuzz/arbor/grammar"

// Kind is the kind of a grammar file: combined, parser or lexer.
type Kind int

const (
	Combined Kind = iota // grammar X;
	Parser               // parser grammar X;
	Lexer                // lexer grammar X;
)

func (k Kind) String() string {
	switch k {
	case Parser:
		return "parser grammar"
	case Lexer:
		return "lexer grammar"
	}
	return "grammar"
}

// File is the syntax of one .g4 file, as far as conversion needs it.
// Actions, arguments and return values are kept only as positions, for
// the warnings and errors that mention them.
type File struct {
	Filename string
	Kind     Kind
	Name     string            // the name after grammar
	Options  map[string]string // grammar-level options, such as tokenVocab
	Tokens   []string          // names declared in tokens { ... }
	Rules    []*Rule           // in textual order, lexer rules of every mode
	Imports  []grammar.Position
	Pos      grammar.Position // of the grammar declaration
}

// Rule is a parser rule (lower-case name) or a lexer rule (upper-case name).
type Rule struct {
	Name     string
	Pos      grammar.Position
	Fragment bool
	Mode     string // lexer mode; "" for the default mode
	ModePos  grammar.Position
	Options  map[string]string // rule options, such as caseInsensitive
	Body     *Block
}

// IsLexer reports whether r is a lexer rule.
func (r *Rule) IsLexer() bool { return isTokenName(r.Name) }

func isTokenName(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

// Elem is one element of an alternative: *Ref, *Lit, *Range, *Set,
// *Not, *Wildcard, *Block, *Repeat or *Action.
type Elem interface{ At() grammar.Position }

// Block is a parenthesised list of alternatives, or a rule's body.
type Block struct {
	Pos  grammar.Position
	Alts []*Alt
}

// Alt is one alternative: its elements, its label (# Name) if any, its
// lexer commands (-> skip) if any, and its associativity (<assoc=right>),
// which only a left-recursive rule's binary alternatives read.
type Alt struct {
	Pos      grammar.Position
	Elems    []Elem
	Label    string
	LabelPos grammar.Position
	Commands []*Command
	Assoc    string // "right", "left" or "" (left)
}

// Command is a lexer command: -> skip, -> channel(HIDDEN), -> type(T) ...
type Command struct {
	Pos  grammar.Position
	Name string
	Arg  string
}

// Ref is a reference to a rule or a token, EOF included.
type Ref struct {
	Pos  grammar.Position
	Name string
}

// Lit is a quoted literal; Text is its unescaped value.
type Lit struct {
	Pos  grammar.Position
	Text string
}

// Range is 'a'..'z'.
type Range struct {
	Pos      grammar.Position
	From, To rune
}

// Set is a lexer character set [a-z\u00e9]: Ranges holds pairs lo, hi.
// Classes holds Unicode property names written \p{...} (negated ones
// prefixed with ^).
type Set struct {
	Pos    grammar.Position
	Ranges []rune
	Props  []string
}

// Not is ~X: in a lexer rule, any character outside the set X; in a
// parser rule, any token other than those of X.
type Not struct {
	Pos grammar.Position
	X   Elem
}

// Wildcard is . : any character in a lexer rule, any token in a parser rule.
type Wildcard struct{ Pos grammar.Position }

// Repeat is X?, X*, X+ or a non-greedy X??, X*?, X+?.
type Repeat struct {
	Pos    grammar.Position
	X      Elem
	Op     byte // '?', '*' or '+'
	Greedy bool
}

// bounds returns the repetition's least and most counts (grammar.Unbounded
// for no most).
func (r *Repeat) bounds() (min, max int) {
	switch r.Op {
	case '?':
		return 0, 1
	case '+':
		return 1, grammar.Unbounded
	}
	return 0, grammar.Unbounded
}

// Action is {...} or, with Predicate set, a semantic predicate {...}?.
type Action struct {
	Pos       grammar.Position
	Predicate bool
}

func (e *Block) At() grammar.Position    { return e.Pos }
func (e *Ref) At() grammar.Position      { return e.Pos }
func (e *Lit) At() grammar.Position      { return e.Pos }
func (e *Range) At() grammar.Position    { return e.Pos }
func (e *Set) At() grammar.Position      { return e.Pos }
func (e *Not) At() grammar.Position      { return e.Pos }
func (e *Wildcard) At() grammar.Position { return e.Pos }
func (e *Repeat) At() grammar.Position   { return e.Pos }
func (e *Action) At() grammar.Position   { return e.Pos }
