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
// finished subjects.
func TestFuzzExperimentInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two subjects")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := filepath.Join(t.TempDir(), "e11")
	var stdout bytes.Buffer
	stderr := &cancelOn{when: "E11 yaml", cancel: cancel}
	root := newRoot(strings.NewReader(""))
	root.SetArgs([]string{"eval", "E11", "--subjects", "cron,yaml", "--inputs", "20", "--speed-inputs", "20", "--reps", "1", "--out", dir, "--json"})
	root.SetOut(&stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "(cron)") {
		t.Fatalf("error %v, want the interruption naming the finished subject cron", err)
	}
	var printed eval.E11Result
	if err := json.Unmarshal(stdout.Bytes(), &printed); err != nil {
		t.Fatalf("stdout is not the result's JSON: %v\n%s", err, stdout.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "e11.json"))
	if err != nil {
		t.Fatalf("nothing written: %v", err)
	}
	var written eval.E11Result
	if err := json.Unmarshal(data, &written); err != nil {
		t.Fatal(err)
	}
	for what, r := range map[string]eval.E11Result{"printed": printed, "written": written} {
		if len(r.Subjects) != 1 || r.Subjects[0].Subject != "cron" || r.Subjects[0].On.Accepted == 0 {
			t.Errorf("%s: %+v, want cron's finished result alone", what, r.Subjects)
		}
	}
}
