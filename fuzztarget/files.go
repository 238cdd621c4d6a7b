package fuzztarget

import "text/template"

// The files a fuzz package is made of. Each says that arbor wrote it, so
// that Write knows which of them it may change again.
const writtenBy = "written by arbor fuzz-target"

// targetGo embeds the grammar and builds the generator: a file that is
// not a test, so that the folder is a package that OSS-Fuzz's build,
// which turns the fuzz test into a program, can compile.
var targetGo = template.Must(template.New("target.go").Parse(`// Package {{.Pkg}} fuzzes {{.Func}} with inputs of the grammar
// {{.GrammarFile}}, {{.WrittenBy}}. Edit it as you need; run it with
//
//	go test -fuzz '^{{.Target}}$'
//
// in this folder, and on OSS-Fuzz or ClusterFuzzLite with ossfuzz.sh.
package {{.Pkg}}

import (
	_ "embed"
{{if .Constraints}}
	"github.com/arbor-fuzz/arbor/constraint"{{end}}
	"github.com/arbor-fuzz/arbor/grammar/load"
	"github.com/arbor-fuzz/arbor/synth"
)

//go:embed {{.GrammarFile}}
var grammarSource []byte

// newGenerator returns the generator of the grammar's inputs from the
// fuzzer's bytes. The grammar is embedded, and arbor checked that it
// builds when it wrote it; an error here is a grammar edited since.
func newGenerator() *synth.ByteGenerator {
	ast, warnings, err := load.Source({{printf "%q" .GrammarFile}}, grammarSource, load.Options{})
	if err != nil {
		panic(err)
	}
	g, err := load.Build(ast, warnings)
	if err != nil {
		panic(err)
	}
{{- if .Constraints}}
	set, err := constraint.Compile(g)
	if err != nil {
		panic(err)
	}
	gen := synth.NewByteGenerator(g)
	// The inputs keep the grammar's where clauses: each tree the bytes
	// make is repaired, the same way for the same bytes.
	gen.Constraints = set
	return gen
{{- else}}
	return synth.NewByteGenerator(g)
{{- end}}
}
`))

// fuzzTestGo is the fuzz target. Its declaration stays on one line:
// OSS-Fuzz's compile_native_go_fuzzer finds the target by that line.
var fuzzTestGo = template.Must(template.New("fuzz_test.go").Parse(`package {{.Pkg}}

// This file was {{.WrittenBy}}.

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	subject {{printf "%q" .ImportPath}}
)

// {{.Target}} runs {{.Name}} on inputs of the grammar: the fuzzer's bytes
// are the grammar generator's choices, so that every byte string is an
// input of the grammar and a byte mutation is a structural one. A panic
// is a finding; an error the function returns is not.
func {{.Target}}(f *testing.F) {
	gen := newGenerator()
	// ossfuzz.sh sets ARBOR_SEED_CORPUS_DIR to have the seed corpus
	// (testdata/fuzz/{{.Target}}) written out as raw bytes, the form in
	// which libFuzzer reads its seeds.
	seeds := os.Getenv("ARBOR_SEED_CORPUS_DIR")
	f.Fuzz(func(t *testing.T, data []byte) {
		if seeds != "" {
			saveSeed(seeds, data)
		}
		subject.{{.Name}}(gen.FromBytes(data))
	})
}

// saveSeed writes data into dir, named by its hash.
func saveSeed(dir string, data []byte) {
	sum := sha256.Sum256(data)
	if err := os.WriteFile(filepath.Join(dir, hex.EncodeToString(sum[:8])), data, 0o644); err != nil {
		panic(err)
	}
}
`))

// ossfuzzSh builds the target inside OSS-Fuzz's Go builder (which
// ClusterFuzzLite uses too): the seeds first, since
// compile_native_go_fuzzer rewrites the fuzz test in place.
var ossfuzzSh = template.Must(template.New("ossfuzz.sh").Parse(`#!/bin/bash -eu
# Builds the fuzz target {{.Target}} for OSS-Fuzz and ClusterFuzzLite,
# {{.WrittenBy}}. Their build.sh runs it from the module's root:
#
#   bash {{.Rel}}/ossfuzz.sh
#
# It writes $OUT/{{.Fuzzer}}, a libFuzzer binary made by OSS-Fuzz's
# compile_native_go_fuzzer, and $OUT/{{.Fuzzer}}_seed_corpus.zip, the seed
# corpus (testdata/fuzz/{{.Target}}) as the raw bytes libFuzzer reads,
# which the fuzz test writes out as go test runs its seeds.
seeds="${WORK:-$(mktemp -d)}/{{.Fuzzer}}_seed_corpus"
rm -rf "$seeds"
mkdir -p "$seeds"
ARBOR_SEED_CORPUS_DIR="$seeds" go test ./{{.Rel}} -run '^{{.Target}}$' -count=1
if [ -n "$(ls -A "$seeds")" ]; then
  (cd "$seeds" && zip -q -r "$OUT/{{.Fuzzer}}_seed_corpus.zip" .)
fi
compile_native_go_fuzzer {{.Package}} {{.Target}} {{.Fuzzer}}
`))

// buildSh is ClusterFuzzLite's build script, which its builder runs from
// the project's folder (the Dockerfile's WORKDIR).
var buildSh = template.Must(template.New("build.sh").Parse(`#!/bin/bash -eu
# ClusterFuzzLite's build script, {{.WrittenBy}}; it runs from the
# module's root. Each line builds one fuzz target and its seed corpus.
`))

// dockerfile is ClusterFuzzLite's image: OSS-Fuzz's Go builder with the
// project's source.
var dockerfile = template.Must(template.New("Dockerfile").Parse(`# ClusterFuzzLite's build image, {{.WrittenBy}}.
FROM {{.BaseImage}}
COPY . $SRC/{{.Project}}
WORKDIR $SRC/{{.Project}}
COPY .clusterfuzzlite/build.sh $SRC/
`))

// projectYAML says the project's language to ClusterFuzzLite.
const projectYAML = "language: go\n"
