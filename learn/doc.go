// Package learn fits one decision tree per function on the features of
// inputs (docs/algorithms.md): bitset CART trees, per-function training
// with class balancing, cross-validation against the majority class,
// model files that keep their grammar and training data, prediction with
// reasons, and the constraints targeted generation solves.
//
//	d, err := learn.NewDatasetContext(ctx, g, features.Options{MaxK: 4}, covFile, inputs)
//	m, err := learn.TrainModel(ctx, g, d, learn.ModelConfig{Subject: "json", GrammarName: "json",
//		Train: learn.TrainOptions{Seed: 1}})
//	err = m.Save("json.model.gz")
//
//	p, err := learn.NewPredictor(m, g)
//	preds, err := p.Predict([]byte(`{"a": [1]}`)) // one Prediction per function
package learn
