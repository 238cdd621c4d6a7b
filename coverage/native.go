package coverage

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// HarnessTarget is a function of another language that a harness of that
// language calls in-process, once per input, recording which functions
// ran. It is the fast way to record programs that are not Go: a process
// per input (CommandTarget) costs milliseconds, a JVM start hundreds.
//
// The harnesses speak the Go harness's protocol (see harnessSource) with
// a different start and counter data, which Session reads as "ARBOR2":
//
//	start:   "ARBOR2", then a status line ("ok" or the reason the function
//	         cannot be called), then uint32 length + the names of the
//	         recorded functions, one per line (the name's index is its id)
//	reply:   as ARBOR1, but the counter data of 'R' is a sequence of
//	         (uint32 function id, uint32 calls) pairs, little-endian, one
//	         for each function that ran
//
// Function names follow the coverage reports' conventions (package
// coverage/report), so that the labels of a harness and of a
// process-per-input run of the same program can be compared:
// C "file.c:func", Java "pkg.Class.method(desc)", Python "pkg.mod.Class.method".
type HarnessTarget struct {
	Lang string `json:"lang"` // "c", "java" or "python"
	// Entry is the function called with each input:
	//   c:      empty; the sources define the libFuzzer entry point
	//           int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
	//   java:   a static method taking byte[] or String, as pkg.Class.method
	//   python: a function taking bytes, as module:function
	Entry string `json:"entry,omitempty"`
	// Sources are C: the .c files compiled with the harness; Java: the
	// class path (directories and jars); Python: directories added to
	// the module search path.
	Sources []string `json:"sources,omitempty"`
	// Flags are extra compiler flags (C: -I, -D; Java: JVM options).
	Flags []string `json:"flags,omitempty"`
	// Cover says whose functions are recorded. C: source files or
	// directories (default: every source); Java: packages or classes, with
	// a trailing ".*" for a prefix (default: the entry's package); Python:
	// modules or packages (default: the entry's module).
	Cover []string `json:"cover,omitempty"`
	// Reject names the exceptions that mean the input was rejected (an
	// "error" outcome) rather than a crash ("panic"). Java: class names,
	// default java.lang.Exception (so that Errors, such as StackOverflowError,
	// are crashes); Python: class names, default ValueError. In C a
	// nonzero return from the entry point is a rejection.
	Reject []string `json:"reject,omitempty"`
	// Root is the folder that source paths in function names are relative
	// to (default: the folder of the first source).
	Root string `json:"root,omitempty"`
	// Dir is where the harness runs (default: the current directory).
	Dir string `json:"dir,omitempty"`
}

// String names the target in messages: the language and the entry, or
// for C the sources' file names (their folders are in the target).
func (h HarnessTarget) String() string {
	if h.Lang == "c" {
		names := make([]string, len(h.Sources))
		for i, s := range h.Sources {
			names[i] = filepath.Base(s)
		}
		return "c:" + strings.Join(names, ",")
	}
	return h.Lang + ":" + h.Entry
}

// Name is how the target is named in coverage files and results: the
// entry function, or for C the first source file's name without its
// extension.
func (h HarnessTarget) Name() string {
	if h.Lang == "c" && len(h.Sources) > 0 {
		base := filepath.Base(h.Sources[0])
		return strings.TrimSuffix(base, filepath.Ext(base))
	}
	return h.Entry
}

// HarnessLangs are the languages a HarnessTarget can be written in.
func HarnessLangs() []string { return []string{"c", "java", "python"} }

// buildHarness builds (or takes from cacheDir) the harness of a target
// in another language.
func buildHarness(ctx context.Context, t Target, cacheDir string, doBuild bool) (*Binary, error) {
	h := *t.Harness
	var (
		bin *Binary
		err error
	)
	switch h.Lang {
	case "c":
		bin, err = buildC(ctx, h, cacheDir, doBuild)
	case "java":
		bin, err = buildJava(ctx, h, cacheDir, doBuild)
	case "python":
		bin, err = buildPython(ctx, h, cacheDir, doBuild)
	default:
		return nil, fmt.Errorf("no harness for language %q (there are: %s)", h.Lang, strings.Join(HarnessLangs(), ", "))
	}
	if bin != nil {
		bin.Target = t
	}
	return bin, err
}
