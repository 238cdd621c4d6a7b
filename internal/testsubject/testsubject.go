// Package testsubject builds bundled subjects' harnesses for tests of
// the packages that run them.
package testsubject

import (
	"context"
	"testing"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
)

// Binary builds (or takes from the shared cache) the harness of the
// bundled subject name, failing the test if it cannot.
func Binary(t testing.TB, name string) *coverage.Binary {
	t.Helper()
	s, err := datasets.LookupSubject(name)
	if err != nil {
		t.Fatal(err)
	}
	target, err := s.Target()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := coverage.Build(context.Background(), target, coverage.DefaultCacheDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
