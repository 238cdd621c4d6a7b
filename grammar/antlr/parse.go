package antlr

import (
	"strings"
	"unicode/utf8"

	"github.com/arbor-fuzz/arbor/grammar"
)

// Parse parses an ANTLR 4 grammar file (.g4). Filename is used in
// positions only. The result is the syntax as written: names are not
// resolved, and nothing is said yet about what conversion supports. The
// error, if any, is a grammar.ErrorList of file:line:col: message.
func Parse(filename string, src []byte) (*File, error) {
	var errs errorList
	lines := grammar.NewLineIndex(filename, src)
	p := &parser{sc: scanner{src: src, lines: lines, errs: &errs}, lines: lines, errs: &errs}
	f := p.file(filename)
	if err := errs.err(); err != nil {
		return nil, err
	}
	return f, nil
}

type parser struct {
	sc    scanner
	lines *grammar.LineIndex
	errs  *errorList
	tok   token
	depth int
	mode  string // lexer mode of the rules being read
	mpos  grammar.Position
}

func (p *parser) pos(off int) grammar.Position { return p.lines.Position(off) }

func (p *parser) errorf(off int, format string, args ...any) {
	p.errs.add(p.pos(off), format, args...)
}

func (p *parser) next() { p.tok = p.sc.next() }

// nextBrace scans the next token taking { as the start of a block.
func (p *parser) nextBrace() {
	p.sc.braceBlock = true
	p.next()
	p.sc.braceBlock = false
}

func (p *parser) bailing() bool { return p.errs.bail }

func describe(t token) string {
	switch t.kind {
	case tTokenRef, tRuleRef:
		return "name " + t.text
	case tString:
		return "literal '" + t.text + "'"
	case tIllegal:
		return "illegal character " + t.text
	case tInt:
		return "number " + t.text
	}
	return tokNames[t.kind]
}

func (p *parser) expect(k tokKind, context string) bool {
	if p.tok.kind != k {
		p.errorf(p.tok.off, "expected %s %s, found %s", tokNames[k], context, describe(p.tok))
		return false
	}
	p.next()
	return true
}

func (p *parser) isWord(s string) bool {
	return (p.tok.kind == tRuleRef || p.tok.kind == tTokenRef) && p.tok.text == s
}

// file = grammarDecl prequel* rule* (mode rule*)*
func (p *parser) file(filename string) *File {
	f := &File{Filename: filename, Options: map[string]string{}}
	p.next()
	f.Pos = p.pos(p.tok.off)
	switch {
	case p.isWord("lexer"):
		f.Kind = Lexer
		p.next()
	case p.isWord("parser"):
		f.Kind = Parser
		p.next()
	}
	if !p.isWord("grammar") {
		p.errorf(p.tok.off, "expected 'grammar Name;' at the start of an ANTLR grammar, found %s", describe(p.tok))
		return f
	}
	p.next()
	if p.tok.kind != tTokenRef && p.tok.kind != tRuleRef {
		p.errorf(p.tok.off, "expected the grammar's name, found %s", describe(p.tok))
		return f
	}
	f.Name = p.tok.text
	p.next()
	p.expect(tSemi, "after the grammar's name")
	for !p.bailing() && p.tok.kind != tEOF {
		switch {
		case p.isWord("options"):
			p.optionsSpec(f.Options)
		case p.isWord("tokens"), p.isWord("channels"):
			tokens := p.isWord("tokens")
			names := p.idList()
			if tokens {
				f.Tokens = append(f.Tokens, names...)
			}
		case p.isWord("import"):
			f.Imports = append(f.Imports, p.pos(p.tok.off))
			p.skipPast(tSemi)
		case p.tok.kind == tAt:
			p.namedAction()
		case p.isWord("mode"):
			p.mpos = p.pos(p.tok.off)
			p.next()
			if p.tok.kind != tTokenRef && p.tok.kind != tRuleRef {
				p.errorf(p.tok.off, "expected a mode name after mode, found %s", describe(p.tok))
				p.skipPast(tSemi)
				continue
			}
			p.mode = p.tok.text
			p.next()
			p.expect(tSemi, "after the mode's name")
		default:
			if r := p.rule(); r != nil {
				f.Rules = append(f.Rules, r)
			} else {
				p.skipPast(tSemi)
			}
		}
	}
	return f
}

// skipPast skips to just after the next token of kind k (or to the end).
func (p *parser) skipPast(k tokKind) {
	for p.tok.kind != tEOF && p.tok.kind != k {
		p.next()
	}
	if p.tok.kind == k {
		p.next()
	}
}

