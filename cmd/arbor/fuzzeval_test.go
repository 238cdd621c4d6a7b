package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/arbor-fuzz/arbor/eval"
)

// cancelOn is a writer that cancels a context once what was written to
// it holds a string.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	when   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.when) {
		c.cancel()
	}
	return len(p), nil
}

// TestFuzzExperimentInterrupted: an experiment over several subjects
// interrupted (Ctrl-C) while it runs the second prints and writes the
// first one's results, as a whole run does, and still fails with the
// interruption. Before, it printed nothing, wrote nothing and lost the
// finished subjects (E7 without --out until later: with --out its
// checkpoint had them, and is left as it is).
func TestFuzzExperimentInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two subjects")
	}
	tests := []struct {
		name, when string
		args       []string
		out        string // the file --out gets, "" for no --out
		finished   func(data []byte) ([]string, error)
	}{
		{"E11", "E11 yaml", []string{"eval", "E11", "--subjects", "cron,yaml", "--inputs", "20", "--speed-inputs", "20", "--reps", "1"}, "e11.json",
			func(data []byte) ([]string, error) {
				var r eval.E11Result
				if err := json.Unmarshal(data, &r); err != nil {
					return nil, err
				}
				var names []string
				for _, s := range r.Subjects {
					if s.On.Accepted > 0 {
						names = append(names, s.Subject)
					}
				}
				return names, nil
			}},
		{"E7", "E7 yaml", []string{"eval", "E7", "--subjects", "cron,yaml", "--time", "200ms", "--reps", "1", "--methods", "random"}, "", e7Finished},
		// Stopped in yaml's second run: the checkpoint keeps its first,
		// for --resume.
		{"E7 checkpoint", "E7 yaml: zest", []string{"eval", "E7", "--subjects", "cron,yaml", "--time", "200ms", "--reps", "1", "--methods", "random,zest"}, "e7.json", e7Finished},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dir := filepath.Join(t.TempDir(), "out")
			args := append(tt.args, "--json")
			if tt.out != "" {
				args = append(args, "--out", dir)
			}
			var stdout bytes.Buffer
			stderr := &cancelOn{when: tt.when, cancel: cancel}
			root := newRoot(strings.NewReader(""))
			root.SetArgs(args)
			root.SetOut(&stdout)
			root.SetErr(stderr)
			err := root.ExecuteContext(ctx)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "(cron)") {
				t.Fatalf("error %v, want the interruption naming the finished subject cron", err)
			}
			results := map[string][]byte{"printed": stdout.Bytes()}
			if tt.out != "" {
				data, err := os.ReadFile(filepath.Join(dir, tt.out))
				if err != nil {
					t.Fatalf("nothing written: %v", err)
				}
				results["written"] = data
				if tt.name == "E7 checkpoint" {
					var r eval.E7Result
					if err := json.Unmarshal(data, &r); err != nil || len(r.Subjects) != 2 || len(r.Subjects[1].Runs) != 1 {
						t.Errorf("the checkpoint lost yaml's finished run: %v, %d subjects", err, len(r.Subjects))
					}
				}
			}
			for what, data := range results {
				names, err := tt.finished(data)
				if err != nil {
					t.Fatalf("%s: not the result's JSON: %v\n%s", what, err, data)
				}
				if len(names) != 1 || names[0] != "cron" {
					t.Errorf("%s: finished %v, want cron alone", what, names)
				}
			}
		})
	}
}

// e7Finished names the subjects of an E7 result whose runs are whole.
func e7Finished(data []byte) ([]string, error) {
	var r eval.E7Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	var names []string
	for _, s := range r.Subjects {
		if len(s.Runs) == r.Reps*len(r.Methods) {
			names = append(names, s.Subject)
		}
	}
	return names, nil
}
