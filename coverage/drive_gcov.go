package coverage

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage/report"
)

// gcovDriver runs a program built with gcc --coverage so that its
// coverage data goes to the run's folder, and runs gcov on it.
//
// libgcov writes each object's counters, when the program exits, to the
// absolute .gcda path compiled into the program, with GCOV_PREFIX put
// before it after GCOV_PREFIX_STRIP leading folders are dropped. With
// the run's folder as the prefix and nothing dropped, the data of the
// object compiled at /b/src/x.o lands at DIR/b/src/x.gcda: the folders
// of objects of one base name stay apart, and the notes file gcov needs,
// written by gcc beside the object (/b/src/x.gcno), is found by taking
// DIR away again. Shared libraries built with --coverage land there too.
type gcovDriver struct {
	gcov   string // the gcov of the gcc that built the program
	format string // "gcov" or "lcov"
}

// gcovFiles are the files a gcov-driven run leaves for the reader: gcov
// JSON, or, for --report lcov, a tracefile made from it.
const (
	gcovDrivenJSON = "arbor.gcov.json"
	gcovDrivenLcov = "arbor.info"
)

// newGcovDriver drives argv[0] when it is an ELF program that names .gcda
// files (built with gcc --coverage or -fprofile-arcs). Any other program
// runs as written: a hand-written recipe (sh -c '...') makes its own
// report.
func newGcovDriver(ctx context.Context, c *Command, format string) (driver, string, error) {
	prog := c.programPath()
	if prog == "" {
		return nil, "", nil
	}
	data, compiler, isELF := gcovData(prog)
	if !isELF {
		return nil, "", nil
	}
	name := filepath.Base(prog)
	if len(data) == 0 {
		return nil, fmt.Sprintf("%s names no .gcda file: it is not built with gcc --coverage, and arbor runs gcov only for a command whose program is (build it with --coverage, or have the command write the report into {dir} itself)", name), nil
	}
	var abs []string
	for _, gcda := range data {
		if filepath.IsAbs(gcda) {
			abs = append(abs, gcda)
		}
	}
	if len(abs) == 0 {
		return nil, "", fmt.Errorf("--report %s: %s writes its coverage data to the relative path %s, which GCOV_PREFIX does not move; build it without a relative -fprofile-dir, or write the recipe of docs/recording.md", format, name, data[0])
	}
	for _, gcda := range abs {
		notes := strings.TrimSuffix(gcda, ".gcda") + ".gcno"
		if _, err := os.Stat(notes); err != nil {
			return nil, "", fmt.Errorf("--report %s: %s was built with --coverage, but its notes file %s is missing (gcc writes it beside the object file; was the build folder moved or cleaned?)", format, name, notes)
		}
	}
	gcov, err := gcovTool(compiler)
	if err != nil {
		return nil, "", fmt.Errorf("--report %s: %w", format, err)
	}
	return &gcovDriver{gcov: gcov, format: format}, "", nil
}

// gcovTool finds the gcov of the gcc whose version string the program
// carries (gcov-12 for gcc 12, as Debian names them), or else gcov: a
// gcov older than the compiler cannot read its notes.
func gcovTool(compiler string) (string, error) {
	if m := regexp.MustCompile(`GCC: .* (\d+)\.\d+`).FindStringSubmatch(compiler); m != nil {
		if p, err := exec.LookPath("gcov-" + m[1]); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("gcov")
	if err != nil {
		return "", errors.New("gcov not found on PATH (Debian: apt-get install gcc)")
	}
	return p, nil
}

// gcovData reads an ELF program's .gcda paths: libgcov keeps each
// object's as a string among the program's read-only data. compiler is
// the .comment section's text ("GCC: (Debian 12.2.0-14) 12.2.0").
func gcovData(path string) (gcda []string, compiler string, isELF bool) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, "", false
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Type != elf.SHT_PROGBITS {
			continue
		}
		if s.Name == ".comment" {
			if b, err := s.Data(); err == nil {
				compiler = string(bytes.ReplaceAll(b, []byte{0}, []byte{'\n'}))
			}
			continue
		}
		if s.Flags&elf.SHF_ALLOC == 0 || s.Flags&elf.SHF_EXECINSTR != 0 {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		for rest := b; ; {
			i := bytes.Index(rest, []byte(".gcda\x00"))
			if i < 0 {
				break
			}
			if start := bytes.LastIndexByte(rest[:i], 0) + 1; start < i {
				gcda = append(gcda, string(rest[start:i+len(".gcda")]))
			}
			rest = rest[i+len(".gcda\x00"):]
		}
	}
	slices.Sort(gcda)
	return slices.Compact(gcda), compiler, true
}

func (d *gcovDriver) wrap(argv []string, dir string) ([]string, []string) {
	return argv, []string{"GCOV_PREFIX=" + dir, "GCOV_PREFIX_STRIP=0"}
}

// report links each .gcda file's notes beside it and runs gcov on them
// all at once, writing its JSON (gcov --json-format --stdout) to the
// run's folder; for --report lcov, an lcov tracefile of the same
// coverage, named as lcov's geninfo names it.
func (d *gcovDriver) report(ctx context.Context, dir string) error {
	var data []string
	filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() && strings.HasSuffix(path, ".gcda") {
			data = append(data, path)
		}
		return nil
	})
	if len(data) == 0 {
		return nil
	}
	for _, path := range data {
		orig := strings.TrimPrefix(path, dir)
		notes := strings.TrimSuffix(orig, ".gcda") + ".gcno"
		if _, err := os.Stat(notes); err != nil {
			return fmt.Errorf("gcov: the notes file of %s: %w", orig, err)
		}
		if err := os.Symlink(notes, strings.TrimSuffix(path, ".gcda")+".gcno"); err != nil {
			return fmt.Errorf("gcov: %w", err)
		}
	}
	out, err := runTool(ctx, dir, append([]string{d.gcov, "--json-format", "--stdout"}, data...)...)
	if err != nil {
		return err
	}
	if d.format == "gcov" {
		return os.WriteFile(filepath.Join(dir, gcovDrivenJSON), out, 0o644)
	}
	cov, err := report.ParseGcovJSONLcov(bytes.NewReader(out), "gcov --json-format")
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := report.WriteLcov(&b, cov); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, gcovDrivenLcov), b.Bytes(), 0o644)
}
