// Package report reads the coverage reports of other languages' tools
// into one form arbor can use per input: the functions each run covered,
// with their source files, first lines and counts, and the lines where
// the format has them (docs/adapters.md).
//
// Each parser reads one report, as the tool wrote it:
//
//	ParseLcov        lcov tracefiles (geninfo/lcov, llvm-cov export -format=lcov, coverage lcov)
//	ParseGcovJSON    gcov --json-format (gcc >= 9), plain, gzipped or from --stdout
//	ParseJaCoCo      JaCoCo's XML report
//	ParseCoveragePy  coverage.py's coverage json
//
// The main use, after running one input under a tool:
//
//	f, err := os.Open("run.info")
//	...
//	cov, err := report.ParseLcov(f, "run.info")
//	if err != nil { ... }
//	cov.Relative("/src/project") // names that do not depend on the checkout's place
//	for _, fn := range cov.Covered() {
//		fmt.Println(fn.Name, fn.Hits) // e.g. "lib/parse.c:parse_value 3"
//	}
//
// Function names follow each language's usual qualified form: C and C++
// "file.c:function" (the file keeps static functions of different files
// apart), Java "pkg.Class.method(int,java.lang.String)", Python
// "package.module.Class.method". Reports of coverage.py before 7.5 have
// only lines; PythonFunctions reads the source files' function ranges and
// AssignLines turns lines into functions.
//
// Parsers never panic on malformed input; their errors name the report and
// the line (or byte offset) at fault.
package report
