package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
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

// readInto reads a file's bytes into buf, which it grows if need be, and
// returns them: Read without a buffer of its own per file.
func readInto(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// ReadAll reads the inputs of the files (as Read does) on every core and
// returns them by the hexadecimal SHA-256 of the input, as coverage
// files name them. The first error, by the files' order, is returned.
//
// Reading a corpus of small files is mostly waiting on the file system,
// so the reads overlap. A corpus may hold a million inputs of a hundred
// bytes each, so they are packed: the inputs of each batch of files in
// one array, and their keys in one string, instead of a buffer of at
// least 512 bytes (os.ReadFile's) and a string per input.
func ReadAll(files []string) (map[string][]byte, error) {
	const batch = 256
	type result struct {
		keys   string   // the inputs' sums, hexadecimal, one after another
		inputs [][]byte // the inputs, in one array
		err    error    // the batch's first error
	}
	results := make([]result, (len(files)+batch-1)/batch)
	parallel.ForEach(context.Background(), len(results), 4*runtime.GOMAXPROCS(0), func(b int) {
		lo, hi := b*batch, min((b+1)*batch, len(files))
		var buf, values, keys []byte
		ends := make([]int, 0, hi-lo) // where each input ends in values
		for _, path := range files[lo:hi] {
			var err error
			if buf, err = readInto(path, buf); err != nil {
				results[b].err = err
				return
			}
			in, err := Decode(path, buf)
			if err != nil {
				results[b].err = err
				return
			}
			sum := sha256.Sum256(in)
			keys = hex.AppendEncode(keys, sum[:])
			values = append(values, in...)
			ends = append(ends, len(values))
		}
		packed := make([]byte, len(values))
		copy(packed, values)
		r := result{keys: string(keys), inputs: make([][]byte, len(ends))}
		start := 0
		for i, end := range ends {
			r.inputs[i] = packed[start:end:end]
			start = end
		}
		results[b] = r
	})
	n := 0
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		n += len(r.inputs)
	}
	data := make(map[string][]byte, n)
	const key = 2 * sha256.Size
	for _, r := range results {
		for i, in := range r.inputs {
			data[r.keys[i*key:(i+1)*key]] = in
		}
	}
	return data, nil
}