// optionsSpec = "options" "{" (name "=" value ";")* "}"
func (p *parser) optionsSpec(into map[string]string) {
	p.nextBrace()
	if !p.expect(tLBrace, "after options") {
		return
	}
	for !p.bailing() && p.tok.kind != tRBrace && p.tok.kind != tEOF {
		if p.tok.kind != tTokenRef && p.tok.kind != tRuleRef {
			p.errorf(p.tok.off, "expected an option name, found %s", describe(p.tok))
			p.skipPast(tRBrace)
			return
		}
		name := p.tok.text
		p.next()
		if !p.expect(tAssign, "after option "+name) {
			p.skipPast(tRBrace)
			return
		}
		var val strings.Builder
		for p.tok.kind != tSemi && p.tok.kind != tRBrace && p.tok.kind != tEOF {
			val.WriteString(strings.TrimSpace(string(p.sc.src[p.tok.off:p.tok.end])))
			p.next()
		}
		into[name] = val.String()
		if p.tok.kind == tSemi {
			p.next()
		}
	}
	p.expect(tRBrace, "to close the options")
}

// idList = ("tokens" | "channels") "{" (name ("," name)* ","?)? "}"
func (p *parser) idList() []string {
	p.nextBrace()
	if !p.expect(tLBrace, "after tokens or channels") {
		return nil
	}
	var names []string
	for !p.bailing() && p.tok.kind != tRBrace && p.tok.kind != tEOF {
		switch p.tok.kind {
		case tTokenRef, tRuleRef:
			names = append(names, p.tok.text)
		case tComma:
		default:
			p.errorf(p.tok.off, "expected a name, found %s", describe(p.tok))
			p.skipPast(tRBrace)
			return names
		}
		p.next()
	}
	p.expect(tRBrace, "to close the list")
	return names
}

// namedAction = "@" (scope "::")? name action
func (p *parser) namedAction() {
	p.next()
	if p.tok.kind == tTokenRef || p.tok.kind == tRuleRef {
		p.next()
	}
	if p.tok.kind == tColonColon {
		p.next()
		if p.tok.kind == tTokenRef || p.tok.kind == tRuleRef {
			p.next()
		}
	}
	p.expect(tAction, "after @name")
}

// rule = modifiers? "fragment"? name args? returns? throws? locals? prequel* ":" alts ";" handlers
func (p *parser) rule() *Rule {
	for p.isWord("public") || p.isWord("private") || p.isWord("protected") {
		p.next()
	}
	frag := false
	if p.isWord("fragment") {
		frag = true
		p.next()
	}
	if p.tok.kind != tTokenRef && p.tok.kind != tRuleRef {
		p.errorf(p.tok.off, "expected a rule name, found %s", describe(p.tok))
		return nil
	}
	r := &Rule{Name: p.tok.text, Pos: p.pos(p.tok.off), Fragment: frag, Options: map[string]string{}}
	if r.IsLexer() {
		r.Mode, r.ModePos = p.mode, p.mpos
	}
	p.next()
	// Arguments, return values, locals, throws, options and rule actions
	// say nothing about the language.
	for !p.bailing() {
		switch {
		case p.tok.kind == tSet:
			p.next()
		case p.isWord("returns") || p.isWord("locals"):
			p.next()
			p.expect(tSet, "after returns or locals")
		case p.isWord("throws"):
			p.next()
			for p.tok.kind == tTokenRef || p.tok.kind == tRuleRef || p.tok.kind == tComma || p.tok.kind == tDot {
				p.next()
			}
		case p.isWord("options"):
			p.optionsSpec(r.Options)
		case p.tok.kind == tAt:
			p.namedAction()
		default:
			goto body
		}
	}
body:
	if !p.expect(tColon, "after rule name "+r.Name) {
		return nil
	}
	r.Body = p.block(p.pos(p.tok.off), r.IsLexer())
	if !p.expect(tSemi, "to end rule "+r.Name) {
		return nil
	}
	for p.isWord("catch") || p.isWord("finally") {
		p.next()
		if p.tok.kind == tSet {
			p.next()
		}
		p.expect(tAction, "after catch or finally")
	}
	return r
}

// block = alt ("|" alt)*
func (p *parser) block(at grammar.Position, lexer bool) *Block {
	b := &Block{Pos: at}
	b.Alts = append(b.Alts, p.alt(lexer))
	for p.tok.kind == tBar && !p.bailing() {
		p.next()
		b.Alts = append(b.Alts, p.alt(lexer))
	}
	return b
}

