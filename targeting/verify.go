package targeting

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/learn"
)

// Verify runs bin, the model's program built, on the inputs in files,
// records their coverage to covFile (afresh), and counts the inputs that
// ran function: what offline targeting's inputs, which have not run,
// are worth.
func Verify(ctx context.Context, bin *coverage.Binary, m *learn.Model, function string, files []string, covFile string) (ran, total int, err error) {
	os.Remove(covFile)
	if _, err := coverage.RecordInputs(ctx, bin, files, covFile, coverage.Options{Subject: m.Subject}); err != nil {
		return 0, 0, err
	}
	f, err := coverage.ReadFile(covFile)
	if err != nil {
		return 0, 0, err
	}
	id := slices.Index(f.Functions, function)
	for _, r := range f.Records {
		total++
		if id >= 0 && slices.Contains(r.Covered, id) {
			ran++
		}
	}
	return ran, total, nil
}

// VerifyDir verifies the inputs in the folder dir (as corpus.List lists
// them, .jsonl files left out), recording their coverage to
// dir/verify.cov.jsonl.
func VerifyDir(ctx context.Context, bin *coverage.Binary, m *learn.Model, function, dir string) (ran, total int, err error) {
	files, err := corpus.List(dir)
	if err != nil {
		return 0, 0, err
	}
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, ".jsonl") })
	return Verify(ctx, bin, m, function, files, filepath.Join(dir, "verify.cov.jsonl"))
}
