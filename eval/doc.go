// Package eval runs arbor's experiments (DESIGN.md §9) and computes their
// metrics. E3 measures association quality: how well per-function trees
// learned from recorded coverage predict which functions new inputs run.
//
//	res, err := eval.E3(ctx, eval.E3Config{Subject: "json", Grammar: g, Target: t, WorkDir: dir})
//	fmt.Println(res.Accuracy, res.Precision, res.Recall)
//
// The other experiments (E1, E2, E4–E6) are later stages.
package eval
