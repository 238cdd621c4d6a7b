//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
				cmd := exec.Command(os.Args[0], args...)
				cmd.Env = append(os.Environ(), "ARBOR_TEST_AS_ARBOR=1")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v: %.300s", args[0], err, out)
				}
				peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KB on Linux
				if peak > limit {
					t.Errorf("%s: peak %d MB, want under %d MB", args[0], peak>>20, limit>>20)
				} else {
					t.Logf("%s: peak %d MB", args[0], peak>>20)
				}
			}
		})
	}
}
