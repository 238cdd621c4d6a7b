package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// seed adds the testdata reports matching pattern to f's corpus.
func seed(f *testing.F, pattern string) {
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// check holds what every parser promises of a report it accepts.
func check(t *testing.T, c *Coverage, err error) {
	if err != nil {
		return
	}
	if c == nil {
		t.Fatal("nil Coverage without an error")
	}
	for _, f := range c.Files {
		for i := 1; i < len(f.Lines); i++ {
			if f.Lines[i-1].Number >= f.Lines[i].Number {
				t.Fatalf("%s: lines out of order: %v", f.Path, f.Lines)
			}
		}
	}
	c.Covered()
	c.Relative("/src")
}

func FuzzParseLcov(f *testing.F) {
	seed(f, "*.info")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseLcov(bytes.NewReader(data), "fuzz")
		check(t, c, err)
	})
}

func FuzzParseGcovJSON(f *testing.F) {
	seed(f, "*.gcov.json*")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseGcovJSON(bytes.NewReader(data), "fuzz")
		check(t, c, err)
	})
}

func FuzzParseCoveragePy(f *testing.F) {
	seed(f, "py.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCoveragePy(bytes.NewReader(data), "fuzz")
		check(t, c, err)
		if err == nil {
			c.AssignLines(map[string][]Range{"pkg/mod.py": {{"f", 1, 2, 5}, {"f.g", 3, 4, 4}}})
		}
	})
}

func FuzzParseJaCoCo(f *testing.F) {
	seed(f, "*.xml")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseJaCoCo(bytes.NewReader(data), "fuzz")
		check(t, c, err)
	})
}

func FuzzParsePythonRanges(f *testing.F) {
	f.Add([]byte(`{"a.py": [["f", 1, 2, 3], ["C.g", 5, 6, 9]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parsePythonRanges(data)
		if err != nil {
			return
		}
		c := &Coverage{Files: []File{{Path: "a.py", Lines: []Line{{1, 1}, {2, 1}, {4, 1}, {7, 0}}}}}
		c.AssignLines(r)
	})
}
