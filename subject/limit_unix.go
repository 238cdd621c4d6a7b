//go:build unix

package subject

import "strconv"

// limitMemory returns argv run under a limit of bytes of virtual memory
// (RLIMIT_AS, in KiB through the shell's ulimit -v, which every POSIX
// shell has; the limit is inherited by everything the command starts).
// A limit the shell cannot set is one already lower: the command then
// runs under that.
func limitMemory(argv []string, bytes int64) ([]string, error) {
	kib := max(bytes/1024, 1)
	return append([]string{"sh", "-c", `ulimit -v "$1" 2>/dev/null; shift; exec "$@"`, "sh", strconv.FormatInt(kib, 10)}, argv...), nil
}
