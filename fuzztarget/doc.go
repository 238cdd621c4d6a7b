// Package fuzztarget writes what a Go project needs to fuzz a function
// with arbor's grammar on the engines that run Go fuzz targets
// continuously (go test -fuzz, OSS-Fuzz and ClusterFuzzLite): a fuzz
// target whose bytes are the grammar generator's choices
// (synth.ByteGenerator), the grammar embedded beside it, a seed corpus
// made of given inputs, and the build script those engines call for
// native Go fuzz targets.
//
//	res, err := fuzztarget.Write(ctx, fuzztarget.Config{
//		Dir: "fuzz/decode", Func: "example.com/m/decoder.Decode", Target: "FuzzDecode",
//		Grammar: ast, Seeds: inputs,
//	})
//
// The folder becomes a Go package of the function's module: go test runs
// the target and its seeds as it runs any fuzz target, and its build
// script, run from the module's root inside OSS-Fuzz's Go builder,
// compiles the target into a libFuzzer binary and packs the seeds as the
// engine's seed corpus. The target's inputs keep the grammar's where
// clauses unless Config.NoConstraints: its generator repairs each tree
// the bytes make, the same way for the same bytes.
package fuzztarget
