// Package subject says how to run a program under test: it resolves what
// a user names (a bundled subject, a Go function, a function of another
// language, a command, each with the grammar of its inputs) into a
// coverage.Target and the grammar, and decides what a model's recorded
// program may run (models are data: nothing they record runs unless the
// user names that program or trusts the model).
//
//	s, err := subject.Resolve(ctx, subject.Spec{Go: "example.com/p.Parse", Grammar: "p.grammar"})
//	bin, err := coverage.Build(ctx, s.Target, coverage.DefaultCacheDir())
//
// Flags are the same names as the command line writes them (--go,
// --cmd with --report, ...): Check and Spec refuse their misuse with
// errors that name the flag, and FlagsFor writes a target back as flags.
//
// SessionOracle and CommandOracle judge an input by running a program
// (a recording session, or a command's exit status), for synth.Check.
//
// The commands and the experiments resolve programs here, so that an
// operational command never needs the experiments package to know how
// to run one.
package subject
