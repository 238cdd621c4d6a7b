package main

import (
	"errors"
	"fmt"

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

// layout is how the flags say inputs are written, of the grammar named
// grammar (for their extension).
func (o outputFormat) layout(grammar string) corpus.Layout {
	l := corpus.Layout{Ext: corpus.Extension(grammar)}
	if o.gofuzz() {
		l.FuzzTarget = o.fuzzTarget
	}
	return l
}
