//go:build linux

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/internal/testenv"
)

// TestLanguages (issue 16): record takes a C fuzz target (--c), a Java
// method (--java) and a Python function (--python), each recorded
// in-process by its language's harness, with the flags that go with each
// (--cflags, --classpath, --pythonpath, --coverpkg, --reject); the
// coverage file names the functions as the coverage reports do and keeps
// the target, so a model can run it again.
func TestLanguages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds harnesses of three languages")
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inputs := filepath.Join(dir, "inputs")
	for name, text := range map[string]string{"a": "12", "b": "ab", "c": "x"} {
		writeInput(t, inputs, name, []byte(text))
	}
	lib := write("c/lib.c", `#include "lib.h"
int digits(const unsigned char *s, unsigned long n) { int d = 0; for (unsigned long i = 0; i < n; i++) d += s[i] >= '0' && s[i] <= '9'; return d; }
int letters(const unsigned char *s, unsigned long n) { int d = 0; for (unsigned long i = 0; i < n; i++) d += s[i] >= 'a' && s[i] <= 'w'; return d; }
`)
	write("c/lib.h", "int digits(const unsigned char *s, unsigned long n);\nint letters(const unsigned char *s, unsigned long n);\n")
	fuzz := write("c/fuzz.c", `#include <stdint.h>
#include <stddef.h>
#include "lib.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size > 0 && data[0] == 'x') return -1;
	if (size > 0 && data[0] <= '9') return digits(data, size) >= 0 ? 0 : 1;
	return letters(data, size) >= 0 ? 0 : 1;
}
`)
	write("py/demo.py", `def parse(data):
    if data.startswith(b"x"):
        raise ValueError("rejected")
    if data[:1].isdigit():
        return digits(data)
    return letters(data)

def digits(data):
    return sum(c in b"0123456789" for c in data)

def letters(data):
    return sum(c in b"abcdefghijklmnopqrstuvw" for c in data)
`)
	write("java/demo/Demo.java", `package demo;
public class Demo {
	public static void run(byte[] data) {
		if (data.length > 0 && data[0] == 'x') throw new IllegalArgumentException("rejected");
		if (data.length > 0 && data[0] <= '9') digits(data); else letters(data);
	}
	static int digits(byte[] d) { int n = 0; for (byte b : d) if (b >= '0' && b <= '9') n++; return n; }
	static int letters(byte[] d) { int n = 0; for (byte b : d) if (b >= 'a' && b <= 'w') n++; return n; }
}
`)
	for _, tt := range []struct {
		lang  string
		tools []string
		args  []string
		want  map[string]string // input -> outcome and covered functions
	}{
		{"c", []string{"gcc"}, []string{"--c", lib + "," + fuzz, "--cflags", "-I" + filepath.Join(dir, "c"), "--coverpkg", lib},
			map[string]string{"a": "ok lib.c:digits", "b": "ok lib.c:letters", "c": "error "}},
		{"python", []string{"python3-coverage"}, []string{"--python", "demo:parse", "--pythonpath", filepath.Join(dir, "py")},
			map[string]string{"a": "ok demo.digits demo.parse", "b": "ok demo.letters demo.parse", "c": "error demo.parse"}},
		{"java", []string{"java", "javac"}, []string{"--java", "demo.Demo.run", "--classpath", filepath.Join(dir, "java"), "--reject", "java.lang.IllegalArgumentException"},
			map[string]string{"a": "ok demo.Demo.digits(byte[]) demo.Demo.run(byte[])", "b": "ok demo.Demo.letters(byte[]) demo.Demo.run(byte[])", "c": "error demo.Demo.run(byte[])"}},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			for _, tool := range tt.tools {
				pkg := map[string]string{"gcc": "gcc", "python3-coverage": "python3-coverage", "java": "default-jdk-headless", "javac": "default-jdk-headless"}[tool]
				testenv.NeedTool(t, tool, "apt-get install "+pkg)
			}
			out := filepath.Join(dir, tt.lang+".jsonl")
			args := append([]string{"record", "--inputs", inputs, "--out", out, "--timeout", "20s"}, tt.args...)
			if tt.lang == "java" && os.Getenv("ARBOR_JACOCO_DIR") == "" {
				testenv.NeedFile(t, "/usr/share/java/org.jacoco.core.jar", "apt-get install libjacoco-java")
			}
			if _, errOut, code := runArbor(t, "", args...); code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			f, err := coverage.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if f.Target == nil || f.Target.Harness == nil || f.Target.Harness.Lang != tt.lang {
				t.Errorf("header target %+v", f.Target)
			}
			for _, r := range f.Records {
				var names []string
				for _, id := range r.Covered {
					names = append(names, f.Functions[id])
				}
				slices.Sort(names)
				name := filepath.Base(r.Input)
				if got := string(r.Outcome) + " " + strings.Join(names, " "); got != tt.want[name] {
					t.Errorf("input %s: %q, want %q", name, got, tt.want[name])
				}
			}
		})
	}
}
