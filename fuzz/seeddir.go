package fuzz

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/grammar"
)

// maxSkipReasons is how many of the inputs that gave no seed a
// DirSeeds says why of.
const maxSkipReasons = 3

// DirSeeds are the seeds of the inputs in a folder (SeedsFromDir).
type DirSeeds struct {
	Seeds   [][]int  // in the order of the files
	Inputs  int      // the files found
	Skipped int      // the inputs that gave no seed
	Reasons []string // why, for the first few skipped, each naming its file
}

// SeedsFromDir derives the seeds of the inputs in dir (a folder, or one
// file; Go corpus files are decoded) for a campaign under bounds b, as
// SeedsFromInputsContext does. An input that cannot be decoded (a Go
// corpus file that holds no []byte), parsed or derived is skipped; a
// file that cannot be read is an error, and so is a dir that gives no
// seed at all, which names the first few reasons.
func SeedsFromDir(ctx context.Context, dir string, g *grammar.Graph, b Bounds) (*DirSeeds, error) {
	files, err := corpus.List(dir)
	if err != nil {
		return nil, err
	}
	d := &DirSeeds{Inputs: len(files)}
	var (
		inputs [][]byte
		names  []string
	)
	for _, f := range files {
		data, err := corpus.Read(f)
		var fe *corpus.FormatError
		switch {
		case errors.As(err, &fe):
			d.skip(err.Error())
			continue
		case err != nil:
			return nil, err
		}
		inputs, names = append(inputs, data), append(names, f)
	}
	seeds, errs, err := SeedsFromInputsContext(ctx, g, inputs, b)
	if err != nil {
		return nil, err
	}
	for _, err := range errs {
		var ie *InputError
		if errors.As(err, &ie) {
			d.skip(fmt.Sprintf("%s: %v", names[ie.Index], ie.Err))
		} else {
			d.skip("")
		}
	}
	d.Seeds = seeds
	if len(seeds) == 0 {
		if len(files) == 0 {
			return nil, fmt.Errorf("%s holds no input", dir)
		}
		return nil, fmt.Errorf("none of the %d inputs in %s can be parsed and derived; the first: %s",
			len(files), dir, strings.Join(d.Reasons, "; "))
	}
	return d, nil
}

// skip counts an input that gave no seed, and keeps why if it is one of
// the first few with a reason.
func (d *DirSeeds) skip(reason string) {
	d.Skipped++
	if reason != "" && len(d.Reasons) < maxSkipReasons {
		d.Reasons = append(d.Reasons, reason)
	}
}
