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
package corpus
