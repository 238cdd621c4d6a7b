package coverage

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// pythonHarness is the Python harness: it imports the entry's module,
// measures with coverage.py in-process (see the file's own comment) and
// speaks ARBOR2. Nothing is compiled: "building" it writes it into the
// cache, named by its content, and finds an interpreter that has
// coverage.py.
//
//go:embed harnesses/python/arbor_harness.py
var pythonHarness []byte

// pythonConfig is the harness's one argument, as JSON.
type pythonConfig struct {
	Entry   string   `json:"entry"`
	Sources []string `json:"sources,omitempty"`
	Cover   []string `json:"cover,omitempty"`
	Reject  []string `json:"reject,omitempty"`
	Root    string   `json:"root,omitempty"`
}

// buildPython writes the Python harness into cacheDir (or, when doBuild
// is false, only finds it there) and returns it as the interpreter to run
// with the harness and the target's configuration as arguments. The
// interpreter is $ARBOR_PYTHON if set; else python3 on PATH if it can
// import coverage.py; else the one that runs the python3-coverage script
// (Debian installs coverage.py for its own python3, which need not be the
// first on PATH). ARBOR_PYTHON_MODE, read by the harness when it starts,
// picks how it measures ("collector", the default; "api"; "trace").
func buildPython(ctx context.Context, h HarnessTarget, cacheDir string, doBuild bool) (*Binary, error) {
	mod, fn, ok := strings.Cut(h.Entry, ":")
	if !ok || mod == "" || fn == "" || strings.ContainsAny(h.Entry, " \t\n") {
		return nil, fmt.Errorf("python entry %q: want module:function, as in mypkg.parse:run", h.Entry)
	}
	sum := sha256.Sum256(pythonHarness)
	path := filepath.Join(cacheDir, "python-"+hex.EncodeToString(sum[:])[:24], "arbor_harness.py")
	cached := true
	// The harness is checked against arbor's own copy each time, and its
	// folder must be the user's alone (checkPrivate), so that no one
	// else can change it between the check and the interpreter's read.
	if err := checkPrivate(filepath.Dir(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("python harness: %w", err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, pythonHarness) {
		if !doBuild {
			return nil, nil
		}
		if err := pythonWrite(path); err != nil {
			return nil, fmt.Errorf("python harness: %w", err)
		}
		if err := checkPrivate(filepath.Dir(path)); err != nil {
			return nil, fmt.Errorf("python harness: %w", err)
		}
		cached = false
	}
	python, err := pythonInterpreter(ctx)
	if err != nil {
		return nil, err
	}
	cfg, err := json.Marshal(pythonConfig{Entry: h.Entry, Sources: h.Sources, Cover: h.Cover, Reject: h.Reject, Root: h.Root})
	if err != nil {
		return nil, err
	}
	b := &Binary{Path: python, Args: []string{path, string(cfg)}, Cached: cached}
	if _, set := os.LookupEnv("PYTHONHASHSEED"); !set {
		// Python salts the hash of every string per process: the order
		// of a set of strings, and so which code a subject runs, would
		// change with each restart of the harness.
		b.Env = []string{"PYTHONHASHSEED=0"}
	}
	return b, nil
}

// pythonWrite writes the harness to path by renaming a complete copy
// into place, so that a harness started meanwhile never reads half of it.
func pythonWrite(path string) error {
	if err := PrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), tmpPrefix)
	if err != nil {
		return err
	}
	_, err = f.Write(pythonHarness)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// pythonHasCoverage is a program that fails unless coverage.py can be
// imported. The current folder, first on the path of python -c, goes
// first: a folder named coverage there (such as this package's) would
// pass for it.
const pythonHasCoverage = "import sys; del sys.path[0]; import coverage; coverage.Coverage"

// pythonInterpreter finds a Python interpreter that can import coverage.py.
func pythonInterpreter(ctx context.Context) (string, error) {
	if p := os.Getenv("ARBOR_PYTHON"); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("ARBOR_PYTHON: %w", err)
		}
		return path, nil
	}
	var tried []string
	if p, err := exec.LookPath("python3"); err == nil {
		if pythonCanCover(ctx, p) {
			return p, nil
		}
		tried = append(tried, p)
	}
	if script, err := exec.LookPath("python3-coverage"); err == nil {
		if p := pythonShebang(script); p != "" {
			if pythonCanCover(ctx, p) {
				return p, nil
			}
			tried = append(tried, p)
		}
	}
	msg := "no Python interpreter with coverage.py found"
	if len(tried) > 0 {
		msg += " (tried " + strings.Join(tried, ", ") + ")"
	}
	return "", errors.New(msg + "; install it (Debian: python3-coverage) or name an interpreter that has it in ARBOR_PYTHON")
}

func pythonCanCover(ctx context.Context, python string) bool {
	cmd := exec.CommandContext(ctx, python, "-c", pythonHasCoverage)
	return cmd.Run() == nil
}

// pythonShebang is the interpreter a script's #! line names, or "".
func pythonShebang(script string) string {
	f, err := os.Open(script)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return ""
	}
	// "#!/usr/bin/env python3" names the interpreter through env.
	if filepath.Base(fields[0]) == "env" && len(fields) > 1 {
		p, err := exec.LookPath(fields[len(fields)-1])
		if err != nil {
			return ""
		}
		return p
	}
	return fields[0]
}
