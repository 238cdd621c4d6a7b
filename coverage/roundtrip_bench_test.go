package coverage_test

import (
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/internal/fixture"
)

// BenchmarkSessionRoundTrip runs one small json input through a session
// over and over: warm-up runs (no coverage: the pipe round trip and the
// subject) against recorded runs (which add the harness's collections
// that empty sync.Pools, its counters cleared and written, and their
// decoding here), and recorded runs that keep the pools (RunOptions.
// KeepPools), measured in the same run.
func BenchmarkSessionRoundTrip(b *testing.B) {
	bin := fixture.Binary(b, "json")
	input := []byte(`{"a":[1,2,{"b":null}],"c":"d"}`)
	for _, kind := range []string{"warmup", "record", "record-keep-pools"} {
		b.Run(kind, func(b *testing.B) {
			s, err := coverage.Start(bin, coverage.RunOptions{KeepPools: kind == "record-keep-pools"})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for range b.N {
				var err error
				if kind == "warmup" {
					_, err = s.WarmUp(input, time.Second)
				} else {
					_, err = s.Record(input, time.Second)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
