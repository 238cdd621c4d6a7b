package coverage

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestWorkspace checks the go.work Workspace writes: the folders given,
// each once, and the uses and replacements of the workspace the folder
// is in, relative paths resolved against the workspace's folder.
func TestWorkspace(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"go.work":    "go 1.24\n\nuse ./app\n\nreplace example.com/x => ./x\n\nreplace example.com/y v1.0.0 => example.com/z v1.2.0\n",
		"app/go.mod": "module example.com/app\n\ngo 1.24\n",
		"x/go.mod":   "module example.com/x\n\ngo 1.24\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOWORK", "")
	harness := filepath.Join(root, "h")
	got, err := Workspace(context.Background(), filepath.Join(root, "app"), "1.24", harness, "", harness+string(filepath.Separator), filepath.Join(root, "app"))
	if err != nil {
		t.Fatal(err)
	}
	want := "go 1.24\n\n" +
		"use " + strconv.Quote(harness) + "\n" +
		"use " + strconv.Quote(filepath.Join(root, "app")) + "\n" +
		"replace \"example.com/x\" => " + strconv.Quote(filepath.Join(root, "x")) + "\n" +
		"replace \"example.com/y\" v1.0.0 => \"example.com/z\" v1.2.0\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	t.Setenv("GOWORK", "off")
	got, err = Workspace(context.Background(), filepath.Join(root, "app"), "1.24", harness)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "replace") || strings.Count(got, "use ") != 1 {
		t.Errorf("with GOWORK=off, got\n%s", got)
	}
}
