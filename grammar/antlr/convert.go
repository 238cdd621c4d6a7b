package antlr

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/arbor-fuzz/arbor/grammar"
)

// The rules conversion adds for hidden-token material (whitespace and
// comments: lexer rules with -> skip or -> channel(...)). ANTLR names
// start with a letter, so these never clash with a user's rule.
const (
	// Gap stands for any hidden material, or none. It follows every token
	// that cannot end in a word character.
	Gap = "_"
	// SpaceGap is hidden material, at least one token of it. It follows a
	// token that can end in a word character ([0-9A-Za-z_]) where what
	// comes next always starts with one: 'if' x must be written with a
	// space, as ANTLR's lexer would read ifx as one identifier.
	SpaceGap = "__"
	// WordGap follows a token that can end in a word character where what
	// comes next may start with one or not: hidden material, or none if
	// the next character is not a word character.
	WordGap = "_w"
	// GlueGap follows a token whose last character and the first
	// character of what may come next begin a hidden token together ('-'
	// before '-1' where -- starts a comment): hidden material, or none.
	// The parser accepts none, as for Gap, but the generator always draws
	// some, so that what it generates is read as it was built.
	GlueGap = "_g"
)

// Config says how to convert. The zero Config converts with the
// defaults.
type Config struct {
	// Start names the start rule. Empty means the first parser rule (the
	// ANTLR convention), or for a lexer grammar alone its first token rule.
	Start string
}

// Convert converts with the default Config.
func Convert(files ...*File) (*grammar.Grammar, []grammar.Warning, error) {
	var c Config
	return c.Convert(files...)
}

// Convert turns parsed .g4 files into an arbor grammar: one combined
// grammar, a parser grammar with its lexer grammar (in either order), or
// a lexer grammar alone. The result keeps the grammar's rule names; only
// rules reachable from the start rule are kept. Warnings say what was
// dropped or approximated; the error, if any, is a grammar.ErrorList
// whose messages for unsupported constructs start with "unsupported".
func (c *Config) Convert(files ...*File) (*grammar.Grammar, []grammar.Warning, error) {
	cv := &converter{
		parserRules: map[string]*Rule{},
		lexerRules:  map[string]*Rule{},
		typeAlts:    map[string][]string{},
		lexerExpr:   map[string]grammar.Expr{},
		ext:         map[string]runeSet{},
		gapExt:      map[*grammar.Ref]runeSet{},
		gapTok:      map[*grammar.Ref]grammar.Expr{},
		nullable:    map[string]int{},
		labels:      map[string]bool{},
		extras:      map[string][]string{},
		stratified:  map[string]bool{},
	}
	g := cv.convert(c.Start, files)
	if err := cv.errs.err(); err != nil {
		return nil, cv.warnings, err
	}
	return g, cv.warnings, nil
}

type converter struct {
	errs     errorList
	warnings []grammar.Warning

	filename    string // of the grammar holding the parser rules
	parserOrder []*Rule
	lexerOrder  []*Rule
	parserRules map[string]*Rule
	lexerRules  map[string]*Rule
	declared    map[string]grammar.Position // tokens { ... }
	hidden      []*Rule
	typeAlts    map[string][]string // token name -> rules that make it with -> type(T)
	caseInsens  bool
	tokenOrder  []string // tokens a parser wildcard or ~set stands for

	lexerExpr  map[string]grammar.Expr       // converted lexer rule bodies
	ext        map[string]runeSet            // memo of tokenExt
	gapExt     map[*grammar.Ref]runeSet      // gaps to decide: what could extend the token before them
	gapTok     map[*grammar.Ref]grammar.Expr // every gap: the token before it
	glue       [][2]rune                     // the first two characters of hidden tokens
	nullable   map[string]int                // memo: 0 unknown, 1 in progress, 2 no, 3 yes
	labels     map[string]bool               // names taken by alternative labels
	extras     map[string][]string           // parser rule -> the rules of its labelled alternatives
	stratified map[string]bool               // left-recursive rules converted by levels
	gaps       bool                          // the grammar has hidden tokens
	wordLoop   int                           // memo of hasWordLoop
	inHidden   bool                          // a hidden token's rule is being converted

	out []*grammar.Rule
}

func (cv *converter) errorf(pos grammar.Position, format string, args ...any) {
	cv.errs.add(pos, format, args...)
}

