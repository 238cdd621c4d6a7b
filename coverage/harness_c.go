package coverage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/dwarf"
	"debug/elf"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage/report"
	"github.com/arbor-fuzz/arbor/internal/procgroup"
)

// cHarness is the C harness's main (see its comment for how it records).
//
//go:embed harnesses/c/harness.c
var cHarness []byte

// cRecipe changes whenever the way a C harness is built changes without
// its sources changing, so that no older build is reused.
const cRecipe = 2

// cDefaultFlags come before the target's flags, which may override them.
// -g is not optional: the function table is read from the debug
// information.
var cDefaultFlags = []string{"-O2", "-g"}

// buildC builds a C harness: the harness main and the target's sources,
// compiled with gcc, the covered sources with -finstrument-functions.
// Function entry hooks were chosen over gcc's --coverage with a
// __gcov_reset and __gcov_dump around each input, because the dump
// alone (it writes a .gcda file per source) costs about 140 µs per input
// on cJSON, and its arc counters still need gcov's graph solving to
// become function entry counts; the hooks cost a few microseconds.
//
// Besides the binary the build writes a function table (harness.funcs)
// naming every function of the binary with its address as an offset
// from the harness's anchor: the recorded functions get ids, the rest
// only name crash frames. The harness reads it at start (its argument).
func buildC(ctx context.Context, h HarnessTarget, cacheDir string, doBuild bool) (*Binary, error) {
	if len(h.Sources) == 0 {
		return nil, errors.New("c harness: no sources (the .c files that define LLVMFuzzerTestOneInput and what it calls)")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		return nil, errors.New("c harness: gcc is not installed (Debian package gcc)")
	}
	p, err := cPlan(h)
	if err != nil {
		return nil, err
	}
	key, err := p.key(ctx)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cacheDir, "c-"+key)
	bin := &Binary{Path: filepath.Join(dir, "harness"), Args: []string{filepath.Join(dir, "harness.funcs")}}
	if ok, err := cachedEntry(dir); err != nil {
		return nil, err
	} else if ok {
		bin.Cached = true
		return bin, nil
	}
	if !doBuild {
		return nil, nil
	}
	if err := buildDir(cacheDir, dir, func(tmp string) error { return p.build(ctx, tmp) }); err != nil {
		return nil, err
	}
	return bin, nil
}

// cBuild is what a C harness build reads, with paths made absolute.
type cBuild struct {
	h       HarnessTarget
	sources []string
	covered []bool // per source: compiled with the entry hooks
	cover   []string
	root    string
	flags   []string
	main    string // the harness's source, while it is built
	// base is where gcc runs, so that relative paths in flags mean what
	// they would to the user: the target's Dir.
	base string
}

func cPlan(h HarnessTarget) (*cBuild, error) {
	base := h.Dir
	if base == "" {
		base = "."
	}
	base, err := filepath.Abs(base)
	if err != nil {
		return nil, err
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(base, p)
	}
	p := &cBuild{h: h, flags: slices.Concat(cDefaultFlags, h.Flags), base: base}
	for _, s := range h.Sources {
		s = abs(s)
		if info, err := os.Stat(s); err != nil {
			return nil, fmt.Errorf("c harness: source %w", err)
		} else if info.IsDir() {
			return nil, fmt.Errorf("c harness: source %s is a directory; name the .c files", s)
		}
		p.sources = append(p.sources, s)
	}
	for _, c := range h.Cover {
		p.cover = append(p.cover, abs(c))
	}
	if len(p.cover) == 0 {
		p.cover = p.sources
	}
	for _, s := range p.sources {
		p.covered = append(p.covered, p.covers(s))
	}
	if !slices.Contains(p.covered, true) {
		return nil, fmt.Errorf("c harness: none of the sources is under %s", strings.Join(p.cover, ", "))
	}
	p.root = filepath.Dir(p.sources[0])
	if h.Root != "" {
		p.root = abs(h.Root)
	}
	return p, nil
}

