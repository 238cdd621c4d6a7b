package datasets_test

import (
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
)

// javascriptPrograms are programs after the constructs of ECMA-262 5.1
// chapters 11-14 (and ES2015's let, const, arrows, classes, template
// literals, for-of), written as the javascript grammar spells them.
var javascriptPrograms = []string{
	// 12.2 var, 11.13.2 compound assignment.
	"var x = 1;\nx += 2;\n",
	// 13 function declarations, 12.9 return.
	"function f(a, b) {\nlet x = a + b;\nx;\nreturn x * 2;\n}\nf(1, 2);\n",
	// 15.4.4.19 map, 15.4.4.5 join, ES2015 arrow functions.
	"const xs = [1, 2, 3];\nxs.map((a) => a * 2).join(\"-\");\n",
	// ES2015 14.5 classes, new and a method call.
	"class P {\nconstructor(a) {\nlet x = a;\nthis.k = x;\n}\narea() {\nlet n = this.k;\nn;\nreturn n * this.k;\n}\n}\nnew P(2).area();\n",
	// 12.6.3 for, 12.7 continue.
	"let n = 0;\nfor (let i = 0; i < 3; i++) {\nif (i === 1) continue;\nlet x = i;\nn += x;\n}\n",
	// 12.13 throw, 12.14 try.
	"var x = 0;\ntry {\nlet n = 1;\nthrow new Error(\"x\");\n} catch (e) {\nlet s = String(e);\ns;\n} finally {\nlet n = 2;\nn;\n}\n",
	// 12.11 switch.
	"let x = 2;\nswitch (x) {\ncase 1: x = 3; break;\ndefault: x = 4;\n}\n",
	// 15.12.2 JSON.parse, 15.2.3.14 Object.keys.
	"const o = JSON.parse('{\"a\":1,\"b\":[true,null]}');\nObject.keys(o).length;\n",
	// Template literals, regular expression literals (7.8.5), replace.
	"let s = `a${1 + 2}b`;\ns.replace(/a+(b|c)?/g, \"b\");\n",
	// ES2015 13.7.5 for-in and for-of, 12.8 break.
	"const o = {k: 1, id: 2};\nfor (let s in o) {\nif (s === \"k\") break;\nlet n = s.length;\ns.toUpperCase();\n}\nfor (let x of Object.values(o)) x;\n",
	// 11.4 unary operators, 11.12 conditional, 11.14 comma, 12.6.2 while.
	"var x = 3;\nwhile (x-- > 0) x = (typeof x === \"number\" ? -x : +x) + (x, 1);\n",
	// 12.6.1 do-while, 15.8 Math, 15.7.4.5 toFixed.
	"let n = 4;\ndo n *= 2; while (n-- > 0);\nMath.max(n, 1).toFixed(2);\n",
	// Closures and callbacks: reduce, sort with a comparator, spread.
	"const xs = [3, 1, 2];\nconst f = (a, b) => a - b;\n[...xs.sort(f), 4].reduce((a, b) => a + b, 0);\n",
}

// javascriptNearMisses are strings outside the grammar's language: some
// outside ECMAScript, some outside the subset it writes.
var javascriptNearMisses = []string{
	"var x = 1\nx;\n",             // a semicolon left to insertion (7.9)
	"let x;\nx;\n",                // a let without an initializer (not in the subset)
	"var x = 1;\n{k: 1};\n",       // an expression statement starting with { (12.4)
	"var x = 1;\n1.toString();\n", // a member of a numeric literal
	"var x = 010;\nx;\n",          // an octal literal (strict mode, annex C)
	"var x = 1;\nbreak;\n",        // break outside a loop (12.8)
	"function f() {\nlet x = 1;\nreturn 1;\nx;\n}\nf();\n", // return before other statements
	"var x = 1;\nwith (x) {\nvar n = x;\nn;\n}\n",          // with (strict mode, 12.10.1)
	"var x = --1;\nx;\n",                                   // -- of a literal
	"var x = 1;\nif (1) let n = 1;\n",                      // a declaration as an if's statement (ES2015 13.6)
	"var x = 1;\nw = 1;\n",                                 // a name of no kind
	"x;\nvar x = 1;\n",                                     // a statement list that starts with no declaration
}

// TestJavaScriptPrograms checks that the javascript grammar derives the
// programs, each back to its own text, and none of the near misses.
func TestJavaScriptPrograms(t *testing.T) {
	g, err := datasets.Grammar("javascript")
	if err != nil {
		t.Fatal(err)
	}
	checkSamples(t, g, javascriptPrograms, javascriptNearMisses)
}

