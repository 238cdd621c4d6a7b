// Package datasets holds what arbor works on out of the box: bundled
// grammars of common input formats, and real third-party programs under
// test (subjects) in Go, C, Java and Python.
//
// A grammar is loaded by name or from a file:
//
//	g, err := datasets.LoadGrammar("json")          // bundled
//	g, err := datasets.LoadGrammar("my/format.grammar") // a file
//
// Bundled grammars (Grammars lists them): cel, cron, css, csv, expr,
// exprlang, gotemplate, govaluate, graphql, html, ini, javascript, json,
// markdown, regexp, starlark, toml, url, xml, yaml. Loading a grammar file without the subjects'
// harness builders is package grammar/load.
package datasets