// alt = elementOptions? element* ("#" label)? ("->" commands)?
func (p *parser) alt(lexer bool) *Alt {
	a := &Alt{Pos: p.pos(p.tok.off)}
	if p.tok.kind == tLt {
		a.Assoc = p.elementOptions()["assoc"]
	}
	for !p.bailing() {
		e := p.element(lexer)
		if e == nil {
			break
		}
		a.Elems = append(a.Elems, e)
	}
	if p.tok.kind == tPound {
		p.next()
		if p.tok.kind != tTokenRef && p.tok.kind != tRuleRef {
			p.errorf(p.tok.off, "expected a label after #, found %s", describe(p.tok))
		} else {
			a.Label, a.LabelPos = p.tok.text, p.pos(p.tok.off)
			p.next()
		}
	}
	if p.tok.kind == tArrow {
		p.next()
		for !p.bailing() {
			if p.tok.kind != tTokenRef && p.tok.kind != tRuleRef {
				p.errorf(p.tok.off, "expected a lexer command after ->, found %s", describe(p.tok))
				break
			}
			c := &Command{Pos: p.pos(p.tok.off), Name: p.tok.text}
			p.next()
			if p.tok.kind == tLParen {
				p.next()
				var arg strings.Builder
				for p.tok.kind != tRParen && p.tok.kind != tEOF && p.tok.kind != tSemi {
					arg.WriteString(string(p.sc.src[p.tok.off:p.tok.end]))
					p.next()
				}
				c.Arg = arg.String()
				p.expect(tRParen, "to close the command's argument")
			}
			a.Commands = append(a.Commands, c)
			if p.tok.kind != tComma {
				break
			}
			p.next()
		}
	}
	return a
}

// elementOptions = "<" ... ">". Only an alternative's assoc changes
// anything (how a left-recursive rule groups); the others (fail, on
// tokens) do not change the language. It returns the options written
// name=value.
func (p *parser) elementOptions() map[string]string {
	at := p.tok.off
	p.next()
	opts := map[string]string{}
	for p.tok.kind != tGt {
		if p.tok.kind == tEOF || p.tok.kind == tSemi {
			p.errorf(at, "element options are not closed: add >")
			return opts
		}
		name := p.tok
		p.next()
		if (name.kind == tRuleRef || name.kind == tTokenRef) && p.tok.kind == tAssign {
			p.next()
			if v := p.tok; v.kind == tRuleRef || v.kind == tTokenRef || v.kind == tInt {
				opts[name.text] = v.text
				p.next()
			}
		}
	}
	p.next()
	return opts
}

// element = (label ("=" | "+=")) ? atom suffix? | action "?"?
// It returns nil where the alternative ends.
func (p *parser) element(lexer bool) Elem {
	if p.tok.kind == tAction {
		a := &Action{Pos: p.pos(p.tok.off)}
		p.next()
		if p.tok.kind == tQuest {
			a.Predicate = true
			p.next()
		}
		return a
	}
	if p.tok.kind == tTokenRef || p.tok.kind == tRuleRef {
		// A label? Look one token ahead without consuming it.
		save, saveTok := p.sc.off, p.tok
		nerr := len(p.errs.list)
		p.next()
		if p.tok.kind == tAssign || p.tok.kind == tPlusAssign {
			p.next() // the label is dropped: arbor names the parts by their rules
		} else {
			p.sc.off, p.tok = save, saveTok
			p.errs.list = p.errs.list[:nerr]
		}
	}
	x := p.atom(lexer)
	if x == nil {
		return nil
	}
	if p.tok.kind == tQuest || p.tok.kind == tStar || p.tok.kind == tPlus {
		r := &Repeat{Pos: p.pos(p.tok.off), X: x, Op: byte("?*+"[p.tok.kind-tQuest]), Greedy: true}
		p.next()
		if p.tok.kind == tQuest {
			r.Greedy = false
			p.next()
		}
		return r
	}
	return x
}

