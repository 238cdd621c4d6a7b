package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/coverage"
	"github.com/arbor-fuzz/arbor/datasets"
)

func newDoctorCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say which kinds of program and coverage report work on this machine",
		Long: `doctor says which kinds of program arbor can record on this machine (Go
functions in one process and with a process per input, C, Java and Python
targets, any command) and which coverage report formats the tools here can
write (gcov, lcov, jacoco, coveragepy), and for each that does not work,
what is missing and the command that installs it (Debian packages).

The tools are looked for exactly as recording looks for them (PATH,
JAVA_HOME, ARBOR_JAVA_LIBS, ARBOR_JACOCO_DIR, ARBOR_PYTHON). arbor reads
every report format itself; a format's line is about the tools that write
it. It also names the bundled subjects that cannot run here.

The exit status is 0 whatever is missing.`,
		Example: `  arbor doctor
  arbor doctor --json | jq -r .install`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			r := doctorReport{Tools: coverage.CheckTools(ctx)}
			var needs []coverage.Need
			for _, t := range r.Tools {
				needs = append(needs, t.Missing...)
			}
			subjects := datasets.Subjects()
			for _, st := range datasets.CheckSubjects(ctx, subjects) {
				if !st.OK {
					r.SubjectsUnavailable = append(r.SubjectsUnavailable, st.Name)
					needs = append(needs, st.Missing...)
				}
			}
			r.Install = coverage.InstallCommand(needs)
			r.OK = len(needs) == 0
			var optional []coverage.Need
			for _, t := range r.Tools {
				optional = append(optional, t.Optional...)
			}
			r.InstallOptional = coverage.InstallCommand(optional)
			r.Cache, _ = coverage.CacheRoot()
			r.CacheTemporary = coverage.CacheTemporary()
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), r)
			}
			return printDoctor(cmd.OutOrStdout(), r, len(subjects))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON (docs/json.md)")
	return cmd
}

// doctorReport is what doctor says, as --json prints it.
type doctorReport struct {
	// OK: every kind of target, report format and bundled subject works.
	OK    bool                  `json:"ok"`
	Tools []coverage.ToolStatus `json:"tools"`
	// Install is one command that installs everything missing.
	Install             string   `json:"install,omitempty"`
	SubjectsUnavailable []string `json:"subjects_unavailable,omitempty"`
	// InstallOptional installs the optional tools that are missing: those
	// arbor does not need, which hand-written recipes and arbor's own
	// tests use.
	InstallOptional string `json:"install_optional,omitempty"`
	// Cache is the folder of what arbor builds and runs (harnesses, the
	// subjects' sources); CacheTemporary says it is in the temporary
	// folder, for want of XDG_CACHE_HOME and HOME.
	Cache          string `json:"cache"`
	CacheTemporary bool   `json:"cache_temporary,omitempty"`
}

func printDoctor(w io.Writer, r doctorReport, subjects int) error {
	for _, kind := range []struct{ kind, title string }{
		{"target", "Programs to record (record, target, fuzz, eval):"},
		{"report", "Coverage reports of a --cmd (record --report), by the tools that write them:"},
	} {
		fmt.Fprintln(w, kind.title)
		var rows [][]string
		for _, t := range r.Tools {
			if t.Kind != kind.kind {
				continue
			}
			works, detail := "yes", ""
			if len(t.Found) > 0 {
				detail = t.Found[0]
			}
			if !t.OK {
				var what []string
				for _, n := range t.Missing {
					what = append(what, n.What)
				}
				works, detail = "no", "missing "+strings.Join(what, ", ")
			}
			rows = append(rows, []string{t.Name, works, t.Description, detail, t.Install})
		}
		if err := renderTable(w, []string{"kind", "works", "what", "found or missing", "install"}, rows); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	// The harnesses' own messages: what record would say.
	var seen []string
	for _, t := range r.Tools {
		for _, n := range t.Missing {
			if !slices.Contains(seen, n.Error) {
				seen = append(seen, n.Error)
			}
		}
	}
	if len(seen) > 0 {
		fmt.Fprintln(w, "Missing:")
		for _, e := range seen {
			fmt.Fprintln(w, "  "+e)
		}
	}
	if n := len(r.SubjectsUnavailable); n > 0 {
		fmt.Fprintf(w, "Bundled subjects that cannot run here: %d of %d (%s); see 'arbor subjects'.\n", n, subjects, strings.Join(r.SubjectsUnavailable, ", "))
	} else {
		fmt.Fprintf(w, "Every bundled subject (%d) can run here.\n", subjects)
	}
	if r.Install != "" {
		fmt.Fprintf(w, "To install everything missing: %s\n", r.Install)
	}
	if r.InstallOptional != "" {
		fmt.Fprintf(w, "Optional, for the hand-written recipes of docs/recording.md and arbor's own tests: %s\n", r.InstallOptional)
	}
	if r.CacheTemporary {
		fmt.Fprintf(w, "Cache: %s, a folder of your own in the temporary folder, since neither XDG_CACHE_HOME nor HOME is set; "+
			"what arbor builds there is built again once the system cleans it.\n", coverage.ShowName(r.Cache))
	} else {
		fmt.Fprintf(w, "Cache: %s\n", coverage.ShowName(r.Cache))
	}
	return nil
}
