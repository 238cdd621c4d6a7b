// Package corpus reads and writes the inputs arbor works on: files on
// disk, either raw (the file's bytes are the input) or in Go's fuzzing
// corpus format, so that the seed corpus of a native Go fuzz target
// (testdata/fuzz/FuzzX) is a corpus folder like any other.
//
// List names the inputs a path holds and Read reads one, whatever its
// format:
//
//	files, err := corpus.List("testdata/fuzz/FuzzParse")
//	for _, f := range files {
//		data, err := corpus.Read(f) // the []byte value, or the raw file
//		...
//	}
//
// A file in Go's format starts with the line "go test fuzz v1" followed
// by one value, []byte("..."), as `go test -fuzz` writes the inputs of a
// fuzz target func(*testing.T, []byte). WriteGoFuzz writes an input that
// way, under the name Go gives it (the first 16 hexadecimal digits of
// the SHA-256 of the file's content), so that
//
//	dir := corpus.GoFuzzDir(".", "FuzzParse") // testdata/fuzz/FuzzParse
//	path, err := corpus.WriteGoFuzz(dir, []byte(`{"a":1}`))
//
// adds a seed that `go test -run FuzzParse` runs as a regression input
// and `go test -fuzz FuzzParse` mutates.
//
// The commands that make inputs write them through this package, so
// that every output folder has the same names and side files. A Layout
// says how: raw files named by Name (00001.json, ...; Extension gives
// the extension of a grammar's inputs), or, with a FuzzTarget, Go's
// format in that target's seed corpus, the files arbor writes beside
// inputs (manifest.jsonl, choices.jsonl) then beside the corpus folder.
// A Writer writes inputs as they are generated, with their choice
// sequences, into a folder or as JSON Lines:
//
//	w := corpus.NewWriter("out", corpus.Layout{Ext: corpus.Extension("json")}, n, true)
//	for _, in := range inputs {
//		if err := w.Write(in.Text, in.Choices); err != nil {
//			return w.Close(err)
//		}
//	}
//	return w.Close(nil) // out/00001.json, ..., out/choices.jsonl
//
// WriteManifest writes a set of inputs with a manifest line each saying
// where it came from, ReplaceFolder writes a folder at once, and
// ClearRun removes what an earlier run wrote into a folder before a run
// again into it.
package corpus