// covers reports whether a file is one of the covered sources or under
// a covered directory.
func (p *cBuild) covers(file string) bool {
	for _, c := range p.cover {
		if file == c || strings.HasPrefix(file, c+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// key hashes everything the build reads: the compiler's version, the
// harness, the flags, and every source and non-system header by content
// (gcc -MM lists the headers).
func (p *cBuild) key(ctx context.Context) (string, error) {
	h := sha256.New()
	version, err := exec.CommandContext(ctx, "gcc", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("c harness: gcc --version: %w", err)
	}
	fmt.Fprintf(h, "%d\n%s\n%q\n%q\n%v\n%s\n%s\n", cRecipe, version, p.flags, p.cover, p.covered, p.root, p.base)
	h.Write(cHarness)
	files := slices.Clone(p.sources)
	args := append([]string{"-MM"}, p.flags...)
	cmd := exec.CommandContext(ctx, "gcc", append(args, p.sources...)...)
	cmd.Dir = p.base
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("c harness: %s", cMessage(stderr.String(), err))
	}
	for _, w := range strings.Fields(strings.ReplaceAll(string(out), "\\\n", " ")) {
		if !strings.HasSuffix(w, ":") && w != "\\" {
			if !filepath.IsAbs(w) {
				w = filepath.Join(p.base, w)
			}
			files = append(files, w)
		}
	}
	slices.Sort(files)
	for _, f := range slices.Compact(files) {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("c harness: %w", err)
		}
		fmt.Fprintf(h, "%s %x\n", f, sha256.Sum256(b))
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// build compiles and links the harness in dir and writes its table.
func (p *cBuild) build(ctx context.Context, dir string) error {
	main := filepath.Join(dir, "arbor_harness.c")
	p.main = main
	if err := os.WriteFile(main, cHarness, 0o644); err != nil {
		return err
	}
	var objects []string
	compile := func(src string, instrument bool, flags []string) error {
		obj := filepath.Join(dir, fmt.Sprintf("%d_%s.o", len(objects), strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))))
		args := append([]string{"-c", "-o", obj}, flags...)
		if instrument {
			// Identical code folding would give two functions one address.
			args = append(args, "-finstrument-functions", "-fno-ipa-icf")
		}
		if err := cRun(ctx, p.base, append(args, src)...); err != nil {
			return fmt.Errorf("c harness: compile %s: %w", src, err)
		}
		objects = append(objects, obj)
		return nil
	}
	if err := compile(main, false, []string{"-O2", "-g"}); err != nil {
		return err
	}
	for i, src := range p.sources {
		if err := compile(src, p.covered[i], p.flags); err != nil {
			return err
		}
	}
	bin := filepath.Join(dir, "harness")
	args := append([]string{"-o", bin}, objects...)
	args = append(args, p.flags...)
	if err := cRun(ctx, p.base, append(args, "-pthread", "-ldl", "-lm")...); err != nil {
		if strings.Contains(err.Error(), "LLVMFuzzerTestOneInput") {
			return fmt.Errorf("c harness: the sources (%s) must define int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size): %w", strings.Join(p.h.Sources, ", "), err)
		}
		return fmt.Errorf("c harness: link: %w", err)
	}
	table, n, err := p.table(bin)
	if err != nil {
		return fmt.Errorf("c harness: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("c harness: no functions of %s are in the binary", strings.Join(p.cover, ", "))
	}
	for _, o := range append(objects, main) {
		os.Remove(o)
	}
	return os.WriteFile(filepath.Join(dir, "harness.funcs"), table, 0o644)
}

func cRun(ctx context.Context, dir string, args ...string) error {
	cmd := procgroup.Command(ctx, "gcc", args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errors.New(cMessage(out.String(), err))
	}
	return nil
}

func cMessage(out string, err error) string {
	if out = strings.TrimSpace(out); out != "" {
		return out
	}
	return err.Error()
}

// cFunc is a function of a built harness.
type cFunc struct {
	name string // file:func, or the symbol
	off  uint64 // from the anchor
	size uint64
	id   int // -1: not recorded
}

// table reads the binary's symbols and debug information and writes the
// harness's function table (see harnesses/c/harness.c): the recorded
// functions' names, then every function with its offset and size. It
// returns the number of recorded functions.
//
// A function is recorded if it was compiled from a covered source and
// declared in a covered file or under the root (a header of the
// library's own, not a system header). Names follow the gcov adapter's:
// the declaring file relative to the root, a colon, the function. Every
// function the debug information defines is named, even those with no
// code of their own (inlined everywhere, or dropped), as gcov names
// every function it instruments.
func (p *cBuild) table(bin string) ([]byte, int, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: symbols: %w", bin, err)
	}
	d, err := f.DWARF()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: debug information (is -g0 among the flags?): %w", bin, err)
	}
	byPC, recorded, err := p.debugFunctions(d)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: debug information: %w", bin, err)
	}
	var anchor uint64
	found := false
	for _, s := range syms {
		if s.Name == "arbor_anchor" && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			anchor, found = s.Value, true
		}
	}
	if !found {
		return nil, 0, fmt.Errorf("%s: no arbor_anchor symbol", bin)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range recorded {
			if !yield(n) {
				return
			}
		}
	})
	funcs := cFunctions(syms, anchor, byPC, names)
	var b bytes.Buffer
	fmt.Fprintf(&b, "names %d\n", len(names))
	for _, n := range names {
		b.WriteString(n + "\n")
	}
	fmt.Fprintf(&b, "funcs %d\n", len(funcs))
	for _, fn := range funcs {
		b.WriteString(strconv.FormatUint(fn.off, 16) + " " + strconv.FormatUint(fn.size, 16) + " " + strconv.Itoa(fn.id) + " " + fn.name + "\n")
	}
	return b.Bytes(), len(names), nil
}

