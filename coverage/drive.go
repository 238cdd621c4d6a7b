package coverage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/internal/procgroup"
)

// A driver runs a coverage tool around each run of a command, so that
// the command line can be the program and its arguments alone: it
// changes each run's command line and environment (wrap), and after the
// run turns what the tool left in the run's folder into a report of the
// command's format (report). Which programs are driven, and how, is
// decided once per command by newDriver; see docs/recording.md.
type driver interface {
	// wrap returns the command line and the environment additions of a
	// run whose folder is dir; argv has {} and {dir} replaced.
	wrap(argv []string, dir string) ([]string, []string)
	// report writes the report of the run in dir, or nothing when the
	// run left no coverage data (a crash, a timeout).
	report(ctx context.Context, dir string) error
}

// driveTimeout bounds a coverage tool's work after one run (gcov,
// coverage json, JaCoCo's report): seconds at most, unless broken.
const driveTimeout = 2 * time.Minute

// drive decides, once, whether arbor runs the coverage tool of format
// around c's program, and sets it up. A command that is not driven runs
// as written (a hand-written recipe); hint, if not empty, is what to say
// when such a run leaves no report. An error means the program is one
// arbor would drive but a tool it needs is missing.
func (c *Command) drive(ctx context.Context, format string) error {
	if c.driven {
		return nil
	}
	d, hint, err := newDriver(ctx, c, format)
	if err != nil {
		return err
	}
	c.driver, c.format, c.hint, c.driven = d, format, hint, true
	return nil
}

// newDriver picks the driver of format for c's program (see drive).
func newDriver(ctx context.Context, c *Command, format string) (driver, string, error) {
	if len(c.Argv) == 0 {
		return nil, "", nil
	}
	switch format {
	case "gcov", "lcov":
		return newGcovDriver(ctx, c, format)
	case "coveragepy":
		return newPythonDriver(ctx, c)
	case "jacoco":
		return newJaCoCoDriver(ctx, c)
	}
	return nil, "", nil
}

// programPath is the file the command's argv[0] names, found as exec
// finds it: a name with a slash is relative to the command's folder,
// one without is looked up on the PATH. "" if there is none.
func (c *Command) programPath() string {
	p := c.Argv[0]
	if strings.ContainsRune(p, filepath.Separator) {
		if !filepath.IsAbs(p) && c.Dir != "" {
			p = filepath.Join(c.Dir, p)
		}
	} else {
		var err error
		if p, err = exec.LookPath(p); err != nil {
			return ""
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return p
}

// hasReport tells whether a run's folder holds a file of the format:
// a report the command made itself.
func hasReport(dir, format string) bool {
	f, ok := reportFormats[format]
	if !ok {
		return false
	}
	found := false
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && f.match(d.Name()) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// runTool runs a coverage tool's step after a run, in dir, and returns
// its stdout; its stderr goes into the error.
func runTool(ctx context.Context, dir string, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, driveTimeout)
	defer cancel()
	cmd := procgroup.Command(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil && stdout.Len() == 0 {
			return nil, fmt.Errorf("%s: %w", filepath.Base(argv[0]), ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + "..."
		}
		return nil, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, msg)
	}
	return stdout.Bytes(), nil
}
