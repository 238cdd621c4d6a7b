package coverage

import (
	"sort"
	"strings"
)

// Functions names a program's instrumented functions and maps counter
// data to them. Closures fold into their enclosing function, so
// "encoding/json.(*decodeState).object.func1" counts as
// "encoding/json.(*decodeState).object".
type Functions struct {
	Names  []string  // "importpath.Func", sorted
	index  [][]int32 // [package][function] -> index into Names, or -1
	blocks [][]int32 // [package][function] -> id of its first block, or -1
	Blocks int       // coverable units (basic blocks) of the included packages
}

// NewFunctions builds the table for the packages include accepts.
func NewFunctions(m *Meta, include func(pkgPath string) bool) *Functions {
	ids := map[string]int32{}
	var names []string
	for _, p := range m.Packages {
		if !include(p.Path) {
			continue
		}
		for _, f := range p.Funcs {
			name := p.Path + "." + funcName(f.Name)
			if _, ok := ids[name]; !ok {
				ids[name] = 0
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	for i, n := range names {
		ids[n] = int32(i)
	}
	fs := &Functions{Names: names, index: make([][]int32, len(m.Packages)), blocks: make([][]int32, len(m.Packages))}
	for pi, p := range m.Packages {
		fs.index[pi] = make([]int32, len(p.Funcs))
		fs.blocks[pi] = make([]int32, len(p.Funcs))
		for fi, f := range p.Funcs {
			fs.index[pi][fi], fs.blocks[pi][fi] = -1, -1
			if include(p.Path) {
				fs.index[pi][fi] = ids[p.Path+"."+funcName(f.Name)]
				fs.blocks[pi][fi] = int32(fs.Blocks)
				fs.Blocks += len(f.Units)
			}
		}
	}
	return fs
}

// ID returns the function a counter payload belongs to, or -1.
func (fs *Functions) ID(pkg, fn uint32) int {
	if int(pkg) >= len(fs.index) || int(fn) >= len(fs.index[pkg]) {
		return -1
	}
	return int(fs.index[pkg][fn])
}

// funcName is the name a function is listed under: closures folded into
// their enclosing function, and methods with pointer receivers written
// as Go writes them elsewhere: (*decodeState).object, not *decodeState.object.
func funcName(metaName string) string {
	name := enclosing(metaName)
	if rest, ok := strings.CutPrefix(name, "*"); ok {
		if recv, method, ok := strings.Cut(rest, "."); ok {
			return "(*" + recv + ")." + method
		}
	}
	return name
}

// Block returns the id of a function's unit-th block, or -1.
func (fs *Functions) Block(pkg, fn uint32, unit int) int {
	if int(pkg) >= len(fs.blocks) || int(fn) >= len(fs.blocks[pkg]) || fs.blocks[pkg][fn] < 0 {
		return -1
	}
	return int(fs.blocks[pkg][fn]) + unit
}

// enclosing strips closure suffixes: "F.func1.2" -> "F", "glob..func3" -> "glob.".
func enclosing(name string) string {
	for i := 0; i+5 < len(name); i++ {
		if name[i] == '.' && strings.HasPrefix(name[i+1:], "func") && name[i+5] >= '0' && name[i+5] <= '9' {
			return name[:i]
		}
	}
	return name
}
