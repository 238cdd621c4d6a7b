package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/fuzztarget"
)

func newFuzzTargetCmd() *cobra.Command {
	var cfg fuzztarget.Config
	var grammarArg, inputs string
	var asJSON bool
	var cons constraintsFlag
	cmd := &cobra.Command{
		Use:   "fuzz-target --go IMPORTPATH.Func --grammar G --fuzz-target FuzzX --out DIR [--inputs PATH]",
		Short: "Write a grammar-aware Go fuzz target, its seeds and the OSS-Fuzz / ClusterFuzzLite build files",
		Long: `fuzz-target writes what a Go project needs to fuzz a function with a
grammar, continuously, on the engines that run Go fuzz targets: go test
-fuzz, OSS-Fuzz and ClusterFuzzLite. --out is a new package's folder
inside the function's module; into it go

  GRAMMAR.grammar   the grammar in arbor's notation, embedded in the package
  target.go         the generator: synth.ByteGenerator of the grammar
  fuzz_test.go      the fuzz target --fuzz-target: the fuzzer's bytes are the
                    generator's choices, so every byte string is an input of
                    the grammar, and the function runs on it (a panic is a
                    finding, a returned error is not)
  ossfuzz.sh        the target's build for OSS-Fuzz's Go builder: a libFuzzer
                    binary (compile_native_go_fuzzer) and its seed corpus zip
  testdata/fuzz/FuzzX/
                    the seed corpus: each input below --inputs, parsed with
                    the grammar and written as the bytes from which the
                    generator makes it again (inputs the grammar does not
                    parse, or the generator's bounds do not reach, are listed
                    and left out)

and, at the module's root, ClusterFuzzLite's .clusterfuzzlite/build.sh
(one line per target), project.yaml and, with --base-image (OSS-Fuzz's Go
builder image, base-builder-go), its Dockerfile. Files the project wrote
itself there are not replaced: the line to add is printed. Running it
again changes nothing; a target file edited since is replaced only with
--force.

The module must require github.com/arbor-fuzz/arbor (go get), and 'go mod
tidy' adds what the new package's imports need. The target's inputs keep
the grammar's where clauses unless --constraints off: the generator
repairs each tree the bytes make, with the same seed every time, so that
an input is still a function of its bytes (a seed that breaks a clause
runs repaired). docs/scale.md has the whole recipe.`,
		Example: "  arbor fuzz-target --go example.com/m/decoder.Decode --grammar json --fuzz-target FuzzDecode --out fuzz/decode --inputs corpus/",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case cfg.Func == "":
				return usageError{errors.New("--go names the function to fuzz, as importpath.Func")}
			case grammarArg == "":
				return usageError{errors.New("--grammar names the grammar of the function's inputs")}
			case cfg.Target == "":
				return usageError{errors.New("--fuzz-target names the fuzz target, FuzzX")}
			case cfg.Dir == "":
				return usageError{errors.New("--out names the fuzz package's folder, inside the function's module")}
			}
			if err := corpus.CheckFuzzTarget(cfg.Target); err != nil {
				return usageError{err}
			}
			if err := cons.check(); err != nil {
				return err
			}
			cfg.NoConstraints = cons.off()
			ast, warnings, err := datasets.ImportGrammar(grammarArg, datasets.ImportOptions{})
			if err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), w)
			}
			cfg.Grammar, cfg.GrammarName = ast, grammarFileName(grammarArg)
			if inputs != "" {
				if cfg.Seeds, err = readSeeds(cmd.ErrOrStderr(), inputs); err != nil {
					return err
				}
			}
			res, err := fuzztarget.Write(contextOf(cmd), cfg)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(w).Encode(res)
			}
			rel := func(p string) string {
				if r, err := filepath.Rel(res.ModuleDir, p); err == nil {
					return r
				}
				return p
			}
			fmt.Fprintf(w, "fuzz target %s in package %s (%s)\n", cfg.Target, res.Package, res.Dir)
			for _, f := range res.Written {
				fmt.Fprintf(w, "  wrote %s\n", rel(f))
			}
			if len(res.Unchanged) > 0 {
				fmt.Fprintf(w, "  %s already as written\n", plural(len(res.Unchanged), "file", "files"))
			}
			fmt.Fprintf(w, "seeds: %d in %s", res.Seeds, rel(corpus.GoFuzzDir(res.Dir, cfg.Target)))
			if len(res.Unseedable) > 0 {
				fmt.Fprintf(w, "; %d left out:", len(res.Unseedable))
				for _, u := range res.Unseedable {
					fmt.Fprintf(w, "\n  %s: %s", u.Name, u.Error)
				}
			}
			fmt.Fprintln(w)
			switch {
			case res.Applied:
				fmt.Fprintf(w, "the target's inputs keep the grammar's %s: each is repaired, the same way for the same bytes\n",
					plural(res.Clauses, "where clause", "where clauses"))
			case res.Clauses > 0:
				fmt.Fprintf(w, "note: the target's inputs follow the grammar's rules, not its %s (--constraints off)\n",
					plural(res.Clauses, "where clause", "where clauses"))
			}
			for _, t := range res.Todo {
				fmt.Fprintf(w, "to do: %s\n", t)
			}
			fmt.Fprintf(w, "run it: go mod tidy && (cd %s && go test -fuzz '^%s$')\n", rel(res.Dir), cfg.Target)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cfg.Func, "go", "", "or any Go function func([]byte) error, as `importpath.Func`")
	fl.StringVar(&grammarArg, "grammar", "", "grammar of the function's inputs: a grammar file or a bundled grammar")
	fl.StringVar(&cfg.Target, "fuzz-target", "", "the Go fuzz target's name, `FuzzX`")
	fl.StringVar(&cfg.Dir, "out", "", "the fuzz package's folder, inside the function's module")
	fl.StringVar(&inputs, "inputs", "", "file or folder of inputs to seed the target with")
	fl.StringVar(&cfg.BaseImage, "base-image", "", "OSS-Fuzz's Go builder `image`, for ClusterFuzzLite's Dockerfile (none written without it)")
	fl.BoolVar(&cfg.Force, "force", false, "replace target files edited since arbor wrote them")
	fl.BoolVar(&asJSON, "json", false, "print the result as JSON")
	cons.register(fl, "the target's generator repairs each input to keep them (it costs time per input)")
	return cmd
}

// grammarFileName is the base name of the grammar file the fuzz package
// embeds: the grammar's name, of letters, digits, - and _.
func grammarFileName(arg string) string {
	base := filepath.Base(arg)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	var b strings.Builder
	for _, r := range base {
		if r < 128 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "input"
	}
	return b.String()
}

// readSeeds reads the inputs in a file or below a folder, as every
// command reads inputs (Go's corpus files decoded).
func readSeeds(stderr io.Writer, path string) ([]fuzztarget.Seed, error) {
	files, err := corpus.List(path)
	if err != nil {
		return nil, err
	}
	var seeds []fuzztarget.Seed
	for _, f := range files {
		data, err := corpus.Read(f)
		if err != nil {
			return nil, fmt.Errorf("seed %s: %w", f, err)
		}
		seeds = append(seeds, fuzztarget.Seed{Name: f, Data: data})
	}
	if len(seeds) == 0 {
		fmt.Fprintf(stderr, "arbor: no inputs in %s\n", path)
	}
	return seeds, nil
}
