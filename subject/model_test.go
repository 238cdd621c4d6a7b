package subject_test

import (
	"context"
	"errors"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/learn"
	"github.com/arbor-fuzz/arbor/subject"
)

// TestModelProgram (issue 29): what a model records runs only when the
// user names that program or trusts the model; a program named that is
// not the model's is refused; a target naming two kinds of program is
// refused whatever the flags.
func TestModelProgram(t *testing.T) {
	goT := func(imp, fn, dir string) *coverage.Target {
		return &coverage.Target{ImportPath: imp, Func: fn, Dir: dir}
	}
	cmdT := func(argv ...string) *coverage.Target {
		return &coverage.Target{Command: &coverage.CommandTarget{Argv: argv, Coverage: "lcov"}}
	}
	evil := cmdT("sh", "-c", "touch MARKER", "{}")
	both := &coverage.Target{ImportPath: "a", Func: "F", Command: evil.Command}
	tests := []struct {
		name      string
		model     learn.Model
		named     *coverage.Target
		trust     bool
		want      *coverage.Target
		fromModel bool
		untrusted string // the bundled name an UntrustedModelError carries, "-" for none
		mismatch  bool
		fails     bool
	}{
		{name: "nothing named", model: learn.Model{Target: evil}, untrusted: "-"},
		{name: "trusted", model: learn.Model{Target: evil}, trust: true, want: evil, fromModel: true},
		{name: "named the same", model: learn.Model{Target: evil}, named: cmdT("/bin/sh", "-c", "touch MARKER", "{}"), want: cmdT("/bin/sh", "-c", "touch MARKER", "{}")},
		{name: "named another", model: learn.Model{Target: evil}, named: cmdT("true", "{}"), mismatch: true},
		{name: "named another and trusted", model: learn.Model{Target: evil}, named: cmdT("true", "{}"), trust: true, mismatch: true},
		{name: "named another argument", model: learn.Model{Target: evil}, named: cmdT("sh", "-c", "touch OTHER", "{}"), mismatch: true},
		{name: "go elsewhere", model: learn.Model{Target: goT("example.com/w", "Run", "/a/w")}, named: goT("example.com/w", "Run", "/b/w"), want: goT("example.com/w", "Run", "/b/w")},
		{name: "go another function", model: learn.Model{Target: goT("example.com/w", "Run", "/a/w")}, named: goT("example.com/w", "Other", "/a/w"), mismatch: true},
		{name: "go, a command named", model: learn.Model{Target: goT("example.com/w", "Run", "/a/w")}, named: cmdT("w", "{}"), mismatch: true},
		{name: "bundled subject's program", model: learn.Model{Target: goT("github.com/arbor-fuzz/arbor/datasets/subjects/json", "Run", "/x")}, untrusted: "json"},
		{name: "two kinds", model: learn.Model{Target: both}, trust: true, fails: true},
		{name: "two kinds named", model: learn.Model{Target: both}, named: goT("a", "F", ""), fails: true},
		{name: "older model, bundled", model: learn.Model{Subject: "url"}, untrusted: "url"},
		{name: "older model, unknown", model: learn.Model{Subject: "nosuch"}, trust: true, fails: true},
		{name: "older model, unknown, named", model: learn.Model{Subject: "nosuch"}, named: goT("a", "F", ""), want: goT("a", "F", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, fromModel, err := subject.ModelProgram(context.Background(), &tt.model, tt.named, tt.trust)
			var ue *subject.UntrustedModelError
			var me *subject.ProgramMismatchError
			switch {
			case tt.untrusted != "":
				if !errors.As(err, &ue) {
					t.Fatalf("err = %v, want an UntrustedModelError", err)
				}
				if want := map[bool]string{true: "", false: tt.untrusted}[tt.untrusted == "-"]; ue.Bundled != want {
					t.Errorf("bundled %q, want %q", ue.Bundled, want)
				}
			case tt.mismatch:
				if !errors.As(err, &me) {
					t.Fatalf("err = %v, want a ProgramMismatchError", err)
				}
			case tt.fails:
				if err == nil || errors.As(err, &ue) || errors.As(err, &me) {
					t.Fatalf("err = %v, want a plain error", err)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if got.String() != tt.want.String() || got.Dir != tt.want.Dir || fromModel != tt.fromModel {
					t.Errorf("got %v (dir %q, from the model %v), want %v (dir %q, %v)", got, got.Dir, fromModel, *tt.want, tt.want.Dir, tt.fromModel)
				}
			}
		})
	}
}

// TestDescribeTarget: a target is shown in full, and control characters
// a crafted model holds are shown escaped, never written raw.
func TestDescribeTarget(t *testing.T) {
	got := subject.DescribeTarget(coverage.Target{Command: &coverage.CommandTarget{Argv: []string{"sh", "-c", "id > /tmp/x\x1b[2K", "{}"}, Dir: "/w d", Coverage: "lcov", Reject: []int{1, 2}}})
	want := `  command:         sh -c "id > /tmp/x\x1b[2K" {}
  folder:          '/w d'
  report:          lcov
  rejections:      1,2
`
	if got != want {
		t.Errorf("DescribeTarget =\n%s\nwant\n%s", got, want)
	}
}
