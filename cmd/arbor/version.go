package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// buildInfo is what the binary knows of how it was built.
type buildInfo struct {
	Module    string            `json:"module"`
	Version   string            `json:"version"`             // the module version, or "(devel)" in a checkout
	Revision  string            `json:"revision,omitempty"`  // the commit, when built from a repository
	Time      string            `json:"time,omitempty"`      // of the commit
	Modified  bool              `json:"modified,omitempty"`  // uncommitted changes were built
	Go        string            `json:"go"`                  // the toolchain
	Platform  string            `json:"platform"`            // GOOS/GOARCH
	Libraries map[string]string `json:"libraries,omitempty"` // dependencies and their versions
}

func readBuildInfo() buildInfo {
	b := buildInfo{Module: "github.com/arbor-fuzz/arbor", Version: "(unknown)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Module, b.Version = info.Main.Path, info.Main.Version
	if b.Module == "" {
		b.Module = "github.com/arbor-fuzz/arbor" // a test binary
	}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	for _, d := range info.Deps {
		if b.Libraries == nil {
			b.Libraries = map[string]string{}
		}
		b.Libraries[d.Path] = d.Version
	}
	return b
}

// version is the one-line version that arbor --version prints.
func version() string {
	b := readBuildInfo()
	var extra []string
	if b.Revision != "" {
		rev := b.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if b.Modified {
			rev += "+modified"
		}
		extra = append(extra, rev)
	}
	if b.Time != "" {
		extra = append(extra, b.Time)
	}
	extra = append(extra, b.Go, b.Platform)
	return fmt.Sprintf("arbor %s (%s)", b.Version, strings.Join(extra, ", "))
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print arbor's version and how it was built",
		Long: `version prints arbor's module version, the commit it was built from (when
built from a repository), the Go toolchain and platform, and with --json
also the versions of the libraries it was built with. arbor --version
prints the first line.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(readBuildInfo())
			}
			_, err := fmt.Fprintln(out, version())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON, with the libraries")
	return cmd
}
