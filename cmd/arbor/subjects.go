package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
)

func newSubjectsCmd() *cobra.Command {
	var functions, asJSON bool
	cmd := &cobra.Command{
		Use:   "subjects",
		Short: "List the bundled programs under test and grammars",
		Long: `subjects lists the bundled programs under test (real libraries, wrapped
the way a program uses them) with their library version and grammar,
whether each can run on this machine, and the bundled grammars.

Whether a subject can run is found by cheap checks only: its language's
tools on PATH (or where the harness looks for them) and the files it needs
(gson's jar; cJSON's source, cached or fetchable with apt-get). For a
subject that cannot, the column names what is missing and the lines
under the table say what to install ('arbor doctor' says more). Nothing
is built or fetched.

--functions builds the harness of every subject that can run (once: they
are cached) and counts the functions it instruments. A subject whose
build fails shows "failed" and its error goes to stderr; the listing
goes on, and the exit status is then 1.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			list, failed, err := bundledSubjects(contextOf(cmd), cmd.ErrOrStderr(), functions)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				err = writeJSON(out, list)
			} else {
				err = printSubjects(out, list)
			}
			if err != nil {
				return err
			}
			if failed > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "arbor: %d of %d subjects failed to build\n", failed, len(list.Subjects))
				return errReported
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&functions, "functions", false, "build the harness of each subject that can run here and count the functions instrumented")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the lists as JSON (docs/json.md)")
	return cmd
}

// bundledSubjects lists the bundled subjects, whether each can run here
// (cheap checks: nothing is built or fetched) and the bundled grammars.
// With functions it builds the harness of each subject that can run and
// counts the functions it instruments; a build that fails is told of on
// errOut and counted in failed, and the listing goes on.
func bundledSubjects(ctx context.Context, errOut io.Writer, functions bool) (list subjectList, failed int, err error) {
	subjects := datasets.Subjects()
	for i, st := range datasets.CheckSubjects(ctx, subjects) {
		s := subjects[i]
		entry := subjectEntry{Name: s.Name, Library: s.Library, Version: s.Version(), Grammar: s.Grammar, Lang: s.Lang, Deep: s.Deep,
			Description: s.Description, Available: st.OK, Missing: st.Missing, Install: st.Install}
		if functions && st.OK {
			count, err := countFunctions(ctx, s)
			if err != nil {
				if ctx.Err() != nil {
					return subjectList{}, 0, ctx.Err()
				}
				failed++
				entry.Error = err.Error()
				fmt.Fprintf(errOut, "arbor: subject %s: %v\n", s.Name, err)
			} else {
				entry.Functions = &count
			}
		}
		list.Subjects = append(list.Subjects, entry)
	}
	for _, info := range datasets.Grammars() {
		g, err := datasets.Grammar(info.Name)
		if err != nil {
			return subjectList{}, 0, fmt.Errorf("bundled grammar %s: %w", info.Name, err)
		}
		list.Grammars = append(list.Grammars, grammarEntry{info.Name, len(g.Rules), len(g.Nodes), info.Description})
	}
	return list, failed, nil
}

// printSubjects prints the subjects and the grammars as tables, and
// under the subjects what to install for those that cannot run here,
// each command with the subjects it is for.
func printSubjects(out io.Writer, list subjectList) error {
	var rows [][]string
	var install []string
	installFor := map[string][]string{}
	for _, s := range list.Subjects {
		here := "yes"
		if !s.Available {
			var what []string
			for _, n := range s.Missing {
				what = append(what, n.What)
			}
			here = "no: " + strings.Join(what, ", ")
			if s.Install != "" {
				if installFor[s.Install] == nil {
					install = append(install, s.Install)
				}
				installFor[s.Install] = append(installFor[s.Install], s.Name)
			}
		}
		n := "-"
		switch {
		case s.Error != "":
			n = "failed"
		case s.Functions != nil:
			n = strconv.Itoa(*s.Functions)
		}
		rows = append(rows, []string{s.Name, s.Library + " " + s.Version, s.Grammar, here, n, s.Description})
	}
	header := []string{"subject", "library", "grammar", "runs here", "functions", "what the wrapper does"}
	if err := renderTable(out, header, rows); err != nil {
		return err
	}
	if len(install) > 0 {
		fmt.Fprintln(out, "To run the subjects that cannot run here, install what they need ('arbor doctor' says more):")
		for _, c := range install {
			fmt.Fprintf(out, "  %s: %s\n", strings.Join(installFor[c], ", "), c)
		}
	}
	fmt.Fprintln(out)
	var grammarRows [][]string
	for _, g := range list.Grammars {
		grammarRows = append(grammarRows, []string{g.Name, strconv.Itoa(g.Rules), strconv.Itoa(g.Nodes), g.Description})
	}
	return renderTable(out, []string{"grammar", "rules", "nodes", "description"}, grammarRows)
}

// subjectList is what subjects lists, as --json prints it.
type subjectList struct {
	Subjects []subjectEntry `json:"subjects"`
	Grammars []grammarEntry `json:"grammars"`
}

type subjectEntry struct {
	Name        string `json:"name"`
	Library     string `json:"library"`
	Version     string `json:"version"`
	Grammar     string `json:"grammar"`
	Functions   *int   `json:"functions,omitempty"` // instrumented; only with --functions, when the build succeeded
	Description string `json:"description"`
	Lang        string `json:"lang"`
	Deep        bool   `json:"deep,omitempty"` // an interpreter: parses, resolves names, checks types, runs
	// Available says whether the subject can run here (cheap checks);
	// Missing and Install say what it lacks and how to install it.
	Available bool            `json:"available"`
	Missing   []coverage.Need `json:"missing,omitempty"`
	Install   string          `json:"install,omitempty"`
	Error     string          `json:"error,omitempty"` // why --functions could not build it
}

type grammarEntry struct {
	Name        string `json:"name"`
	Rules       int    `json:"rules"`
	Nodes       int    `json:"nodes"`
	Description string `json:"description"`
}

// countFunctions builds a subject's harness (or takes it from the cache)
// and returns the number of functions it instruments.
func countFunctions(ctx context.Context, s datasets.Subject) (int, error) {
	target, err := s.TargetContext(ctx)
	if err != nil {
		return 0, err
	}
	sess, err := coverage.Open(ctx, target, coverage.DefaultCacheDir(), coverage.RunOptions{})
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	return len(sess.Funcs.Names), nil
}
