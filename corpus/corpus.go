package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/arbor-fuzz/arbor/internal/parallel"
)

// List lists the inputs a path names: the file itself, or every regular
// file below a folder, sorted. Below a folder it leaves out hidden files
// and folders, and the files arbor writes beside inputs, which are not
// inputs: manifest.jsonl, choices.jsonl and *.cov.jsonl, and, beside a
// Go seed corpus folder, FuzzX.manifest.jsonl and FuzzX.choices.jsonl. A
// symbolic link to a file is an input; the folder given may itself be a
// link; a link to a folder inside it is refused, since following links
// may loop.
func List(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	root := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		root = resolved
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != root && len(name) > 0 && name[0] == '.' {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && SideFile(name) {
			return nil
		}
		// Report paths under the folder as the user named it.
		shown := filepath.Join(path, strings.TrimPrefix(p, root))
		switch {
		case d.Type().IsRegular():
			files = append(files, shown)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Stat(p)
			if err != nil {
				return fmt.Errorf("%s: %w", shown, err)
			}
			if target.IsDir() {
				return fmt.Errorf("%s is a link to a folder, which arbor does not follow (links may loop): name the folder itself", shown)
			}
			if target.Mode().IsRegular() {
				files = append(files, shown)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	sort.Strings(files)
	return files, nil
}

// SideFile reports whether a file name is one arbor writes beside inputs
// (a manifest, the choice sequences, a coverage file) rather than an
// input, and which List therefore leaves out of a folder.
func SideFile(name string) bool {
	switch {
	case name == "manifest.jsonl", name == "choices.jsonl":
		return true
	case strings.HasSuffix(name, ".cov.jsonl"), strings.HasSuffix(name, ".manifest.jsonl"), strings.HasSuffix(name, ".choices.jsonl"):
		return true
	}
	return false
}

// Read reads the input a file holds: the value of a file in Go's fuzzing
// corpus format (see Decode), or else the file's bytes. Its errors name
// the file: an *fs.PathError, or a *FormatError.
func Read(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(path, data)
}

// ReadAll reads the inputs of the files (as Read does) on every core and
// returns them by the hexadecimal SHA-256 of the input, as coverage
// files name them. The first error, by the files' order, is returned.
// Reading a corpus of small files is mostly waiting on the file system,
// so the reads overlap.
func ReadAll(files []string) (map[string][]byte, error) {
	type result struct {
		sum  string
		data []byte
		err  error
	}
	results := make([]result, len(files))
	parallel.ForEach(context.Background(), len(files), 4*runtime.GOMAXPROCS(0), func(i int) {
		b, err := Read(files[i])
		if err != nil {
			results[i].err = err
			return
		}
		sum := sha256.Sum256(b)
		results[i] = result{sum: hex.EncodeToString(sum[:]), data: b}
	})
	data := make(map[string][]byte, len(files))
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		data[r.sum] = r.data
	}
	return data, nil
}