func (cv *converter) warnf(pos grammar.Position, format string, args ...any) {
	cv.warnings = append(cv.warnings, grammar.Warning{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// convert converts the files from the start rule (Config.Convert).
func (cv *converter) convert(start string, files []*File) *grammar.Grammar {
	parserFile := cv.collect(files)
	if parserFile == nil {
		cv.errs.add(grammar.Position{}, "no grammar to convert")
		return nil
	}
	cv.filename = parserFile.Filename
	cv.classifyLexer()
	if cv.errs.bail {
		return nil
	}
	startRule := cv.startRule(start, parserFile)
	if startRule == nil {
		return nil
	}
	for _, r := range cv.parserOrder {
		cv.labels[r.Name] = true
	}
	for _, r := range cv.lexerOrder {
		cv.labels[r.Name] = true
	}

	cv.gaps = len(cv.hidden) > 0 && !startRule.IsLexer()
	var gapRules []*grammar.Rule
	if cv.gaps {
		gapRules = cv.gapRules()
	}
	cv.convertReachable(startRule)
	cv.out = cv.sourceOrder(startRule)
	if cv.gaps {
		cv.leadingGap(startRule)
		refineGaps(cv.out, cv.gapExt, cv.gapTok, cv.glue)
	}
	used := map[string]bool{}
	for _, r := range cv.out {
		forEachRef(r.Body, func(n string) { used[n] = true })
	}
	for _, r := range gapRules {
		if used[r.Name] {
			cv.out = append(cv.out, r)
		}
	}
	for _, r := range cv.out {
		r.Body = mapRegex(r.Body, printable)
	}
	return &grammar.Grammar{Filename: cv.filename, Rules: cv.out}
}

// collect gathers the files' rules and token declarations, checking
// that the files make one grammar, and returns the file that holds the
// parser rules (else the first file), or nil if there is none.
func (cv *converter) collect(files []*File) *File {
	cv.declared = map[string]grammar.Position{}
	var parserFile *File
	for _, f := range files {
		if f == nil {
			continue
		}
		for _, at := range f.Imports {
			cv.errorf(at, "unsupported: import of other grammars; convert a grammar that holds all its rules")
		}
		hasParser := hasParserRules(f)
		if f.Kind == Lexer && hasParser {
			cv.errorf(f.Pos, "lexer grammar %s holds parser rules", f.Name)
		}
		if f.Kind == Parser || f.Kind == Combined && hasParser {
			if parserFile != nil {
				cv.errorf(f.Pos, "two parser grammars given (%s and %s); give a parser grammar and its lexer grammar", parserFile.Name, f.Name)
				continue
			}
			parserFile = f
		}
		if v := strings.TrimSpace(f.Options["caseInsensitive"]); v == "true" && (f.Kind != Parser) {
			cv.caseInsens = true
		}
		for _, name := range f.Tokens {
			cv.declared[name] = f.Pos
		}
		for _, r := range f.Rules {
			if r.IsLexer() {
				if f.Kind == Parser {
					cv.errorf(r.Pos, "parser grammar %s holds lexer rule %s", f.Name, r.Name)
					continue
				}
				cv.define(cv.lexerRules, &cv.lexerOrder, r)
				continue
			}
			cv.define(cv.parserRules, &cv.parserOrder, r)
		}
	}
	if parserFile == nil {
		for _, f := range files {
			if f != nil {
				parserFile = f
				break
			}
		}
	}
	return parserFile
}

// startRule is the rule named start, or without a name the first parser
// rule, or for a lexer grammar alone its first token rule; nil, with an
// error, if there is none.
func (cv *converter) startRule(start string, parserFile *File) *Rule {
	switch {
	case start != "":
		r := cv.parserRules[start]
		if r == nil {
			r = cv.lexerRules[start]
		}
		if r == nil {
			cv.errorf(parserFile.Pos, "no rule named %s to start from", start)
		}
		return r
	case len(cv.parserOrder) > 0:
		return cv.parserOrder[0]
	}
	for _, r := range cv.lexerOrder {
		if !r.Fragment && !cv.isHidden(r.Name) {
			return r
		}
	}
	cv.errorf(parserFile.Pos, "the grammar has no rule to start from")
	return nil
}

// convertReachable converts the rules reachable from the start rule,
// breadth first in the order they are met, which keeps the grammar's
// own order for most grammars.
func (cv *converter) convertReachable(startRule *Rule) {
	done := map[string]bool{}
	queue := []*Rule{startRule}
	done[startRule.Name] = true
	enqueue := func(name string) {
		if done[name] {
			return
		}
		r := cv.parserRules[name]
		if r == nil {
			r = cv.lexerRules[name]
		}
		if r == nil {
			if _, ok := cv.declared[name]; ok && len(cv.typeAlts[name]) > 0 {
				done[name] = true
				cv.out = append(cv.out, &grammar.Rule{Name: name, Pos: cv.declared[name], Body: cv.typeAltsExpr(name, nil)})
				for _, t := range cv.typeAlts[name] {
					queue = append(queue, cv.lexerRules[t])
					done[t] = true
				}
			}
			return
		}
		done[name] = true
		queue = append(queue, r)
	}
	for len(queue) > 0 && !cv.errs.bail {
		r := queue[0]
		queue = queue[1:]
		var body grammar.Expr
		if r.IsLexer() {
			body = cv.lexerRule(r)
		} else {
			var extra []*grammar.Rule
			body, extra = cv.parserRule(r)
			cv.out = append(cv.out, &grammar.Rule{Name: r.Name, Pos: r.Pos, Body: body})
			cv.out = append(cv.out, extra...)
			for _, x := range extra {
				cv.extras[r.Name] = append(cv.extras[r.Name], x.Name)
			}
			for _, x := range extra {
				forEachRef(x.Body, enqueue)
			}
			forEachRef(body, enqueue)
			continue
		}
		cv.out = append(cv.out, &grammar.Rule{Name: r.Name, Pos: r.Pos, Body: body})
		forEachRef(body, enqueue)
	}
}

// leadingGap lets hidden material start the input: the start rule
// begins with a gap. Where rules refer to the start rule, the gap comes
// again before each such reference, after the gap of the token before
// it, and white space there splits two ways. A left-recursive start rule
// refers to itself at every operator, which would undo the one tree per
// input its levels give (leftrec.go): its body becomes a rule of its
// own, Start_0, which the references use. (Other start rules keep the
// gap in their body.)
func (cv *converter) leadingGap(start *Rule) {
	at := -1
	referenced := false
	for i, r := range cv.out {
		if r.Name == start.Name {
			at = i
		}
		eachRef(r.Body, func(ref *grammar.Ref) { referenced = referenced || ref.Name == start.Name })
	}
	if at < 0 {
		return
	}
	top := cv.out[at]
	gap := &grammar.Ref{At: start.Pos, Name: Gap}
	if !referenced || !cv.stratified[start.Name] {
		top.Body = &grammar.Seq{At: start.Pos, Items: []grammar.Expr{gap, top.Body}}
		return
	}
	name := start.Name + "_0"
	if cv.labels[name] {
		name = cv.freshName(name)
	}
	cv.labels[name] = true
	for _, r := range cv.out {
		eachRef(r.Body, func(ref *grammar.Ref) {
			if ref.Name == start.Name {
				ref.Name = name
			}
		})
	}
	body := &grammar.Rule{Name: name, Pos: start.Pos, Body: top.Body}
	top.Body = &grammar.Seq{At: start.Pos, Items: []grammar.Expr{gap, &grammar.Ref{At: start.Pos, Name: name}}}
	cv.out = slices.Insert(cv.out, at+1, body)
}

// eachRef calls f with every reference in e.
func eachRef(e grammar.Expr, f func(*grammar.Ref)) {
	switch e := e.(type) {
	case *grammar.Ref:
		f(e)
	case *grammar.Seq:
		for _, x := range e.Items {
			eachRef(x, f)
		}
	case *grammar.Alt:
		for _, x := range e.Alts {
			eachRef(x, f)
		}
	case *grammar.Repeat:
		eachRef(e.X, f)
	}
}

// define adds a rule to rules and order, unless its name is taken.
func (cv *converter) define(rules map[string]*Rule, order *[]*Rule, r *Rule) {
	if prev, ok := rules[r.Name]; ok {
		cv.errorf(r.Pos, "rule %s is defined twice (first at %s)", r.Name, prev.Pos)
		return
	}
	rules[r.Name] = r
	*order = append(*order, r)
}

// mapRegex applies f to the source of every regular expression in e.
func mapRegex(e grammar.Expr, f func(string) string) grammar.Expr {
	switch e := e.(type) {
	case *grammar.Regex:
		e.Src = f(e.Src)
	case *grammar.Seq:
		for i, x := range e.Items {
			e.Items[i] = mapRegex(x, f)
		}
	case *grammar.Alt:
		for i, x := range e.Alts {
			e.Alts[i] = mapRegex(x, f)
		}
	case *grammar.Repeat:
		e.X = mapRegex(e.X, f)
	}
	return e
}

// sourceOrder puts the converted rules in the order the grammar has
// them: the start rule, the parser rules, each followed by the rules of
// its labelled alternatives, then the lexer rules.
func (cv *converter) sourceOrder(start *Rule) []*grammar.Rule {
	byName := map[string]*grammar.Rule{}
	for _, r := range cv.out {
		byName[r.Name] = r
	}
	var out []*grammar.Rule
	placed := map[string]bool{}
	var place func(name string)
	place = func(name string) {
		if r := byName[name]; r != nil && !placed[name] {
			placed[name] = true
			out = append(out, r)
			for _, x := range cv.extras[name] {
				place(x)
			}
		}
	}
	place(start.Name)
	for _, r := range cv.parserOrder {
		place(r.Name)
	}
	for _, r := range cv.lexerOrder {
		place(r.Name)
	}
	for _, r := range cv.out {
		place(r.Name)
	}
	return out
}

func hasParserRules(f *File) bool {
	for _, r := range f.Rules {
		if !r.IsLexer() {
			return true
		}
	}
	return false
}

// classifyLexer finds the hidden rules, the rules that make other tokens
// (-> type), and the constructs arbor cannot convert (modes, more).
func (cv *converter) classifyLexer() {
	modeReported := map[string]bool{}
	for _, r := range cv.lexerOrder {
		if r.Mode != "" {
			if !modeReported[r.Mode] {
				modeReported[r.Mode] = true
				cv.errorf(r.ModePos, "unsupported: lexer mode %s (a scannerless grammar has no lexer modes; merge the mode's rules into the parser rules)", r.Mode)
			}
			continue
		}
		hidden, typed := false, ""
		for _, a := range r.Body.Alts {
			for _, c := range a.Commands {
				switch c.Name {
				case "skip", "channel":
					hidden = true
				case "type":
					typed = strings.TrimSpace(c.Arg)
				case "pushMode", "popMode", "mode":
					cv.errorf(c.Pos, "unsupported: lexer command %s (lexer modes have no scannerless equivalent)", c.Name)
				case "more":
					cv.errorf(c.Pos, "unsupported: lexer command more")
				default:
					cv.errorf(c.Pos, "unsupported: lexer command %s", c.Name)
				}
			}
		}
		switch {
		case hidden:
			if r.Fragment {
				cv.warnf(r.Pos, "-> skip on fragment %s has no effect in ANTLR; ignored", r.Name)
				continue
			}
			cv.hidden = append(cv.hidden, r)
		case typed != "":
			cv.typeAlts[typed] = append(cv.typeAlts[typed], r.Name)
		}
		if !r.Fragment && !hidden && typed == "" {
			cv.tokenOrder = append(cv.tokenOrder, r.Name)
		}
	}
	for name := range cv.typeAlts {
		if _, ok := cv.lexerRules[name]; !ok {
			if _, ok := cv.declared[name]; !ok {
				cv.errorf(cv.lexerRules[cv.typeAlts[name][0]].Pos, "-> type(%s) names a token that is neither a lexer rule nor declared in tokens { }", name)
			}
		}
	}
}

func (cv *converter) isHidden(name string) bool {
	for _, r := range cv.hidden {
		if r.Name == name {
			return true
		}
	}
	return false
}

// forEachRef calls f with the name of every reference in e.
func forEachRef(e grammar.Expr, f func(string)) {
	eachRef(e, func(r *grammar.Ref) { f(r.Name) })
}

// ---- parser rules ----

// parserRule converts a parser rule. An alternative labelled # Name
// becomes a rule of its own named Name (alternatives sharing a label
// share the rule), so that trees and explanations keep the names the
// grammar's author gave; the extra rules are returned after the body.
func (cv *converter) parserRule(r *Rule) (grammar.Expr, []*grammar.Rule) {
	if body, extra, ok := cv.leftRecursive(r); ok {
		cv.stratified[r.Name] = true
		return body, extra
	}
	var extra []*grammar.Rule
	byLabel := map[string]*grammar.Rule{}
	var alts []grammar.Expr
	for _, a := range r.Body.Alts {
		x := cv.parserAlt(a)
		if a.Label == "" {
			alts = append(alts, x)
			continue
		}
		if lr, ok := byLabel[a.Label]; ok {
			lr.Body.(*grammar.Alt).Alts = append(lr.Body.(*grammar.Alt).Alts, x)
			continue
		}
		name := a.Label
		if cv.labels[name] {
			name = cv.freshName(name)
			cv.warnf(a.LabelPos, "alternative label %s is also a rule's name; its rule is named %s", a.Label, name)
		}
		cv.labels[name] = true
		lr := &grammar.Rule{Name: name, Pos: a.LabelPos, Body: &grammar.Alt{At: a.Pos, Alts: []grammar.Expr{x}}}
		byLabel[a.Label] = lr
		extra = append(extra, lr)
		alts = append(alts, &grammar.Ref{At: a.LabelPos, Name: name})
	}
	for _, lr := range extra {
		if alt := lr.Body.(*grammar.Alt); len(alt.Alts) == 1 {
			lr.Body = alt.Alts[0]
		}
	}
	if len(alts) == 1 {
		return alts[0], extra
	}
	return &grammar.Alt{At: r.Body.Pos, Alts: alts}, extra
}

func (cv *converter) freshName(base string) string {
	for i := 2; ; i++ {
		name := base + strconv.Itoa(i)
		if !cv.labels[name] {
			return name
		}
	}
}

func (cv *converter) parserBlock(b *Block) grammar.Expr {
	if len(b.Alts) == 1 {
		return cv.parserAlt(b.Alts[0])
	}
	out := &grammar.Alt{At: b.Pos}
	for _, a := range b.Alts {
		if a.Label != "" {
			cv.warnf(a.LabelPos, "label # %s inside a group is dropped", a.Label)
		}
		out.Alts = append(out.Alts, cv.parserAlt(a))
	}
	return out
}

func (cv *converter) parserAlt(a *Alt) grammar.Expr {
	for _, c := range a.Commands {
		cv.errorf(c.Pos, "lexer command -> %s in a parser rule", c.Name)
	}
	seq := &grammar.Seq{At: a.Pos}
	for _, e := range a.Elems {
		if x := cv.parserElem(e); x != nil {
			seq.Items = append(seq.Items, x)
		}
	}
	return flatten(seq)
}

// flatten removes one-item and nested sequences.
func flatten(s *grammar.Seq) grammar.Expr {
	var items []grammar.Expr
	for _, x := range s.Items {
		if inner, ok := x.(*grammar.Seq); ok {
			items = append(items, inner.Items...)
			continue
		}
		items = append(items, x)
	}
	if len(items) == 1 {
		return items[0]
	}
	return &grammar.Seq{At: s.At, Items: items}
}

// token is a terminal of a parser rule followed by the gap that may come
// after it. Where characters could extend the token (ext), which gap it
// takes is decided once the whole grammar is converted (refineGaps).
func (cv *converter) token(x grammar.Expr, ext runeSet) grammar.Expr {
	if !cv.gaps {
		return x
	}
	gap := &grammar.Ref{At: x.Pos(), Name: Gap}
	cv.gapTok[gap] = x
	if !ext.empty() {
		gap.Name = WordGap
		cv.gapExt[gap] = ext
	}
	return &grammar.Seq{At: x.Pos(), Items: []grammar.Expr{x, gap}}
}

func (cv *converter) parserElem(e Elem) grammar.Expr {
	switch e := e.(type) {
	case *Ref:
		switch {
		case e.Name == "EOF":
			// arbor always matches the whole input.
			return nil
		case isTokenName(e.Name):
			if cv.isHidden(e.Name) {
				cv.errorf(e.Pos, "parser rule refers to token %s, which the lexer skips", e.Name)
				return nil
			}
			if _, ok := cv.lexerRules[e.Name]; !ok {
				if len(cv.typeAlts[e.Name]) == 0 {
					if _, ok := cv.declared[e.Name]; ok {
						cv.errorf(e.Pos, "unsupported: token %s is declared in tokens { } but made by no lexer rule (actions set it)", e.Name)
					} else {
						cv.errorf(e.Pos, "undefined token %s", e.Name)
					}
					return nil
				}
			}
			if r := cv.lexerRules[e.Name]; r != nil && r.Fragment {
				cv.errorf(e.Pos, "parser rule refers to fragment %s", e.Name)
				return nil
			}
			return cv.token(&grammar.Ref{At: e.Pos, Name: e.Name}, cv.tokenExt(e.Name))
		default:
			if _, ok := cv.parserRules[e.Name]; !ok {
				cv.errorf(e.Pos, "undefined rule %s", e.Name)
				return nil
			}
			return &grammar.Ref{At: e.Pos, Name: e.Name}
		}
	case *Lit:
		if e.Text == "" {
			cv.errorf(e.Pos, "empty literal ''")
			return nil
		}
		return cv.token(cv.lit(e.Pos, e.Text, cv.caseInsens), cv.elemExt(e))
	case *Block:
		return cv.parserBlock(e)
	case *Repeat:
		x := cv.parserElem(e.X)
		if x == nil {
			return nil
		}
		// A non-greedy loop accepts the same inputs in a parser rule; it
		// only decides between parses.
		min, max := e.bounds()
		return &grammar.Repeat{At: e.Pos, X: x, Min: min, Max: max}
	case *Action:
		if e.Predicate {
			cv.errorf(e.Pos, "unsupported: semantic predicate {...}? (it decides the language by running code)")
			return nil
		}
		cv.warnf(e.Pos, "action {...} dropped (a parser action does not change what parses, unless a predicate reads what it sets)")
		return nil
	case *Wildcard:
		return cv.anyToken(e.Pos, nil)
	case *Not:
		except := map[string]bool{}
		if !cv.tokenSet(e.X, except) {
			cv.errorf(e.Pos, "~ in a parser rule takes tokens and literals, as in ~(A | 'b')")
			return nil
		}
		return cv.anyToken(e.Pos, except)
	case *Range, *Set:
		cv.errorf(e.At(), "a character range or set belongs in a lexer rule, not a parser rule")
		return nil
	}
	return nil
}

// tokenSet collects the token names and literals of the operand of ~ in
// a parser rule (literals are keyed with a leading quote).
func (cv *converter) tokenSet(e Elem, into map[string]bool) bool {
	switch e := e.(type) {
	case *Ref:
		if !isTokenName(e.Name) {
			return false
		}
		into[e.Name] = true
		return true
	case *Lit:
		into["'"+e.Text] = true
		return true
	case *Block:
		for _, a := range e.Alts {
			if len(a.Elems) != 1 || !cv.tokenSet(a.Elems[0], into) {
				return false
			}
		}
		return true
	}
	return false
}

// anyToken stands for . or ~set in a parser rule: any token of the
// lexer's, but those excepted. Literals written only in parser rules
// (implicit tokens) are left out: they are usually keywords and
// punctuation that . is not meant to stand for.
func (cv *converter) anyToken(at grammar.Position, except map[string]bool) grammar.Expr {
	out := &grammar.Alt{At: at}
	for _, name := range cv.tokenOrder {
		if except[name] {
			continue
		}
		if r := cv.lexerRules[name]; r != nil {
			if lit, ok := singleLiteral(r); ok && except["'"+lit] {
				continue
			}
		}
		out.Alts = append(out.Alts, cv.token(&grammar.Ref{At: at, Name: name}, cv.tokenExt(name)))
	}
	if len(out.Alts) == 0 {
		cv.errorf(at, "the lexer has no token that . or ~ could stand for")
		return nil
	}
	if len(out.Alts) == 1 {
		return out.Alts[0]
	}
	return out
}

func singleLiteral(r *Rule) (string, bool) {
	if len(r.Body.Alts) == 1 && len(r.Body.Alts[0].Elems) == 1 {
		if l, ok := r.Body.Alts[0].Elems[0].(*Lit); ok {
			return l.Text, true
		}
	}
	return "", false
}

// lit converts a literal, case-insensitively if the grammar says so.
func (cv *converter) lit(at grammar.Position, text string, fold bool) grammar.Expr {
	if fold && strings.ToLower(text) != strings.ToUpper(text) {
		// One set per letter rather than (?i:...), which would also let
		// the Kelvin sign stand for a k.
		var b strings.Builder
		for _, c := range text {
			b.WriteString(runeSet{c, c}.fold().regex())
		}
		return &grammar.Regex{At: at, Src: b.String()}
	}
	return &grammar.Lit{At: at, Text: text}
}