// atom = name args? options? | literal (".." literal)? | set | "." | "~" atom | "(" block ")"
func (p *parser) atom(lexer bool) Elem {
	t := p.tok
	at := p.pos(t.off)
	switch t.kind {
	case tTokenRef, tRuleRef:
		p.next()
		if t.kind == tRuleRef && p.tok.kind == tSet {
			p.next() // arguments
		}
		if p.tok.kind == tLt {
			p.elementOptions()
		}
		return &Ref{Pos: at, Name: t.text}
	case tString:
		p.next()
		return p.literal(t)
	case tSet:
		p.next()
		if !lexer {
			p.errorf(t.off, "a character set [...] belongs in a lexer rule, not a parser rule")
			return &Set{Pos: at}
		}
		return p.charSet(t)
	case tDot:
		p.next()
		if p.tok.kind == tLt {
			p.elementOptions()
		}
		return &Wildcard{Pos: at}
	case tTilde:
		p.next()
		if p.depth++; p.depth > maxNesting {
			p.errorf(t.off, "~ and groups are nested more than %d deep", maxNesting)
			p.errs.bail = true
			return nil
		}
		defer func() { p.depth-- }()
		x := p.atom(lexer)
		if x == nil {
			p.errorf(p.tok.off, "expected a set after ~, found %s", describe(p.tok))
			return nil
		}
		return &Not{Pos: at, X: x}
	case tLParen:
		if p.depth++; p.depth > maxNesting {
			p.errorf(t.off, "groups are nested more than %d deep", maxNesting)
			p.errs.bail = true
			return nil
		}
		defer func() { p.depth-- }()
		p.next()
		if p.isWord("options") {
			p.optionsSpec(map[string]string{})
			p.expect(tColon, "after a block's options")
		}
		b := p.block(at, lexer)
		p.expect(tRParen, "to close the group opened at "+at.String())
		return b
	}
	return nil
}

// literal = literal (".." literal)?, after the first literal, t.
func (p *parser) literal(t token) Elem {
	at := p.pos(t.off)
	if p.tok.kind == tRange {
		p.next()
		if p.tok.kind != tString {
			p.errorf(p.tok.off, "expected a literal after '..', found %s", describe(p.tok))
			return &Lit{Pos: at, Text: t.text}
		}
		to := p.tok
		p.next()
		from, n1 := utf8.DecodeRuneInString(t.text)
		last, n2 := utf8.DecodeRuneInString(to.text)
		if n1 != len(t.text) || n2 != len(to.text) || t.text == "" || to.text == "" {
			p.errorf(t.off, "a range 'a'..'z' needs one character on each side")
			return &Lit{Pos: at, Text: t.text}
		}
		if from > last {
			p.errorf(t.off, "range '%c'..'%c' is empty: its start is above its end", from, last)
		}
		return &Range{Pos: at, From: from, To: last}
	}
	if p.tok.kind == tLt {
		p.elementOptions()
	}
	return &Lit{Pos: at, Text: t.text}
}

// charSet reads the inside of [...] in a lexer rule: characters, ranges
// a-z, escapes and \p{Property}.
func (p *parser) charSet(t token) *Set {
	set := &Set{Pos: p.pos(t.off)}
	// Escapes are resolved by a scanner over the set's own text, so that
	// the positions of errors stay right.
	sc := scanner{src: p.sc.src, off: t.off + 1, lines: p.lines, errs: p.errs}
	end := t.end - 1
	var prev rune
	havePrev, dash := false, false
	for sc.off < end {
		at := sc.off
		var r rune
		c := sc.src[sc.off]
		switch {
		case c == '\\' && sc.off+1 < end && (sc.src[sc.off+1] == 'p' || sc.src[sc.off+1] == 'P'):
			neg := sc.src[sc.off+1] == 'P'
			close := strings.IndexByte(string(sc.src[sc.off:end]), '}')
			if sc.off+2 >= end || sc.src[sc.off+2] != '{' || close < 0 {
				p.errorf(at, `\p needs a property in braces, as in \p{L}`)
				return set
			}
			name := string(sc.src[sc.off+3 : sc.off+close])
			if neg {
				name = "^" + name
			}
			set.Props = append(set.Props, name)
			sc.off += close + 1
			havePrev, dash = false, false
			continue
		case c == '\\':
			var ok bool
			r, ok = sc.escape(true)
			if !ok {
				return set
			}
		case c == '-' && havePrev && !dash && sc.off+1 < end:
			dash = true
			sc.off++
			continue
		default:
			var n int
			r, n = utf8.DecodeRune(sc.src[sc.off:end])
			sc.off += n
		}
		if dash {
			if prev > r {
				p.errorf(at, "range %q-%q in a set is empty: its start is above its end", prev, r)
				return set
			}
			set.Ranges[len(set.Ranges)-1] = r
			havePrev, dash = false, false
			continue
		}
		set.Ranges = append(set.Ranges, r, r)
		prev, havePrev = r, true
	}
	if dash {
		set.Ranges = append(set.Ranges, '-', '-')
	}
	return set
}
