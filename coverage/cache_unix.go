//go:build unix

package coverage

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ownedBy says what is wrong with path, of info fi, as a place arbor
// runs things from, or "" if nothing: with self, it must be the current
// user's and writable by no one else; otherwise (a folder above, or a
// symbolic link on the way) the user's or root's, and writable by
// others only with the sticky bit.
func ownedBy(path string, fi fs.FileInfo, self bool) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	uid := uint32(os.Getuid())
	switch {
	case self && st.Uid != uid:
		return fmt.Sprintf("%s belongs to uid %d, not to you (uid %d)", ShowName(path), st.Uid, uid)
	case !self && st.Uid != uid && st.Uid != 0:
		return fmt.Sprintf("%s, on the way to it, belongs to uid %d, neither to you (uid %d) nor to root", ShowName(path), st.Uid, uid)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "" // a link's own mode means nothing
	case fi.Mode().Perm()&0o022 != 0 && (self || fi.Mode()&fs.ModeSticky == 0):
		return fmt.Sprintf("%s can be written by others (mode %04o)", ShowName(path), fi.Mode().Perm())
	}
	return ""
}
