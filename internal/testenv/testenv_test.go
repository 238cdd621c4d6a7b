package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stopper records how a helper stopped a test, without stopping this one.
type stopper struct {
	testing.TB
	skipped, failed string
}

func (s *stopper) Helper()           {}
func (s *stopper) Skip(args ...any)  { s.skipped = args[0].(string) }
func (s *stopper) Fatal(args ...any) { s.failed = args[0].(string) }

func TestMissing(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "arbortool")
	os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755)
	file := filepath.Join(dir, "some.jar")
	os.WriteFile(file, nil, 0o644)
	t.Setenv("PATH", dir)
	tests := []struct {
		name, env string
		call      func(t testing.TB) string
		want      string // the result, when nothing is missing
		skip      string // else the skip's message; with ARBOR_REQUIRE_ALL, the failure's
	}{
		{"tool there", "", func(t testing.TB) string { return NeedTool(t, "arbortool", "apt-get install arbortool") }, tool, ""},
		{"tool there, required", "1", func(t testing.TB) string { return NeedTool(t, "arbortool", "apt-get install arbortool") }, tool, ""},
		{"tool missing", "", func(t testing.TB) string { return NeedTool(t, "nosuchtool", "apt-get install nosuch") }, "", "needs nosuchtool, which is not on PATH (install: apt-get install nosuch)"},
		{"tool missing, not required", "0", func(t testing.TB) string { return NeedTool(t, "nosuchtool", "apt-get install nosuch") }, "", "needs nosuchtool"},
		{"tool missing, required", "1", func(t testing.TB) string { return NeedTool(t, "nosuchtool", "apt-get install nosuch") }, "", "needs nosuchtool"},
		{"tool missing, required (true)", "true", func(t testing.TB) string { return NeedTool(t, "nosuchtool", "apt-get install nosuch") }, "", "needs nosuchtool"},
		{"file there", "1", func(t testing.TB) string { return NeedFile(t, file, "apt-get install some") }, file, ""},
		{"file missing", "", func(t testing.TB) string { return NeedFile(t, file+".no", "apt-get install some") }, "", "needs " + file + ".no ("},
		{"file missing, required", "1", func(t testing.TB) string { return NeedFile(t, file+".no", "apt-get install some") }, "", "(install: apt-get install some)"},
		{"missing", "", func(t testing.TB) string { Missing(t, "Debian's cjson source", "apt-get and the network"); return "" }, "", "needs Debian's cjson source (install: apt-get and the network)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(RequireAll, tt.env)
			s := &stopper{}
			got := tt.call(s)
			required := tt.env == "1" || tt.env == "true"
			switch {
			case tt.skip == "":
				if got != tt.want || s.skipped != "" || s.failed != "" {
					t.Errorf("got %q (skipped %q, failed %q), want %q", got, s.skipped, s.failed, tt.want)
				}
			case required:
				if s.skipped != "" || !strings.Contains(s.failed, tt.skip) || !strings.Contains(s.failed, RequireAll) {
					t.Errorf("skipped %q, failed %q; want a failure with %q naming %s", s.skipped, s.failed, tt.skip, RequireAll)
				}
			default:
				if s.failed != "" || !strings.Contains(s.skipped, tt.skip) {
					t.Errorf("skipped %q, failed %q; want a skip with %q", s.skipped, s.failed, tt.skip)
				}
			}
		})
	}
}
