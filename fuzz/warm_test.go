package fuzz

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/internal/fixture"
)

// TestWarmUp: a session warmed up with an input that finishes runs it
// in every process it starts later, so the first input after a crash
// is not credited with the one-time set-up; one whose warm-up input
// hangs starts its later processes cold rather than wait it out at
// every restart; and ctx ending stops a warm-up's wait.
func TestWarmUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a harness")
	}
	mod := fixture.Module(t, map[string]string{
		"go.mod": "module example.com/warm\n\ngo 1.24\n",
		"lib/lib.go": `package lib

import (
	"os"
	"time"
)

var ready bool

// Run sets up on its first call in a process; "exit" ends the process
// and "hang" does not return, once it has noted that it ran in the
// file $WARM_LOG.
func Run(in []byte) error {
	switch string(in) {
	case "exit":
		os.Exit(3)
	case "hang":
		f, _ := os.OpenFile(os.Getenv("WARM_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		f.WriteString("hang\n")
		f.Close()
		time.Sleep(time.Hour)
	}
	if !ready {
		ready = true
		setUp()
	}
	return nil
}

func setUp() {
	for i := 0; i < 3; i++ {
		_ = i
	}
}
`})
	bin, err := coverage.Build(context.Background(), coverage.Target{ImportPath: "example.com/warm/lib", Func: "Run", Dir: mod}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "warm.log")
	t.Setenv("WARM_LOG", log)
	for _, tt := range []struct {
		warm      string
		wantSetUp bool // in the coverage of the first input after a crash
		hangs     int  // runs of "hang" in all
	}{
		{"a", false, 0},
		{"hang", true, 1},
	} {
		t.Run(tt.warm, func(t *testing.T) {
			os.Remove(log)
			s, err := coverage.Start(bin, coverage.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			setUp := slices.Index(s.Funcs.Names, "example.com/warm/lib.setUp")
			if err := WarmUp(context.Background(), []byte(tt.warm), 200*time.Millisecond, s); err != nil {
				t.Fatal(err)
			}
			for _, in := range []string{"exit", "b"} {
				r, err := s.Record([]byte(in), 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if in == "b" && (r.Outcome != coverage.OK || slices.Contains(r.Covered, setUp) != tt.wantSetUp) {
					t.Errorf("after a crash: %s, set-up covered %t, want %t", r.Outcome, slices.Contains(r.Covered, setUp), tt.wantSetUp)
				}
			}
			data, _ := os.ReadFile(log)
			if n := len(data) / len("hang\n"); n != tt.hangs {
				t.Errorf("the hanging warm-up ran %d times, want %d (not again in the process started after the crash)", n, tt.hangs)
			}
		})
	}
	t.Run("interrupted", func(t *testing.T) {
		s, err := coverage.Start(bin, coverage.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		err = WarmUp(ctx, []byte("hang"), time.Minute, s)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want the cancellation", err)
		}
		// Not a timing measurement: without the interruption the wait
		// is the minute's timeout.
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("the warm-up waited %v after its context ended", d)
		}
	})
}
