package corpus

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/arbor-fuzz/arbor/internal/atomicfile"
)

// A manifest (manifest.jsonl, beside the inputs as Layout.SideFile
// places it) says where each input of an output folder came from: a
// line of JSON per input, whose "file" is the input's file name and
// whose other fields are the writer's.

// WriteManifest writes n inputs into the output folder out, laid out by
// l, input i's content given by input(i) and its file named Name(i, n,
// l.Ext) (or as Go names it), and their manifest, a line per input
// given by line from its index and file name. The manifest is written
// afresh when raw, and appended to in Go's format, where the seed corpus
// is added to too. It returns the inputs' paths.
func WriteManifest(l Layout, out string, n int, input func(i int) string, line func(i int, name string) any) ([]string, error) {
	dir := l.InputDir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	mf, err := l.CreateSide(l.SideFile(out, "manifest.jsonl"))
	if err != nil {
		return nil, err
	}
	defer mf.Close()
	enc := json.NewEncoder(mf)
	enc.SetEscapeHTML(false)
	paths := make([]string, 0, n)
	for i := range n {
		name, err := l.WriteInput(dir, Name(i, n, l.Ext), []byte(input(i)))
		if err != nil {
			return nil, err
		}
		if err := enc.Encode(line(i, name)); err != nil {
			return nil, err
		}
		paths = append(paths, filepath.Join(dir, name))
	}
	return paths, mf.Close()
}

// ClearManifest removes the inputs the manifest dir/manifest.jsonl
// names, then the manifest and the coverage file of their verification
// (verify.cov.jsonl), and returns how many inputs it removed. A manifest
// is data: only a line naming a plain file of dir is followed, so that
// one naming ../x or /etc/x cannot make it remove that. A folder without
// a manifest is left as it is.
func ClearManifest(dir string) (int, error) {
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

// ReplaceFolder writes the folder dir with fill, which writes into the
// folder it is given: a hidden one beside dir (.name.tmp), renamed to
// dir once fill is done, so that a run killed midway leaves no folder
// that disagrees with its manifest, only the hidden one, which ClearRun
// removes.
func ReplaceFolder(dir string, fill func(tmp string) error) error {
	tmp := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	if err := fill(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	return nil
}

// WriteJSON replaces the file at path with v as indented JSON, at once
// (atomicfile.Write): a reader sees the old file or the new one whole.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o644)
}

// functionFolder matches the folders FunctionFolder names: 001-name.
var functionFolder = regexp.MustCompile(`^[0-9]{3,}-`)

// unfinishedFolder matches the hidden folder ReplaceFolder fills before
// it is renamed to its FunctionFolder name.
var unfinishedFolder = regexp.MustCompile(`^\.[0-9]{3,}-.*\.tmp$`)

// ClearRun removes what an earlier run wrote into the raw output folder
// out: the inputs its manifests name (ClearManifest) and the manifests,
// in out and in its function folders (FunctionFolder), which it then
// removes if empty; the hidden folders of a run killed while it filled
// them (ReplaceFolder); and summary.json, with the temporary file of a
// run killed while it replaced it. A run again into the same folder
// then leaves no input that disagrees with its manifests and summary.
// Files no manifest names stay. It returns how many inputs it removed.
func ClearRun(out string) (int, error) {
	removed, err := ClearManifest(out)
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
		n, err := ClearManifest(dir)
		removed += n
		if err != nil {
			return removed, err
		}
		os.Remove(dir) // only if empty: files of the user's stay
	}
	temps, _ := filepath.Glob(filepath.Join(out, ".summary.json-*"))
	for _, path := range append(temps, filepath.Join(out, "summary.json")) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("output folder: %w", err)
		}
	}
	return removed, nil
}
