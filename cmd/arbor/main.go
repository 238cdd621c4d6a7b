// Command arbor learns which input structures make which functions of a
// program run, and generates inputs from that knowledge. Run "arbor help"
// for the commands.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/arbor-fuzz/arbor/coverage"
)

// Exit statuses: 0 success, 1 failure, 2 bad usage.
const (
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks an error in how arbor was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// failedError is returned after a command has already reported its
// problems (for example some inputs did not parse): exit 1, print nothing more.
var errReported = errors.New("reported")

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Ctrl-C, or SIGTERM as a supervisor or a CI job sends, cancels the
	// command's context: long work (recording, experiments) stops at its
	// next check and keeps what it finished.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	// Cobra reports an unknown command of the root as a plain error.
	if strings.HasPrefix(err.Error(), "unknown command ") {
		err = usageError{err}
	}
	if !errors.Is(err, errReported) {
		// An error may name a file, and a file name may hold an escape
		// sequence that would rewrite the terminal.
		fmt.Fprintln(stderr, "arbor:", coverage.ShowText(err.Error()))
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "Run 'arbor help' or add --help to a command for usage.")
		return exitUsage
	}
	return exitFailure
}

func newRoot(stdin io.Reader) *cobra.Command {
	root := &cobra.Command{
		Use:   "arbor",
		Short: "ML-driven targeted input generation from grammars",
		Long: `arbor learns which input structures make which functions of a program run.

Give it a grammar of the program's input format and the program (Go, C,
Java, Python or any command). arbor parses inputs into derivation trees,
describes them by k-paths (paths of k grammar symbols) and other
features, records which functions each input runs, learns one decision
tree per function, predicts coverage, generates inputs aimed at a
function, explains each function's calling condition as grammar
patterns, generates diverse valid inputs with a bandit, and fuzzes with
coverage and validity feedback over its own choice sequences.

A GRAMMAR argument is a grammar file, in arbor's notation (.grammar),
ANTLR 4 (.g4) or fuzzingbook JSON (.json), or the name of a bundled
grammar (see 'arbor subjects').`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newGrammarCmd(), newParseCmd(stdin), newKPathsCmd(stdin), newCoverageCmd(), newGenerateCmd(), newRecordCmd(), newTrainCmd(), newPredictCmd(stdin), newExplainCmd(), newTargetCmd(), newEvalCmd(), newRLCheckCmd(), newFuzzCmd(), newFuzzTargetCmd(), newDemoCmd(), newSubjectsCmd(), newDoctorCmd(), newVersionCmd())
	root.PersistentPreRun = func(cmd *cobra.Command, args []string) { warnRenamed(cmd) }
	root.Version = version()
	root.SetVersionTemplate("{{.Version}}\n")
	strictGroups(root)
	completions(root)
	return root
}

// strictGroups makes every command that only groups others (arbor eval,
// arbor grammar, ...) refuse an argument that names no subcommand, as a
// usage error, instead of printing its help and exiting 0.
func strictGroups(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		strictGroups(sub)
	}
	if !cmd.HasSubCommands() || cmd.Runnable() {
		return
	}
	cmd.Args = cobra.ArbitraryArgs
	cmd.SuggestionsMinimumDistance = 2 // cobra's own default, which it applies only itself
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageError{unknownCommand(cmd, args[0])}
		}
		return cmd.Help()
	}
}

func unknownCommand(cmd *cobra.Command, name string) error {
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return fmt.Errorf("unknown command %q for %q; did you mean %s?", name, cmd.CommandPath(), n)
		}
	}
	if guesses := cmd.SuggestionsFor(name); len(guesses) > 0 {
		return fmt.Errorf("unknown command %q for %q; did you mean %s?", name, cmd.CommandPath(), strings.Join(guesses, " or "))
	}
	return fmt.Errorf("unknown command %q for %q (there are: %s)", name, cmd.CommandPath(), strings.Join(names, ", "))
}

// exactArgs and minArgs are cobra's argument checks, reporting usage errors.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageError{fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
		}
		return nil
	}
}

func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MinimumNArgs(n)(cmd, args); err != nil {
			return usageError{fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
		}
		return nil
	}
}

// renamedFlag marks an old flag name, kept so that scripts still work,
// as hidden and renamed: using it prints a warning (on stderr, so that
// no output meant for programs is changed).
func renamedFlag(cmd *cobra.Command, old, new, why string) {
	cmd.Flags().MarkHidden(old)
	cmd.Flags().SetAnnotation(old, "renamed", []string{new, why})
}

func warnRenamed(cmd *cobra.Command) {
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if r := f.Annotations["renamed"]; len(r) == 2 {
			fmt.Fprintf(cmd.ErrOrStderr(), "arbor: warning: --%s is now --%s (%s); the old name will go\n", f.Name, r[0], r[1])
		}
	})
}

func contextOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// countsText writes counts by reason as "2 inputs: does not parse; 1
// input: timeout", reasons in order.
func countsText(counts map[string]int, noun string) string {
	var parts []string
	for _, reason := range slices.Sorted(maps.Keys(counts)) {
		n := counts[reason]
		word := noun
		if n != 1 {
			word += "s"
		}
		parts = append(parts, fmt.Sprintf("%d %s: %s", n, word, reason))
	}
	return strings.Join(parts, "; ")
}

// missingFlags names the required flags (name to value) left empty,
// in alphabetical order, or is nil when none is.
func missingFlags(flags map[string]string) error {
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		if flags[name] == "" {
			missing = append(missing, name)
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return usageError{fmt.Errorf("%s is required", missing[0])}
	}
	return usageError{fmt.Errorf("%s and %s are required", strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1])}
}

// writeJSON prints v as indented JSON, the form every --json result takes.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func renderTable(w io.Writer, header []string, rows [][]string) error {
	t := tablewriter.NewWriter(w).Options(tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoWrap(tw.WrapNone))
	t.Header(header)
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}
