package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCoverageUnreadable (issue 29, item 11): an input that cannot be
// read is an error that names it, not an input the grammar rejects:
// coverage of a corpus with one would otherwise be that of another
// corpus, with exit status 0.
func TestCoverageUnreadable(t *testing.T) {
	type unreadable struct {
		name string
		make func(t *testing.T, path string)
		want string // in the error
	}
	var cases []unreadable
	if os.Geteuid() != 0 && runtime.GOOS != "windows" {
		cases = append(cases, unreadable{"no read permission", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("{}"), 0o644)
			os.Chmod(path, 0)
		}, "permission denied"})
	}
	if runtime.GOOS == "linux" {
		// A file no one can read, root included: the process's memory
		// at address 0.
		cases = append(cases, unreadable{"read error", func(t *testing.T, path string) {
			if err := os.Symlink("/proc/self/mem", path); err != nil {
				t.Skip(err)
			}
		}, "input/output error"})
	}
	if len(cases) == 0 {
		t.Skip("no way to make an unreadable file here")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"a":1}`), 0o644)
			os.WriteFile(filepath.Join(dir, "c.json"), []byte(`[1,`), 0o644) // rejected
			bad := filepath.Join(dir, "b\x1b[2J.json")
			c.make(t, bad)
			out, errOut, code := runArbor(t, "", "coverage", "json", dir, "--max-k", "1")
			if code == 0 {
				t.Errorf("exit 0, want an error\nstdout: %s\nstderr: %s", out, errOut)
			}
			if !strings.Contains(errOut, `"`+filepath.Join(dir, `b\x1b[2J.json`)+`"`) || !strings.Contains(errOut, c.want) {
				t.Errorf("stderr does not name the file, quoted, with %q:\n%s", c.want, errOut)
			}
			if strings.Contains(out, "rejected") {
				t.Errorf("a coverage report despite the error:\n%s", out)
			}
			if strings.Contains(errOut, "\x1b") {
				t.Errorf("stderr holds an escape character: %q", errOut)
			}
		})
	}
}

// TestInputNamesShown (issue 29, item 11): file names are printed so
// that they cannot rewrite the terminal: a name with control characters
// or invalid UTF-8 is quoted, in coverage's and kpaths's messages and
// reports alike; plain names are printed as they are.
func TestInputNamesShown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus\x1b[31m")
	os.Mkdir(dir, 0o755)
	inputs := map[string]string{
		"plain.json":             `[1]`,
		"title\x1b]0;pwn\a.json": `{"a":`, // rejected
		"bad\xff.json":           `[`,     // rejected
		"ok\x1b[2J.json":         `{}`,
	}
	for name, text := range inputs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Skipf("the file system refuses the name %q: %v", name, err)
		}
	}
	out, errOut, code := runArbor(t, "", "coverage", "json", dir, "--max-k", "1")
	if code != 0 {
		t.Fatalf("coverage: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{`"` + filepath.Join(dir, `title\x1b]0;pwn\a.json`) + `"`, `"` + filepath.Join(dir, `bad\xff.json`) + `"`} {
		want = strings.ReplaceAll(want, "\x1b[31m", `\x1b[31m`)
		if !strings.Contains(errOut, want) {
			t.Errorf("coverage's stderr lacks %s:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, `"`+strings.ReplaceAll(dir, "\x1b", `\x1b`)+`": 2 inputs parsed, 2 rejected`) {
		t.Errorf("coverage's report does not quote the folder:\n%s", out)
	}
	out2, errOut2, _ := runArbor(t, "", "kpaths", "json", dir)
	for _, s := range []string{out, errOut, out2, errOut2} {
		if strings.ContainsAny(s, "\x1b\a") || strings.Contains(s, "\xff") {
			t.Errorf("output holds a control character or invalid UTF-8: %q", s)
		}
	}
	if !strings.Contains(out2, "== plain.json") && !strings.Contains(out2, "== "+`"`+strings.ReplaceAll(filepath.Join(dir, "plain.json"), "\x1b", `\x1b`)+`"`) {
		t.Errorf("kpaths does not name plain.json:\n%s", out2)
	}
}

// TestErrorsShown: every command's error goes to the terminal with its
// control characters escaped, whichever package made it (a missing
// file's *fs.PathError names the file raw).
func TestErrorsShown(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone\x1b[2J\xff.json")
	for _, args := range [][]string{
		{"parse", "json", missing},
		{"train", "--grammar", "json", "--inputs", missing, "--coverage", missing},
		{"explain", "--model", missing},
	} {
		_, errOut, code := runArbor(t, "", args...)
		if code == 0 || !strings.Contains(errOut, `gone\x1b[2J\xff.json`) {
			t.Errorf("%s: exit %d, stderr %q does not name the file escaped", args[0], code, errOut)
		}
		if strings.ContainsAny(errOut, "\x1b") || strings.Contains(errOut, "\xff") {
			t.Errorf("%s: stderr holds a control character or invalid UTF-8: %q", args[0], errOut)
		}
	}
}
