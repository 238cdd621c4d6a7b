package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-fuzz/arbor/internal/testenv"
)

func tarGz(t testing.TB, files map[string]string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for name, text := range files {
		h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(text)), Typeflag: tar.TypeReg}
		if strings.HasSuffix(name, "/") {
			h = &tar.Header{Name: name, Mode: 0o755, Typeflag: tar.TypeDir}
		} else if strings.HasPrefix(text, "->") {
			h = &tar.Header{Name: name, Linkname: text[2:], Typeflag: tar.TypeSymlink}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(text))
		}
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

func TestUnpack(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  map[string]string // files that must exist, with their text
		error string
	}{
		{name: "upstream", files: map[string]string{"lib-1.0/": "", "lib-1.0/lib.c": "int x;", "lib-1.0/sub/a.h": "#define A"},
			want: map[string]string{"lib-1.0/lib.c": "int x;", "lib-1.0/sub/a.h": "#define A"}},
		{name: "dot slash", files: map[string]string{"./lib/x.c": "x"}, want: map[string]string{"lib/x.c": "x"}},
		{name: "escape", files: map[string]string{"../evil.c": "x"}, error: "outside"},
		{name: "absolute", files: map[string]string{"/etc/evil": "x"}, error: "outside"},
		{name: "link left out", files: map[string]string{"lib/x.c": "x", "lib/link": "->/etc/passwd"}, want: map[string]string{"lib/x.c": "x"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			err := unpack(bytes.NewReader(tarGz(t, tt.files)), "x.tar.gz", dir)
			if tt.error != "" {
				if err == nil || !strings.Contains(err.Error(), tt.error) {
					t.Fatalf("error %v, want %q", err, tt.error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for name, text := range tt.want {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil || string(b) != text {
					t.Errorf("%s: %q, %v; want %q", name, b, err, text)
				}
			}
			if _, err := os.Lstat(filepath.Join(dir, "lib", "link")); err == nil {
				t.Error("a symbolic link was unpacked")
			}
		})
	}
	if err := unpack(bytes.NewReader(nil), "x.tar.xz", t.TempDir()); err == nil || !strings.Contains(err.Error(), ".tar.gz") {
		t.Errorf("xz tarball: %v, want an error naming what is read", err)
	}
}

// FuzzUnpack feeds unpack damaged and hostile archives: it must fail
// cleanly and never write outside its folder.
func FuzzUnpack(f *testing.F) {
	f.Add(tarGz(f, map[string]string{"a/b.c": "x", "a/": ""}))
	f.Add(tarGz(f, map[string]string{"../x": "x"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "in")
		unpack(bytes.NewReader(b), "x.tar.gz", dir)
		entries, _ := os.ReadDir(parent)
		if len(entries) > 1 {
			t.Fatalf("unpack wrote beside its folder: %v", entries)
		}
	})
}

func TestMirror(t *testing.T) {
	deb822 := `Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main

Types: deb
URIs: http://security.example/debian-security
Suites: bookworm-security
`
	if got := mirrorDeb822(deb822, "bookworm"); got != "http://mirror.example/debian" {
		t.Errorf("deb822: %q", got)
	}
	if got := mirrorDeb822(deb822, "trixie"); got != "" {
		t.Errorf("deb822 for another release: %q", got)
	}
	oneLine := "# deb http://old.example/debian bookworm main\ndeb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main\n"
	if got := mirrorOneLine(oneLine, "bookworm"); got != "http://mirror.example/debian" {
		t.Errorf("one-line: %q", got)
	}
}

// TestDebianSource fetches cJSON's source package: it needs apt-get, a
// Debian release that has it, and the network (or an earlier fetch in
// the cache).
func TestDebianSource(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches a Debian source package")
	}
	testenv.NeedTool(t, "apt-get", "a Debian system (package apt)")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := DebianSource(ctx, "cjson")
	if err != nil {
		testenv.Missing(t, "Debian's cjson source, which could not be fetched ("+err.Error()+")", "apt-get and the network, or an earlier fetch")
	}
	for _, f := range []string{"cJSON.c", "cJSON.h", "cJSON_Utils.c"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	again, err := DebianSource(ctx, "cjson")
	if err != nil || again != dir {
		t.Errorf("second fetch: %q, %v; want %q from the cache", again, err, dir)
	}
	if _, err := DebianSource(ctx, "../x"); err == nil {
		t.Error("a name with a slash was taken")
	}
}
