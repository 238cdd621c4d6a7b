// Package datasets holds what arbor works on out of the box: bundled
// grammars of common input formats (and, as later stages need them, real
// third-party programs under test and seed corpora).
//
// A grammar is loaded by name or from a file:
//
//	g, err := datasets.LoadGrammar("json")          // bundled
//	g, err := datasets.LoadGrammar("my/format.grammar") // a file
//
// Bundled grammars: expr, json, url, csv, xml, ini (see Grammars).
package datasets
