// Package css is the "css" subject: github.com/tdewolff/parse/v2/css.
package css

import (
	"bytes"
	"io"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
)

// Run lexes the style sheet to the end, then parses it rule by rule,
// looking at each grammar unit's type, data and values, and writes the
// rules and declarations back out.
func Run(data []byte) error {
	l := css.NewLexer(parse.NewInput(bytes.NewReader(data)))
	for {
		tt, text := l.Next()
		if tt == css.ErrorToken {
			if err := l.Err(); err != io.EOF {
				return err
			}
			break
		}
		_ = tt.String()
		if tt == css.IdentToken {
			_ = css.IsIdent(text)
		}
	}

	p := css.NewParser(parse.NewInput(bytes.NewReader(data)), false)
	var out bytes.Buffer
	for {
		gt, tt, text := p.Next()
		_ = gt.String()
		_ = tt.String()
		switch gt {
		case css.ErrorGrammar:
			if err := p.Err(); err != io.EOF {
				return err
			}
			return nil
		case css.AtRuleGrammar, css.BeginAtRuleGrammar, css.BeginRulesetGrammar, css.DeclarationGrammar, css.CustomPropertyGrammar:
			out.Write(text)
			if gt == css.DeclarationGrammar || gt == css.CustomPropertyGrammar {
				out.WriteByte(':')
			}
			for _, v := range p.Values() {
				_ = v.String()
				out.Write(v.Data)
			}
			switch gt {
			case css.BeginAtRuleGrammar, css.BeginRulesetGrammar:
				out.WriteByte('{')
			default:
				out.WriteByte(';')
			}
		case css.EndAtRuleGrammar, css.EndRulesetGrammar:
			out.WriteByte('}')
		default:
			out.Write(text)
		}
	}
}
