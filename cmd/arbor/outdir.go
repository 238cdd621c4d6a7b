package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/arbor-fuzz/arbor/internal/filelock"
)

// claimOutput takes the lock of an output folder for one command at a
// time (with gofuzz, the lock beside the fuzz target's seed corpus, which
// fuzz campaigns writing the same seed corpus take too). release lets go.
func claimOutput(ctx context.Context, o outputFormat, out string, wait bool) (release func(), err error) {
	lock := o.sideFile(out, ".lock")
	if o.gofuzz() {
		lock = o.sideFile(out, "lock")
	}
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	l, err := filelock.Acquire(ctx, lock, filelock.Options{
		What: "output folder " + out, Wait: wait,
		Hint: "give each run a folder of its own, or wait for it with --wait",
	})
	if err != nil {
		return nil, err
	}
	return func() { l.Release() }, nil
}

// functionFolder matches the folders target --rare makes, one per
// function: 001-name.
var functionFolder = regexp.MustCompile(`^[0-9]{3,}-`)

// unfinishedFolder matches the hidden folder a function's inputs are
// written to before it is renamed to its functionFolder name.
var unfinishedFolder = regexp.MustCompile(`^\.[0-9]{3,}-.*\.tmp$`)

// clearTargetRun removes what an earlier target run wrote into out (raw
// format): the inputs its manifests name, the manifests, verify.cov.jsonl
// and, from --rare, summary.json and the function folders once empty, so
// that a run again into the same folder leaves no input that disagrees
// with its manifests and summary. Files no manifest names stay. It
// returns how many inputs it removed.
func clearTargetRun(out string) (int, error) {
	removed, err := clearManifest(out)
	if err != nil {
		return removed, err
	}
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return removed, nil
	}
	if err != nil {
		return removed, fmt.Errorf("output folder: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() && unfinishedFolder.MatchString(e.Name()) {
			// A function's folder being written when a run was killed.
			if err := os.RemoveAll(filepath.Join(out, e.Name())); err != nil {
				return removed, fmt.Errorf("output folder: %w", err)
			}
			continue
		}
		if !e.IsDir() || !functionFolder.MatchString(e.Name()) {
			continue
		}
		dir := filepath.Join(out, e.Name())
		if _, err := os.Stat(filepath.Join(dir, "manifest.jsonl")); err != nil {
			continue // not one of ours
		}
		n, err := clearManifest(dir)
		removed += n
		if err != nil {
			return removed, err
		}
		os.Remove(dir) // only if empty: files of the user's stay
	}
	// summary.json, and the temporary file a run killed while it
	// replaced it left (atomicfile.Write's).
	temps, _ := filepath.Glob(filepath.Join(out, ".summary.json-*"))
	for _, path := range append(temps, filepath.Join(out, "summary.json")) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("output folder: %w", err)
		}
	}
	return removed, nil
}

// clearManifest removes the inputs dir/manifest.jsonl names, then the
// manifest and the verification's coverage file.
func clearManifest(dir string) (int, error) {
	path := filepath.Join(dir, "manifest.jsonl")
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("output folder: %w", err)
	}
	defer f.Close()
	removed := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var line struct {
			File string `json:"file"`
		}
		// Only a plain name in dir: a manifest is data, and a line
		// naming ../x or /etc/x must not make arbor delete it.
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.File == "" || line.File != filepath.Base(line.File) ||
			line.File == "." || line.File == ".." {
			continue
		}
		if err := os.Remove(filepath.Join(dir, line.File)); err == nil {
			removed++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("output folder: %w", err)
		}
	}
	if err := sc.Err(); err != nil {
		return removed, fmt.Errorf("output folder: %s: %w", path, err)
	}
	for _, name := range []string{"manifest.jsonl", "verify.cov.jsonl"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("output folder: %w", err)
		}
	}
	return removed, nil
}
