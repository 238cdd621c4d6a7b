// Package regexp is the "regexp" subject: regexp/syntax and regexp.
package regexp

import (
	"regexp"
	"regexp/syntax"
)

// subjects are the fixed strings every expression is run against: short,
// so that matching stays cheap, and varied (empty, ASCII, Unicode, lines).
var subjects = []string{"", "abc", "Hello, World 123", "été 日本 Ελληνικά", "a\nb\tc\n", "2026-11-22 x_y.z"}

// Run parses the expression, simplifies and compiles its syntax tree,
// prints it back, then compiles it with regexp (Perl and POSIX flavours)
// and matches, finds and replaces in a few fixed strings.
func Run(data []byte) error {
	expr := string(data)
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return err
	}
	_ = re.MaxCap()
	_ = re.CapNames()
	simple := re.Simplify()
	_ = simple.String()
	prog, err := syntax.Compile(simple)
	if err != nil {
		return err
	}
	_ = prog.String()
	_, _ = prog.Prefix()
	r, err := regexp.Compile(expr)
	if err != nil {
		return err
	}
	_ = r.NumSubexp()
	_ = r.SubexpNames()
	_, _ = r.LiteralPrefix()
	for _, s := range subjects {
		if r.MatchString(s) {
			_ = r.FindAllStringSubmatchIndex(s, -1)
			_ = r.ReplaceAllString(s, "<$0>")
		}
		_ = r.Split(s, 3)
	}
	// POSIX syntax lacks Perl's classes and flags: a rejection here is
	// expected for many expressions.
	if p, err := regexp.CompilePOSIX(expr); err == nil {
		p.Longest()
		for _, s := range subjects {
			_ = p.FindStringIndex(s)
		}
	}
	return nil
}
