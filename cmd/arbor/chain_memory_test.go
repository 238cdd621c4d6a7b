//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestChainGrammarMemory is issue 29's bound on a grammar of 40,000
// chained rules: each command that reads it (generate an input, parse
// one back) stays under 200 MB of memory, measured as the process's peak
// resident size. Before the fix they took 1.5-1.7 GB (quadratic in the
// chain: 10,000 rules 144 MB, 20,000 466 MB).
func TestChainGrammarMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs arbor on grammars of 40,000 rules")
	}
	const n, limit = 40000, 200 << 20
	dir := t.TempDir()
	for _, c := range []struct{ name, form, input string }{
		{"chain", "r%d := r%d ;", "x"},
		{"after literals", `r%d := "a" r%d ;`, strings.Repeat("a", n-1) + "x"},
		{"before literals", `r%d := r%d "a" ;`, "x" + strings.Repeat("a", n-1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			for i := range n - 1 {
				fmt.Fprintf(&b, c.form+"\n", i, i+1)
			}
			fmt.Fprintf(&b, "r%d := \"x\" ;\n", n-1)
			g := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".grammar")
			in := g + ".in"
			if err := os.WriteFile(g, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(in, []byte(c.input), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"generate", g, "-n", "1", "--out", "-"}, {"parse", g, in}} {
				status := filepath.Join(t.TempDir(), "status")
				cmd := exec.Command(os.Args[0], args...)
				cmd.Env = append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1", "ARBOR_TEST_PEAK="+status)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v: %.300s", args[0], err, out)
				}
				// The process's own peak (VmHWM): its rusage's Maxrss
				// holds this test binary's peak too, which the tests
				// before this one set.
				peak, err := vmHWM(status)
				if err != nil {
					t.Fatal(err)
				}
				if peak > limit {
					t.Errorf("%s: peak %d MB, want under %d MB", args[0], peak>>20, limit>>20)
				} else {
					t.Logf("%s: peak %d MB", args[0], peak>>20)
				}
			}
		})
	}
}

// vmHWM reads the peak resident size, in bytes, from a copy of a
// process's /proc/PID/status.
func vmHWM(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("the process's status: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmHWM %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmHWM in %s", path)
}
