package synth_test

import (
	"runtime"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/synth"
)

// TestGenerateMemory: a generator that makes input after input, each
// turned into text and dropped, holds no more memory after thousands
// than after a hundred. Trees that shared an arena block kept every
// earlier tree alive through their nodes' pointers: ten minutes of
// constrained javascript inputs reached 24 GB.
func TestGenerateMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates thousands of inputs")
	}
	tests := []struct {
		grammar     string
		constraints bool
		n           int
	}{
		{"javascript", true, 600},
		{"gotemplate", true, 1500},
		{"json", false, 20000},
	}
	for _, tt := range tests {
		t.Run(tt.grammar, func(t *testing.T) {
			g := fixture.Grammar(t, tt.grammar)
			var set *constraint.Set
			if tt.constraints {
				var err error
				if set, err = constraint.Compile(g); err != nil {
					t.Fatal(err)
				}
			}
			gen, _ := synth.ConstrainedGenerator(g, nil, synth.TreeState, 1, 0, set)
			heap := func() uint64 {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				return ms.HeapAlloc
			}
			for range tt.n / 10 {
				gen()
			}
			before := heap()
			for range tt.n {
				gen()
			}
			after := heap()
			runtime.KeepAlive(gen) // what it holds is what is measured
			t.Logf("%s: heap %d MB after %d inputs, %d MB after %d more", tt.grammar, before>>20, tt.n/10, after>>20, tt.n)
			if after > before+32<<20 {
				t.Errorf("the heap grew from %d MB to %d MB over %d inputs that were dropped", before>>20, after>>20, tt.n)
			}
		})
	}
}
