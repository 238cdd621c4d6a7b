package learn_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/internal/fixture"
	"github.com/arbor-fuzz/arbor/learn"
)

// TestCheckRecorded (issue 26): the inputs training takes are counted
// against the constraints by outcome; a panic or timeout is left out, as
// training leaves it out, and an input not found is not counted; an
// input that does not parse is counted as such. A cancelled context is
// an error, not a count.
func TestCheckRecorded(t *testing.T) {
	g := fixture.Build(t, "pairs.grammar", "Pair := A \",\" B ;\nA := /[0-9]+/ ;\nB := /[0-9]+/ ;\nwhere Pair: A.num < B.num ;\n")
	set, err := constraint.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	cov := &coverage.File{}
	data := map[string][]byte{}
	for _, in := range []struct {
		text    string
		outcome coverage.Outcome
		found   bool
	}{
		{"1,2", coverage.OK, true},      // satisfied, accepted
		{"2,1", coverage.OK, true},      // broken, accepted
		{"3,1", coverage.Error, true},   // broken, rejected
		{"1,3", coverage.Error, true},   // satisfied, rejected
		{"4,1", coverage.Panic, true},   // left out
		{"5,1", coverage.Timeout, true}, // left out
		{"6,1", coverage.OK, false},     // not found
		{"x", coverage.Error, true},     // does not parse
	} {
		sum := sha256.Sum256([]byte(in.text))
		sha := hex.EncodeToString(sum[:])
		cov.Records = append(cov.Records, coverage.Record{Input: in.text, SHA256: sha, Outcome: in.outcome})
		if in.found {
			data[sha] = []byte(in.text)
		}
	}
	got, err := learn.CheckRecorded(context.Background(), set, cov, data)
	if err != nil {
		t.Fatal(err)
	}
	want := &learn.Conformance{Clauses: 1, Inputs: 5, NotParsed: 1, Broken: 2,
		BrokenAccepted: 1, BrokenRejected: 1, SatisfiedAccepted: 1, SatisfiedRejected: 1,
		ByClause: []learn.ClauseConformance{{Clause: "where Pair: A.num < B.num ;", Pos: "pairs.grammar:4:1", Broken: 2, Accepted: 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c, err := learn.CheckRecorded(ctx, set, cov, data); !errors.Is(err, context.Canceled) || c != nil {
		t.Errorf("cancelled: %+v, %v", c, err)
	}
}
