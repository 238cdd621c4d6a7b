package corpus

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/arbor-fuzz/arbor/internal/atomicfile"
)

// A Layout says how a command writes inputs into its output folder, out:
// raw, each input a file of out named by Name, with the files arbor
// writes beside inputs (manifest.jsonl, choices.jsonl, ...) in out too;
// or, when FuzzTarget is set, in Go's fuzzing corpus format into that
// fuzz target's seed corpus in the Go package folder out
// (out/testdata/fuzz/FuzzX, GoFuzzDir), named as Go names them, with
// the files beside inputs beside that folder and named after the target
// (out/testdata/fuzz/FuzzX.manifest.jsonl), since go test reads every
// file inside it as an input.
type Layout struct {
	// Ext is the extension of raw input files, dot included: the
	// grammar's (Extension).
	Ext string
	// FuzzTarget, if set, is the Go fuzz target (FuzzX, see
	// CheckFuzzTarget) whose seed corpus the inputs join.
	FuzzTarget string
}

// GoFuzz reports whether inputs are written in Go's fuzzing corpus
// format.
func (l Layout) GoFuzz() bool { return l.FuzzTarget != "" }

// InputDir is the folder the inputs go to: out itself, or the fuzz
// target's seed corpus in the Go package folder out.
func (l Layout) InputDir(out string) string {
	if l.GoFuzz() {
		return GoFuzzDir(out, l.FuzzTarget)
	}
	return out
}

// SideFile is the path of a file arbor writes beside the inputs of out
// (manifest.jsonl, choices.jsonl, verify.cov.jsonl): in their folder,
// or beside the seed corpus folder and named after the fuzz target
// (testdata/fuzz/FuzzX.manifest.jsonl).
func (l Layout) SideFile(out, name string) string {
	if l.GoFuzz() {
		return filepath.Join(filepath.Dir(l.InputDir(out)), l.FuzzTarget+"."+name)
	}
	return filepath.Join(out, name)
}

// LockFile is the lock of the output folder out, which one command at a
// time may write: out/.lock, or beside a seed corpus, which fuzz
// campaigns writing it take too, testdata/fuzz/FuzzX.lock.
func (l Layout) LockFile(out string) string {
	if l.GoFuzz() {
		return l.SideFile(out, "lock")
	}
	return l.SideFile(out, ".lock")
}

// WriteInput writes one input into dir, the folder InputDir gave: as the
// file name, or in Go's format under Go's name (WriteGoFuzz). It returns
// the file's name.
func (l Layout) WriteInput(dir, name string, data []byte) (string, error) {
	if l.GoFuzz() {
		p, err := WriteGoFuzz(dir, data)
		return filepath.Base(p), err
	}
	// Written whole or not at all: a kill while the file was written
	// left an empty file, which reads as an empty input.
	if err := atomicfile.Write(filepath.Join(dir, name), data, 0o644); err != nil {
		return "", fmt.Errorf("write input: %w", err)
	}
	return name, nil
}

// CreateSide opens a file beside the inputs (SideFile's path) for
// writing, making its folder if need be: afresh when raw, appended to in
// Go's format, where the seed corpus it describes is added to too.
func (l Layout) CreateSide(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if l.GoFuzz() {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	return os.OpenFile(path, flag, 0o644)
}

// WriteInputs writes inputs into out, input i as Name(i, len(inputs),
// l.Ext) or in Go's format, making the folder if need be.
func (l Layout) WriteInputs(out string, inputs [][]byte) error {
	dir := l.InputDir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	for i, in := range inputs {
		if _, err := l.WriteInput(dir, Name(i, len(inputs), l.Ext), in); err != nil {
			return err
		}
	}
	return nil
}
