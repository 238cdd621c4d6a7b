package datasets

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/coverage"
)

// DebianSource fetches the source package pkg of the system's Debian
// release with apt-get and returns the folder of its unpacked upstream
// tarball (the .orig.tar.gz; Debian's own patches are not applied). The
// result is kept under the user's cache folder (arbor/sources), keyed by
// package and version, and reused; the package index apt-get reads is
// kept there too and refreshed once a day, so that a cached package is
// found offline.
//
// Nothing of the system's apt state is touched: the index is private
// (deb-src lines for the system's release, on the mirror the system's
// apt sources name), and no package is installed.
func DebianSource(ctx context.Context, pkg string) (string, error) {
	if !debName.MatchString(pkg) {
		return "", fmt.Errorf("%q is not a Debian source package name", pkg)
	}
	cache, err := coverage.CacheRoot()
	if err != nil {
		return "", fmt.Errorf("debian source %s: %w", pkg, err)
	}
	// The sources are compiled into a harness and run: their folder must
	// be the user's alone.
	root := filepath.Join(cache, "sources")
	if err := coverage.PrivateDir(root); err != nil {
		return "", fmt.Errorf("debian source %s: %w", pkg, err)
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		if dir, ok := cachedSource(root, pkg); ok {
			return dir, nil
		}
		return "", fmt.Errorf("debian source %s: apt-get is not installed (Debian package apt); fetching source packages needs a Debian system", pkg)
	}
	apt, err := newAptIndex(filepath.Join(root, "apt"))
	if err != nil {
		if dir, ok := cachedSource(root, pkg); ok {
			return dir, nil
		}
		return "", fmt.Errorf("debian source %s: %w", pkg, err)
	}
	if err := apt.update(ctx); err != nil {
		if dir, ok := cachedSource(root, pkg); ok {
			return dir, nil
		}
		return "", fmt.Errorf("debian source %s: %w", pkg, err)
	}
	version, err := apt.version(ctx, pkg)
	if err != nil {
		if dir, ok := cachedSource(root, pkg); ok {
			return dir, nil
		}
		return "", fmt.Errorf("debian source %s: %w", pkg, err)
	}
	final := filepath.Join(root, pkg+"_"+strings.ReplaceAll(version, ":", "%3a"))
	if dir, err := sourceTop(final); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(root, ".tmp-"+pkg+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	download := filepath.Join(tmp, "download")
	os.Mkdir(download, 0o755)
	if out, err := apt.run(ctx, download, "apt-get", "source", "--download-only", "-qq", pkg+"="+version); err != nil {
		return "", fmt.Errorf("debian source %s %s: apt-get source: %s", pkg, version, out)
	}
	tarball, err := upstreamTarball(download)
	if err != nil {
		return "", fmt.Errorf("debian source %s %s: %w", pkg, version, err)
	}
	f, err := os.Open(tarball)
	if err != nil {
		return "", err
	}
	defer f.Close()
	unpacked := filepath.Join(tmp, "src")
	if err := unpack(f, filepath.Base(tarball), unpacked); err != nil {
		return "", fmt.Errorf("debian source %s %s: %w", pkg, version, err)
	}
	if err := os.Rename(unpacked, final); err != nil {
		// Another process unpacked it meanwhile.
		if dir, err := sourceTop(final); err == nil {
			return dir, nil
		}
		return "", err
	}
	return sourceTop(final)
}

var debName = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`)

// cachedSource is the newest unpacked version of pkg in root, for when
// the index cannot be read or refreshed (offline, no apt-get).
func cachedSource(root, pkg string) (string, bool) {
	matches, _ := filepath.Glob(filepath.Join(root, pkg+"_*"))
	var best string
	var bestTime time.Time
	for _, m := range matches {
		if info, err := os.Stat(m); err == nil && info.IsDir() && info.ModTime().After(bestTime) {
			best, bestTime = m, info.ModTime()
		}
	}
	if best == "" {
		return "", false
	}
	dir, err := sourceTop(best)
	return dir, err == nil
}

// sourceTop is the folder an unpacked tarball's files are in: its single
// top-level folder, as upstream tarballs have, or the folder itself.
func sourceTop(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	if len(entries) == 1 && entries[0].IsDir() {
		return filepath.Join(dir, entries[0].Name()), nil
	}
	return dir, nil
}

// upstreamTarball finds the upstream tarball among what apt-get source
// downloaded: pkg_version.orig.tar.*, or for a native package
// pkg_version.tar.*.
func upstreamTarball(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var native, found string
	for _, e := range entries {
		n := e.Name()
		switch {
		case strings.Contains(n, ".orig.tar.") && !strings.HasSuffix(n, ".asc"):
			found = n
		case strings.Contains(n, ".tar.") && !strings.Contains(n, ".debian.tar.") && !strings.Contains(n, ".orig-") && !strings.HasSuffix(n, ".asc"):
			native = n
		}
	}
	if found == "" {
		found = native
	}
	if found == "" {
		return "", errors.New("apt-get source downloaded no upstream tarball")
	}
	return filepath.Join(dir, found), nil
}

// maxUnpacked bounds what unpack writes, against a tarball that would
// fill the disk.
const maxUnpacked = 1 << 30

// unpack extracts a tar archive, compressed as its name says (.gz, .bz2
// or none; Go's standard library reads no xz), into dir: regular files
// and folders only, each inside dir.
func unpack(r io.Reader, name, dir string) error {
	switch {
	case strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".tgz"):
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer zr.Close()
		r = zr
	case strings.HasSuffix(name, ".bz2"):
		r = bzip2.NewReader(r)
	case strings.HasSuffix(name, ".tar"):
	default:
		return fmt.Errorf("%s: arbor reads .tar.gz and .tar.bz2 tarballs, not this one", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tr := tar.NewReader(r)
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		clean := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if clean == "." || !fs.ValidPath(clean) {
			if clean == "." {
				continue
			}
			return fmt.Errorf("%s: %q lies outside the archive's folder", name, h.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(clean))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if h.Size < 0 || total > maxUnpacked {
				return fmt.Errorf("%s: more than %d bytes unpacked", name, maxUnpacked)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, io.LimitReader(tr, h.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%s: %s: %w", name, h.Name, err)
			}
		}
		// Links and devices are left out: sources to compile need none
		// of them, and a link could point outside dir.
	}
}

// aptIndex is a private apt index of the system's release's source
// packages.
type aptIndex struct {
	dir  string
	opts []string
}

func newAptIndex(dir string) (*aptIndex, error) {
	suite, err := osCodename()
	if err != nil {
		return nil, err
	}
	mirror, err := aptMirror(suite)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{"lists/partial", "cache/archives/partial"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	list := filepath.Join(dir, "sources.list")
	line := fmt.Sprintf("deb-src %s %s main\n", mirror, suite)
	if old, err := os.ReadFile(list); err != nil || string(old) != line {
		if err := os.WriteFile(list, []byte(line), 0o644); err != nil {
			return nil, err
		}
		os.Remove(filepath.Join(dir, "updated"))
	}
	return &aptIndex{dir: dir, opts: []string{
		"-o", "Dir::Etc::sourcelist=" + list,
		"-o", "Dir::Etc::sourceparts=-",
		"-o", "Dir::State::Lists=" + filepath.Join(dir, "lists"),
		"-o", "Dir::Cache=" + filepath.Join(dir, "cache"),
	}}, nil
}

// update refreshes the index if it is more than a day old.
func (a *aptIndex) update(ctx context.Context) error {
	stamp := filepath.Join(a.dir, "updated")
	if info, err := os.Stat(stamp); err == nil && time.Since(info.ModTime()) < 24*time.Hour {
		return nil
	}
	if out, err := a.run(ctx, a.dir, "apt-get", "update", "-qq"); err != nil {
		return fmt.Errorf("apt-get update (offline?): %s", out)
	}
	return os.WriteFile(stamp, nil, 0o644)
}

// version is the version of source package pkg the index has (the
// newest, if it has several).
func (a *aptIndex) version(ctx context.Context, pkg string) (string, error) {
	out, err := a.run(ctx, a.dir, "apt-cache", "showsrc", "--only-source", pkg)
	if err != nil {
		return "", fmt.Errorf("apt-cache showsrc: %s", out)
	}
	best := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Version: "); ok && best == "" {
			best = strings.TrimSpace(v)
		}
	}
	if best == "" {
		return "", fmt.Errorf("no source package %s in the release's index", pkg)
	}
	return best, nil
}

func (a *aptIndex) run(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, append(args, a.opts...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	text := strings.TrimSpace(out.String())
	if err != nil && text == "" {
		text = err.Error()
	}
	return text, err
}

// osCodename is the release's code name from /etc/os-release.
func osCodename() (string, error) {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return "", fmt.Errorf("not a Debian system? %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VERSION_CODENAME="); ok {
			if v = strings.Trim(v, `"'`); v != "" {
				return v, nil
			}
		}
	}
	return "", errors.New("/etc/os-release names no VERSION_CODENAME")
}

