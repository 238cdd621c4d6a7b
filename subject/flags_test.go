package subject_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/subject"
)

// TestFlagsCheck: Check refuses anything but one kind of program, a flag
// of another kind and a program named in the wrong form; Spec a value it
// cannot read; each with a *FlagError that names the flag.
func TestFlagsCheck(t *testing.T) {
	tests := []struct {
		name  string
		flags subject.Flags
		want  string // a part of the error; "" for none
	}{
		{"none", subject.Flags{}, "give exactly one of"},
		{"two", subject.Flags{Name: "json", Go: "a.F"}, "(given: --subject, --go)"},
		{"go", subject.Flags{Go: "encoding/json.Valid", CoverPkgs: []string{"encoding/json"}}, ""},
		{"bad go", subject.Flags{Go: "Valid"}, "--go: "},
		{"dir with a bundled subject", subject.Flags{Name: "json", Dir: "x"}, "--dir goes with --go, --c, --java, --python, --cmd, not with --subject"},
		{"cflags with go", subject.Flags{Go: "a.F", CFlags: "-O2"}, "--cflags goes with --c, not with --go"},
		{"source root with java", subject.Flags{Java: "a.B.c", SourceRoot: "src"}, "--source-root goes with"},
		{"default source root", subject.Flags{Java: "a.B.c", SourceRoot: "."}, ""},
		{"cmd without report", subject.Flags{Command: "cat {}"}, "--cmd needs --report FORMAT"},
		{"cmd", subject.Flags{Command: "cat {}", Report: "lcov", Reject: "1, 2", Crash: "^boom"}, ""},
		{"cmd of a shell", subject.Flags{Command: "cat {} | wc", Report: "lcov"}, "--cmd: "},
		{"unknown report", subject.Flags{Command: "cat {}", Report: "xml"}, `--report: unknown format "xml"`},
		{"reject not a status", subject.Flags{Command: "cat {}", Report: "lcov", Reject: "256"}, "--reject wants exit statuses 1-255"},
		{"bad crash", subject.Flags{Command: "cat {}", Report: "lcov", Crash: "("}, "--crash: "},
		{"bad cflags", subject.Flags{C: []string{"f.c"}, CFlags: "-I'x"}, "--cflags: "},
		{"java", subject.Flags{Java: "Main"}, "--java wants pkg.Class.method"},
		{"python", subject.Flags{Python: "mod.fn"}, "--python wants module:function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.flags.Check()
			if err == nil {
				_, err = tt.flags.Spec()
			}
			var fe *subject.FlagError
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check, Spec: %v", err)
			case tt.want != "" && (!errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Check, Spec: %#v, want a *FlagError with %q", err, tt.want)
			}
		})
	}
}

// TestFlagsSpec: Spec makes paths absolute, a bare jar name that is not
// here stays one (the system's jars are searched for it), and a
// command's rejections are exit statuses.
func TestFlagsSpec(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("here.jar", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f := subject.Flags{C: []string{"a.c"}, CFlags: "-I inc -DX='a b'", SourceRoot: "src", CoverPkgs: []string{"lib"}}
	s, err := f.Spec()
	if err != nil {
		t.Fatal(err)
	}
	h := s.Harness
	if h == nil || h.Lang != "c" || !slices.Equal(h.Sources, []string{filepath.Join(dir, "a.c")}) || !slices.Equal(h.Cover, []string{filepath.Join(dir, "lib")}) ||
		!slices.Equal(h.Flags, []string{"-I", "inc", "-DX=a b"}) || h.Root != filepath.Join(dir, "src") || s.CoverPkgs != nil {
		t.Errorf("C: %+v", h)
	}
	f = subject.Flags{Java: "a.B.c", ClassPath: []string{"gson.jar", "here.jar", "classes/"}, Reject: "java.io.IOException, X"}
	if s, err = f.Spec(); err != nil {
		t.Fatal(err)
	}
	if h := s.Harness; !slices.Equal(h.Sources, []string{"gson.jar", filepath.Join(dir, "here.jar"), filepath.Join(dir, "classes")}) ||
		!slices.Equal(h.Reject, []string{"java.io.IOException", "X"}) {
		t.Errorf("Java: %+v", h)
	}
	f = subject.Flags{Command: "./prog {}", Report: "lcov", Dir: "run", Reject: "1,3"}
	if s, err = f.Spec(); err != nil {
		t.Fatal(err)
	}
	if c := s.Command; !slices.Equal(c.Argv, []string{"./prog", "{}"}) || c.Dir != filepath.Join(dir, "run") || c.Root != filepath.Join(dir, "run") ||
		!slices.Equal(c.Reject, []int{1, 3}) || s.Dir != "" {
		t.Errorf("command: %+v", c)
	}
	if got, want := subject.FlagsFor(coverage.Target{Command: s.Command}, ""), "--cmd './prog {}' --report lcov --dir "+subject.ShellQuote(filepath.Join(dir, "run")); got != want {
		t.Errorf("FlagsFor = %s, want %s", got, want)
	}
}
