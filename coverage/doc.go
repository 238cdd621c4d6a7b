// Package coverage records which functions of a program each input makes
// run (docs/recording.md, docs/languages.md): Go functions in-process or
// with a process per input, C, Java and Python functions through harnesses
// of their languages, and any command through its coverage tool's report.
//
// A Go target is a function func([]byte) error or func([]byte) in any
// package. Build writes a harness main around it inside the module,
// builds it once with -cover -covermode=atomic (cached), and a Session
// runs inputs in the harness process: clear the counters, call the
// function (recovering panics; the recorder enforces a time limit),
// write the counters, decode them. Go has no public decoder of its
// coverage formats; DecodeMeta and DecodeCounters read them.
//
//	bin, err := coverage.Build(ctx, coverage.Target{ImportPath: "example.com/p", Func: "Parse"}, coverage.DefaultCacheDir())
//	sum, err := coverage.RecordInputs(ctx, bin, files, "cov.jsonl", coverage.Options{Subject: "p"})
//	f, err := coverage.ReadFile("cov.jsonl")
//	m := f.Matrix() // per function, the inputs that covered it
//
// The coverage file (cov.jsonl) is a header line naming the functions,
// then one line per input; recording appends, resumes, and shards.
package coverage
