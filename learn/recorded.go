package learn

import (
	"context"
	"errors"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/features"
	"github.com/arbor-fuzz/arbor/grammar"
)

// Why recorded coverage gives nothing to learn from (TrainRecorded).
var (
	// ErrNoRows: no record matches an input that parses.
	ErrNoRows = errors.New("no training rows")
	// ErrUnparsed: more of the recorded inputs do not parse than do. A
	// wrong grammar parses a few inputs by chance, and learning from
	// those alone would say nothing true of the corpus.
	ErrUnparsed = errors.New("most recorded inputs do not parse")
	// ErrNoTrainable: every function ran on every input or on none, so
	// there is no function to fit a tree to.
	ErrNoTrainable = errors.New("no trainable function")
)

// RecordedConfig says how TrainRecorded learns from recorded coverage.
type RecordedConfig struct {
	// Features says what describes an input.
	Features features.Options
	// Model names the model and shapes its trees; its Subject and
	// Target, if not set, are the coverage file's.
	Model ModelConfig
	// Folds, if above 0, scores every tree by Folds-fold
	// cross-validation against the majority class (ScoreCV): the scores
	// go into the model.
	Folds int
}

// TrainRecorded is the training recipe of arbor train: the dataset of
// the coverage file's records and their inputs, data by sha256
// (NewDatasetContext); a model of it (TrainModel), unless the dataset is
// not worth learning from; and with cfg.Folds, the trees' scores.
//
// The dataset is returned with the model. Recorded coverage that gives
// nothing to learn from is an error that wraps ErrNoRows, ErrUnparsed
// (the dataset returned too, to say how many inputs did not parse) or
// ErrNoTrainable (the model returned too, to say how many functions ran
// on every input). When ctx is done it returns ctx's error: a model of
// the rows read so far would mislead.
func TrainRecorded(ctx context.Context, g *grammar.Graph, cov *coverage.File, data map[string][]byte, cfg RecordedConfig) (*Model, *Dataset, error) {
	d, err := NewDatasetContext(ctx, g, cfg.Features, cov, data)
	if err != nil {
		return nil, nil, err
	}
	if d.Rows == 0 {
		return nil, d, ErrNoRows
	}
	if bad := d.Skipped["does not parse"]; bad > d.Rows {
		return nil, d, ErrUnparsed
	}
	mc := cfg.Model
	if mc.Subject == "" {
		mc.Subject = cov.Subject
	}
	if mc.Target == nil {
		mc.Target = cov.Target
	}
	m, err := TrainModel(ctx, g, d, mc)
	if err != nil {
		return nil, d, err
	}
	if len(m.Functions) == 0 {
		return m, d, ErrNoTrainable
	}
	if cfg.Folds > 0 {
		if err := ScoreCV(ctx, d, m.Functions, mc.Train, cfg.Folds); err != nil {
			return nil, d, err
		}
	}
	return m, d, nil
}