// TestJavaScriptConstraints checks the javascript grammar's where clauses
// on programs that satisfy them all and on programs that each break one
// static rule of the specification.
func TestJavaScriptConstraints(t *testing.T) {
	const (
		val     = "where all(ValUse"
		str     = "where all(StrUse"
		arr     = "where all(ArrUse"
		obj     = "where all(ObjUse"
		fun     = "where all(FunUse"
		class   = "where all(ClassUse"
		param   = "where all(ParamUse"
		catch   = "where all(ErrUse"
		loop    = "where all(LoopUse"
		redecl  = "where Body:"
		assign  = "where all(ConstBinding"
		this    = "where all(This"
		method  = "where all(MethodCall"
		params  = "where Params"
		keys    = "where ObjectLiteral"
		constru = "where ClassDeclaration"
		forOf   = "where all(ForOfBinding"
	)
	cases := []constraintCase{
		// Scoping: var is the function's (or the program's), let and
		// const the block's, function declarations are hoisted.
		{"var n = 0;\n{\nvar x = 1;\nx;\n}\nx;\n", nil},
		{"var n = 0;\nf();\nfunction f() {\nlet x = 1;\nx;\n}\n", nil},
		{"let x = 1;\n{\nlet x = 2;\nx;\n}\n", nil},
		{"const o = {k: 1};\nfunction f(a) {\nlet n = a;\no.k = n;\nreturn a;\n}\n", nil},
		{"let x = 1;\nfunction f() {\nlet n = x;\nn;\nreturn n;\n}\n", nil},
		// ReferenceErrors: not declared, declared later (TDZ), out of
		// the block, out of the function, in its own initializer.
		{"var x = 1;\nn;\n", []string{val}},
		{"var n = x;\nlet x = 1;\n", []string{val}},
		{"var n = 0;\n{\nlet x = 1;\nx;\n}\nx;\n", []string{val}},
		{"var n = 0;\nfunction f() {\nvar x = 1;\nx;\n}\nx;\n", []string{val}},
		{"let x = x;\nvar n = 1;\n", []string{val}},
		{"let x = 1;\n{\nlet n = x;\nlet x = 2;\n}\n", []string{val}},
		{"var n = 0;\nfor (let x of []) {\nif (x) break;\nlet x = 1;\nx;\n}\n", []string{val}},
		{"var n = 0;\nfor (let x of []) {\nif (x) break;\nlet n = 1;\nx;\n}\n", nil},
		{"class P {\n}\nfor (let i = 0; i < 2; i++) {\nif (new P()) break;\nclass P {\n}\nnew P();\n}\n", []string{class}},
		{"const xs = [];\n{\nconst xs = xs;\nxs;\n}\n", []string{arr}},
		{"let n = 1;\ns.length;\n", []string{str}},
		{"let n = 1;\nxs.length;\n", []string{arr}},
		{"let n = 1;\no.k;\n", []string{obj}},
		{"var n = 0;\ng();\nconst g = () => 1;\n", []string{fun}},
		{"var n = 0;\nnew P();\nclass P {\n}\n", []string{class}},
		{"function f(a) {\nlet n = a;\na;\n}\na;\n", []string{param}},
		{"var n = 0;\ntry {\nlet x = 1;\nx;\n} catch (e) {\nlet x = e;\ne;\n}\ne;\n", []string{catch}},
		{"var n = 0;\nfor (let i = 0; i < 3; i++) i;\ni;\n", []string{loop}},
		// Redeclarations in one statement list (ES2015 13.2.1.1).
		{"let x = 1;\nlet x = 2;\n", []string{redecl}},
		{"let x = 1;\n{\nvar x = 2;\nx;\n}\n", []string{redecl}},
		{"class P {\n}\nclass P {\n}\n", []string{redecl}},
		// A var in a for-of's body named as its variable (ES2015 13.7.5.1).
		{"var n = 0;\nfor (let x of []) {\nif (x) break;\nvar x = 1;\nx;\n}\n", []string{forOf}},
		// Assignments to a const binding.
		{"const x = 1;\nx = 2;\n", []string{assign}},
		{"const x = 1;\nx++;\n", []string{assign}},
		// this outside a method.
		{"var n = 0;\nthis.k;\n", []string{this}},
		{"function f() {\nlet n = 1;\nthis.k = n;\n}\nf();\n", []string{this}},
		// A method the class lacks.
		{"class P {\narea() {\nlet x = 1;\nx;\n}\n}\nnew P().show();\n", []string{method}},
		// Duplicate parameters, property names, constructors.
		{"function f(a, a) {\nlet x = 1;\nx;\n}\nf();\n", []string{params}},
		{"const o = {k: 1, k: 2};\no;\n", []string{keys}},
		{"class P {\nconstructor() {\nlet x = 1;\nx;\n}\nconstructor() {\nlet n = 1;\nn;\n}\n}\nnew P();\n", []string{constru}},
	}
	for _, p := range javascriptPrograms {
		cases = append(cases, constraintCase{p, nil})
	}
	checkConstraints(t, "javascript", cases)
}
