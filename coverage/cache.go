package coverage

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The cache holds what arbor builds and later runs (harness binaries,
// compiled classes, the subjects module's sources), so whoever can write
// to it can make arbor run their code as the user. Hence: it lives only
// in the user's own cache folder, never in a shared one; arbor makes its
// folders readable by the user alone and checks, before running or
// using anything in them, that they are the user's and writable by no
// one else; and each finished build carries a manifest of its files'
// sha256 sums, written at build time and checked before use.

// CacheRoot is arbor's folder in the user's cache folder: arbor under
// $XDG_CACHE_HOME, else under $HOME/.cache (os.UserCacheDir). With
// neither set, as under cron or a service, it is a folder of the user's
// own in the temporary folder, arbor-UID (CacheTemporary says so): made
// 0700 and checked by PrivateDir like any other, so that one another
// user made first (to plant what arbor would run) is refused, never
// used.
func CacheRoot() (string, error) {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "arbor"), nil
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("arbor-%d", os.Getuid())), nil
}

// CacheTemporary reports whether CacheRoot is in the temporary folder
// (there is no user cache folder), where what arbor built may be
// removed when the system cleans it, and builds then happen again.
func CacheTemporary() bool {
	_, err := os.UserCacheDir()
	return err != nil
}

// DefaultCacheDir is where harness binaries are kept between runs:
// CacheRoot's harness folder.
func DefaultCacheDir() string {
	root, err := CacheRoot()
	if err != nil {
		return ""
	}
	return filepath.Join(root, "harness")
}

// openCache resolves the cache folder of a build ("" is the default) to
// an absolute path, made and checked by PrivateDir.
func openCache(cacheDir string) (string, error) {
	if cacheDir == "" {
		root, err := CacheRoot()
		if err != nil {
			return "", err
		}
		cacheDir = filepath.Join(root, "harness")
	}
	abs, err := filepath.Abs(cacheDir)
	if err != nil {
		return "", err
	}
	return abs, PrivateDir(abs)
}

// PrivateDir makes dir, with any missing parents, accessible to the
// current user alone (0700), and checks that it can hold what arbor
// runs: it must be the current user's folder, writable by no one else,
// and every folder above it (and every symbolic link on the way) must be
// the user's or root's, writable by no one else unless, like /tmp, it
// has the sticky bit, which keeps others from renaming what they do not
// own. The error names the folder that fails and what to do. Where the
// system keeps no owners (Windows), only the folder's existence is
// checked.
func PrivateDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return fmt.Errorf("cache folder: %w", shownPath(err))
	}
	return checkPrivate(abs)
}

// checkPrivate is PrivateDir's check of an existing folder.
func checkPrivate(dir string) error {
	fail := func(reason string) error {
		return fmt.Errorf("cache folder %s cannot be trusted: %s; arbor runs what it builds there, so it must be your own and writable by no one else: "+
			"remove it, or fix it (chown, chmod go-w), or set XDG_CACHE_HOME to a folder of your own", ShowName(dir), reason)
	}
	// Symbolic links on the path as written: whoever owns one can point
	// it elsewhere.
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			return fmt.Errorf("cache folder: %w", shownPath(err))
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if reason := ownedBy(p, fi, false); reason != "" {
				return fail(reason)
			}
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("cache folder: %w", shownPath(err))
	}
	fi, err := os.Lstat(real)
	if err != nil {
		return fmt.Errorf("cache folder: %w", shownPath(err))
	}
	if !fi.IsDir() {
		return fail(ShowName(real) + " is not a folder")
	}
	if reason := ownedBy(real, fi, true); reason != "" {
		return fail(reason)
	}
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("cache folder: %w", shownPath(err))
		}
		if reason := ownedBy(p, fi, false); reason != "" {
			return fail(reason)
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	return nil
}

// sealName is the manifest of a finished build's folder: the sha256 of
// every file in it, in the format of sha256sum, so that
// "sha256sum -c arbor.sha256" checks it too.
const sealName = "arbor.sha256"

// seal writes dir's manifest (sealName), under another name first and
// then renamed, so that a manifest is whole or absent.
func seal(dir string) error {
	sums, err := hashTree(dir)
	if err != nil {
		return fmt.Errorf("seal %s: %w", ShowName(dir), shownPath(err))
	}
	var b bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(sums)) {
		if strings.ContainsAny(name, "\n\\") {
			return fmt.Errorf("seal %s: file name %q", ShowName(dir), name)
		}
		fmt.Fprintf(&b, "%s  %s\n", sums[name], name)
	}
	tmp, err := os.CreateTemp(dir, tmpPrefix)
	if err != nil {
		return err
	}
	_, err = tmp.Write(b.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, sealName))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// hashTree is the sha256 of every regular file below dir but the
// manifest, by slash-separated path; anything else than files and
// folders (a symbolic link, a device) is an error.
func hashTree(dir string) (map[string]string, error) {
	sums := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == sealName {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", ShowName(rel))
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		sums[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	return sums, err
}

// errUnsealed is verifyEntry's answer for a folder without a manifest.
var errUnsealed = errors.New("it has no manifest (" + sealName + "), so it was not built by this version of arbor")

// verifyEntry checks a finished build's folder before anything in it is
// used: the folder passes checkPrivate, and its files are exactly those
// its manifest lists, with the same sha256 sums.
func verifyEntry(dir string) error {
	if err := checkPrivate(dir); err != nil {
		return err
	}
	text, err := os.ReadFile(filepath.Join(dir, sealName))
	if errors.Is(err, fs.ErrNotExist) {
		return errUnsealed
	} else if err != nil {
		return err
	}
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 2*sha256.Size {
			return fmt.Errorf("its manifest has a line %q", sc.Text())
		}
		want[name] = sum
	}
	got, err := hashTree(dir)
	if err != nil {
		return shownPath(err)
	}
	for name, sum := range got {
		switch w, ok := want[name]; {
		case !ok:
			return fmt.Errorf("%s is not in its manifest", ShowName(name))
		case w != sum:
			return fmt.Errorf("%s has changed since it was built (sha256 %s, built as %s)", ShowName(name), sum, ShowName(w))
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			return fmt.Errorf("%s, in its manifest, is missing", ShowName(name))
		}
	}
	return nil
}

// cachedEntry reports whether dir holds a finished build that can be
// used: false when there is none; an error, with nothing in it run, when
// the folder is not the user's own, was not built by this arbor, or its
// files are not those that were built.
func cachedEntry(dir string) (bool, error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err := verifyEntry(dir); err != nil {
		return false, fmt.Errorf("the cached build %s was not used: %w; remove the folder to build it again", ShowName(dir), err)
	}
	return true, nil
}
