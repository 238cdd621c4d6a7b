package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/learn"
)

// craftedModel writes a small valid model, trained on fabricated
// coverage, whose recorded program is target: what an attacker would
// share.
func craftedModel(t *testing.T, target coverage.Target) string {
	t.Helper()
	ast, err := grammar.Parse("w.grammar", []byte(`S := Word "=" Num ; Word := /[a-c]/ ; Num := /[0-9]/ ;`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := grammar.Build(ast)
	if err != nil {
		t.Fatal(err)
	}
	cov := &coverage.File{Header: coverage.NewHeader("w", []string{"w.onA", "w.always"})}
	data := map[string][]byte{}
	for _, w := range "abc" {
		for d := '0'; d <= '9'; d++ {
			in := string(w) + "=" + string(d)
			sum := sha256.Sum256([]byte(in))
			data[string(sum[:])] = []byte(in)
			covered := []int{1}
			if w == 'a' {
				covered = []int{0, 1}
			}
			cov.Records = append(cov.Records, coverage.Record{Input: in, SHA256: string(sum[:]), Covered: covered, Outcome: coverage.OK})
		}
	}
	d := learn.ParseExamples(g, cov, data).Dataset(g, features.Options{MaxK: 2})
	fns, err := learn.Train(t.Context(), d, learn.TrainOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := learn.NewModel("w", "w", g, d, fns, learn.TrainOptions{Seed: 1})
	m.Target = &target
	path := filepath.Join(t.TempDir(), "crafted.model.gz")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// evilModule is a Go module whose package's init writes marker: what a
// crafted model's Go target would run when its harness starts.
func evilModule(t *testing.T, marker string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/evil\n\ngo 1.24\n",
		"evil.go": fmt.Sprintf(`package evil

import "os"

func init() { os.WriteFile(%q, []byte("ran"), 0o644) }

// Run is the function the model names.
func Run(b []byte) error { return nil }
`, marker),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestModelTrust (issue 29): a model file is data. target and eval E4
// run the program a model records only when the user names that program
// with the subject flags or passes --trust-model, which shows it first;
// with neither they stop with a usage error that shows what the model
// records and the two ways forward, and a program named that is not the
// model's is refused, showing both. Commands that run nothing (predict,
// explain, target --no-run) need neither. Before the fix, target ran the
// command and the Go module's init of the crafted models at once.
func TestModelTrust(t *testing.T) {
	type program struct {
		name   string
		target func(marker string) coverage.Target
		shown  []string // what the usage error must show of the model's program
		slow   bool     // builds a harness
	}
	programs := []program{
		{"command", func(marker string) coverage.Target {
			return coverage.Target{Command: &coverage.CommandTarget{Argv: []string{"sh", "-c", "touch " + marker, "{}"}, Coverage: "lcov"}}
		}, []string{"command:", "sh -c 'touch ", "--cmd 'sh -c '\\''touch "}, false},
		{"go module", func(marker string) coverage.Target {
			return coverage.Target{ImportPath: "example.com/evil", Func: "Run", Dir: evilModule(t, marker)}
		}, []string{"Go function:", "example.com/evil.Run", "--go example.com/evil.Run --dir "}, true},
	}
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "MARKER")
			model := craftedModel(t, p.target(marker))
			out := t.TempDir()
			ran := func() bool { _, err := os.Stat(marker); return err == nil }
			target := func(extra ...string) []string {
				return append([]string{"target", "--model", model, "--function", "w.onA", "-n", "1", "--budget", "2", "--out", filepath.Join(out, fmt.Sprint(len(extra)))}, extra...)
			}
			refusals := []cliCase{
				{"target names nothing", "", target(), exitUsage, nil,
					append([]string{"a model file does not decide what runs. The model records:", "--trust-model", "--no-run"}, p.shown...)},
				{"target verify names nothing", "", target("--no-run", "--verify"), exitUsage, nil, []string{"The model records:"}},
				{"target names another program", "", target("--cmd", "true {}", "--report", "lcov"), exitUsage, nil,
					[]string{"the program named is not the one the model was trained on", "named:\n  command:", "true {}\n", "the model's:\n"}},
				{"target names another go function", "", target("--go", "example.com/other.Run"), exitUsage, nil,
					[]string{"named:\n  Go function:", "example.com/other.Run\n", "the model's:"}},
				{"eval E4 names nothing", "", []string{"eval", "E4", "--model", model, "-n", "1", "--budget", "2", "--base-inputs", "2"}, exitUsage, nil,
					append([]string{"arbor eval E4 runs the program the model was trained on", "--trust-model"}, p.shown...)},
				{"eval E5 names another program", "", []string{"eval", "E5", "--model", model, "--cmd", "true {}", "--report", "lcov"}, exitUsage, nil,
					[]string{"not the one the model was trained on"}},
				{"trust without a model", "", []string{"eval", "E4", "--subject", "json", "--trust-model"}, exitUsage, nil, []string{"--trust-model goes with --model"}},
			}
			runCases(t, refusals)
			if ran() {
				t.Fatal("the model's program ran without being named or trusted")
			}
			// What never runs the program needs no flag.
			for _, args := range [][]string{
				{"predict", "--model", model, "-"},
				{"explain", "--model", model, "--function", "w.onA"},
				target("--no-run"),
			} {
				if _, errOut, code := runArbor(t, "b=1", args...); code != 0 {
					t.Errorf("%s: exit %d\n%s", strings.Join(args, " "), code, errOut)
				}
			}
			if ran() {
				t.Fatal("predict, explain or target --no-run ran the model's program")
			}
			if p.slow && testing.Short() {
				return
			}
			// --trust-model runs it, having shown it.
			_, errOut, _ := runArbor(t, "", target("--trust-model")...)
			if !ran() {
				t.Errorf("--trust-model did not run the model's program:\n%s", errOut)
			}
			shown := strings.Index(errOut, "--trust-model: running the program the model records:")
			if shown < 0 || !strings.Contains(errOut[shown:], p.shown[1]) {
				t.Errorf("--trust-model did not show the program first:\n%s", errOut)
			}
		})
	}
}

// TestSubjectFlagsFor: the way forward a refusal offers names the
// model's program with the flags that name it, quoted so that the shell
// and --cmd read it back.
func TestSubjectFlagsFor(t *testing.T) {
	for _, tt := range []struct {
		t       coverage.Target
		bundled string
		want    string
	}{
		{coverage.Target{ImportPath: "a/b", Func: "F"}, "json", "--subject json"},
		{coverage.Target{ImportPath: "example.com/w", Func: "Run", Dir: "/m/w"}, "", "--go example.com/w.Run --dir /m/w"},
		{coverage.Target{Command: &coverage.CommandTarget{Argv: []string{"./prog", "-x", "it's", "{}"}, Coverage: "gcov", Dir: "/p q"}}, "",
			`--cmd './prog -x '\''it'\''\'\'''\''s'\'' {}' --report gcov --dir '/p q'`},
		{coverage.Target{Harness: &coverage.HarnessTarget{Lang: "python", Entry: "m:f", Sources: []string{"/py"}}}, "", "--python m:f --pythonpath /py"},
		{coverage.Target{Harness: &coverage.HarnessTarget{Lang: "c", Sources: []string{"/a.c", "/b.c"}, Flags: []string{"-I/x y"}}}, "",
			`--c /a.c,/b.c --cflags ''\''-I/x y'\'''`},
		{coverage.Target{Command: &coverage.CommandTarget{Argv: []string{"p\x1b[2J"}, Coverage: "lcov"}}, "", `--cmd '"p\x1b[2J"' --report lcov`},
	} {
		got := subjectFlagsFor(tt.t, tt.bundled)
		if got != tt.want {
			t.Errorf("subjectFlagsFor(%v) =\n  %s\nwant\n  %s", tt.t, got, tt.want)
		}
		// Read back as the shell and then --cmd would; control
		// characters are shown escaped instead.
		if c := tt.t.Command; c != nil && !strings.Contains(got, `\x`) {
			words, err := coverage.ParseCommand(got)
			if err != nil || len(words) < 2 || words[0] != "--cmd" {
				t.Fatalf("%s: %q, %v", got, words, err)
			}
			argv, err := coverage.ParseCommand(words[1])
			if err != nil || !slices.Equal(argv, c.Argv) {
				t.Errorf("%s reads back as %q, %v; want %q", got, argv, err, c.Argv)
			}
		}
	}
}