// aptMirror is the mirror the system's apt sources fetch the release
// from: the URI of a deb entry for suite, in deb822 files
// (sources.list.d/*.sources) or one-line ones (sources.list and
// sources.list.d/*.list).
func aptMirror(suite string) (string, error) {
	files, _ := filepath.Glob("/etc/apt/sources.list.d/*.sources")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if m := mirrorDeb822(string(b), suite); m != "" {
			return m, nil
		}
	}
	lists, _ := filepath.Glob("/etc/apt/sources.list.d/*.list")
	for _, f := range append([]string{"/etc/apt/sources.list"}, lists...) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if m := mirrorOneLine(string(b), suite); m != "" {
			return m, nil
		}
	}
	return "", fmt.Errorf("the apt sources name no mirror of %s", suite)
}

// mirrorDeb822 finds the URI of a stanza of types deb or deb-src with
// suite among its suites.
func mirrorDeb822(text, suite string) string {
	for _, stanza := range strings.Split(text, "\n\n") {
		fields := map[string]string{}
		for _, line := range strings.Split(stanza, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, " ") {
				fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		if strings.EqualFold(fields["enabled"], "no") {
			continue
		}
		types, suites, uris := strings.Fields(fields["types"]), strings.Fields(fields["suites"]), strings.Fields(fields["uris"])
		if len(uris) > 0 && slices.Contains(suites, suite) && (slices.Contains(types, "deb") || slices.Contains(types, "deb-src")) {
			return uris[0]
		}
	}
	return ""
}

// mirrorOneLine finds the URI of a "deb [options] uri suite ..." line.
func mirrorOneLine(text, suite string) string {
	for _, line := range strings.Split(text, "\n") {
		w := strings.Fields(line)
		if len(w) < 3 || (w[0] != "deb" && w[0] != "deb-src") {
			continue
		}
		w = w[1:]
		if strings.HasPrefix(w[0], "[") {
			for len(w) > 0 && !strings.HasSuffix(w[0], "]") {
				w = w[1:]
			}
			if len(w) > 0 {
				w = w[1:]
			}
		}
		if len(w) >= 2 && w[1] == suite {
			return w[0]
		}
	}
	return ""
}
