package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/arbor-fuzz/arbor/corpus"
)

// outputFormat is --format and --fuzz-target, shared by the commands
// that write inputs (generate, target, rlcheck).
type outputFormat struct {
	format, fuzzTarget string
}

const formatHelp = `--format gofuzz writes the inputs in Go's fuzzing corpus format into
the seed corpus of a Go fuzz target: --out names the Go package's folder
and --fuzz-target the target (func FuzzX(f *testing.F), fuzzing a []byte),
and the inputs go to OUT/testdata/fuzz/FuzzX/, one file each, named as
go test names them (the first 16 hexadecimal digits of the SHA-256 of
the file), so that 'go test -run FuzzX' runs them and 'go test -fuzz
FuzzX' starts from them. Inputs already there stay: the folder is added
to, and an input it holds already is not written twice. What arbor
writes beside inputs goes beside that folder, where go test does not
read it: OUT/testdata/fuzz/FuzzX.manifest.jsonl (.choices.jsonl, ...).`

func (o *outputFormat) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.format, "format", "raw", "how inputs are written: raw (each file the input as it is) or gofuzz (Go's fuzzing corpus format, into OUT/testdata/fuzz/FUZZ-TARGET)")
	fl.StringVar(&o.fuzzTarget, "fuzz-target", "", "with --format gofuzz: the Go fuzz target (FuzzX) whose seed corpus the inputs join")
}

// check validates the flags as a usage error.
func (o outputFormat) check() error {
	switch o.format {
	case "raw":
		if o.fuzzTarget != "" {
			return usageError{errors.New("--fuzz-target goes with --format gofuzz")}
		}
	case "gofuzz":
		if o.fuzzTarget == "" {
			return usageError{errors.New("--format gofuzz needs --fuzz-target FuzzX, the fuzz target whose seed corpus (OUT/testdata/fuzz/FuzzX) the inputs join")}
		}
		if err := corpus.CheckFuzzTarget(o.fuzzTarget); err != nil {
			return usageError{fmt.Errorf("--fuzz-target: %w", err)}
		}
	default:
		return usageError{fmt.Errorf("--format must be raw or gofuzz, not %q", o.format)}
	}
	return nil
}

func (o outputFormat) gofuzz() bool { return o.format == "gofuzz" }

// inputDir is the folder the inputs go to: out itself, or with gofuzz
// the fuzz target's seed corpus in the Go package folder out.
func (o outputFormat) inputDir(out string) string {
	if o.gofuzz() {
		return corpus.GoFuzzDir(out, o.fuzzTarget)
	}
	return out
}

// sideFile is the path of a file arbor writes beside the inputs
// (manifest.jsonl, choices.jsonl, verify.cov.jsonl): in their folder, or
// with gofuzz beside the seed corpus folder and named after the target
// (testdata/fuzz/FuzzX.manifest.jsonl), since go test reads every file
// inside it as an input.
func (o outputFormat) sideFile(out, name string) string {
	if o.gofuzz() {
		return filepath.Join(filepath.Dir(o.inputDir(out)), o.fuzzTarget+"."+name)
	}
	return filepath.Join(out, name)
}

// write writes one input into dir, as rawName or, with gofuzz, in Go's
// format under Go's name, and returns the file's name.
func (o outputFormat) write(dir, rawName string, data []byte) (string, error) {
	if o.gofuzz() {
		p, err := corpus.WriteGoFuzz(dir, data)
		return filepath.Base(p), err
	}
	if err := os.WriteFile(filepath.Join(dir, rawName), data, 0o644); err != nil {
		return "", fmt.Errorf("write input: %w", err)
	}
	return rawName, nil
}

// openSide opens a side file for writing: afresh with raw, appended to
// with gofuzz, where the seed corpus it describes is added to too.
func (o outputFormat) openSide(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if o.gofuzz() {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	return os.OpenFile(path, flag, 0o644)
}