// cWhere is where the debug information says a function is declared.
type cWhere struct{ file, name string }

// debugFunctions reads the functions the debug information defines: by
// the address of their code, where each is declared, and the qualified
// names of those recorded.
func (p *cBuild) debugFunctions(d *dwarf.Data) (byPC map[uint64]cWhere, recorded map[string]bool, err error) {
	byPC = map[uint64]cWhere{}
	recorded = map[string]bool{}
	r := d.Reader()
	var files []*dwarf.LineFile
	cuCovered := false
	// Abstract instances (inlined functions) carry the name and file; the
	// concrete ones point to them.
	abstract := map[dwarf.Offset]cWhere{}
	var pending []struct {
		origin dwarf.Offset
		pc     uint64
	}
	for {
		e, err := r.Next()
		if err != nil {
			return nil, nil, err
		}
		if e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagCompileUnit:
			files, cuCovered = p.compileUnit(d, e)
			continue
		case dwarf.TagSubprogram:
		default:
			continue
		}
		if decl, _ := e.Val(dwarf.AttrDeclaration).(bool); decl {
			continue
		}
		pc, hasPC := e.Val(dwarf.AttrLowpc).(uint64)
		if origin, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok {
			if hasPC {
				pending = append(pending, struct {
					origin dwarf.Offset
					pc     uint64
				}{origin, pc})
			}
			continue
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		idx, ok := e.Val(dwarf.AttrDeclFile).(int64)
		if name == "" || !ok || idx < 0 || int(idx) >= len(files) || files[idx] == nil {
			continue
		}
		file := filepath.Clean(files[idx].Name)
		w := cWhere{p.relative(file), name}
		if file == p.main {
			// The harness's own frames, which crash reports skip.
			w = cWhere{"", "arbor_" + name}
		}
		abstract[e.Offset] = w
		if hasPC {
			byPC[pc] = w
		}
		if cuCovered && (p.covers(file) || p.under(file)) {
			recorded[report.QualifiedName(w.file, w.name)] = true
		}
	}
	for _, c := range pending {
		if w, ok := abstract[c.origin]; ok {
			byPC[c.pc] = w
		}
	}
	return byPC, recorded, nil
}

// compileUnit returns a compile unit's files, which its functions'
// declaring files index, and whether it was compiled from a covered
// source.
func (p *cBuild) compileUnit(d *dwarf.Data, e *dwarf.Entry) (files []*dwarf.LineFile, covered bool) {
	if lr, err := d.LineReader(e); err == nil && lr != nil {
		files = lr.Files()
	}
	if name, ok := e.Val(dwarf.AttrName).(string); ok {
		if !filepath.IsAbs(name) {
			if cd, ok := e.Val(dwarf.AttrCompDir).(string); ok {
				name = filepath.Join(cd, name)
			}
		}
		covered = p.covers(filepath.Clean(name))
	}
	return files, covered
}

// cFunctions lists the binary's functions by offset from the anchor,
// each named as the debug information declares it (byPC) or else by its
// symbol, with its index in names if it is recorded.
func cFunctions(syms []elf.Symbol, anchor uint64, byPC map[uint64]cWhere, names []string) []cFunc {
	ids := make(map[string]int, len(names))
	for i, n := range names {
		ids[n] = i
	}
	var funcs []cFunc
	seen := map[uint64]bool{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value == 0 || seen[s.Value] {
			continue
		}
		seen[s.Value] = true
		fn := cFunc{name: s.Name, off: s.Value - anchor, size: s.Size, id: -1}
		if w, ok := byPC[s.Value]; ok {
			fn.name = report.QualifiedName(w.file, w.name)
			if id, ok := ids[fn.name]; ok {
				fn.id = id
			} else if path.IsAbs(w.file) {
				// Only crash frames name it: without the folder, which
				// differs between machines, so that a crash hashes alike.
				fn.name = report.QualifiedName(path.Base(w.file), w.name)
			}
		}
		funcs = append(funcs, fn)
	}
	slices.SortFunc(funcs, func(a, b cFunc) int {
		if a.off < b.off {
			return -1
		}
		if a.off > b.off {
			return 1
		}
		return 0
	})
	return funcs
}

// relative is a source path as names give it: relative to the root when
// under it, slash-separated, as the gcov adapter's Relative makes it.
func (p *cBuild) relative(file string) string {
	if r, err := filepath.Rel(p.root, file); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(file)
}

func (p *cBuild) under(file string) bool {
	r, err := filepath.Rel(p.root, file)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
