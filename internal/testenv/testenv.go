// Package testenv lets a test that needs an optional tool (a JDK, gcc,
// lcov, coverage.py, JaCoCo's jars, a Debian source package) skip with a
// message naming what is missing and how to install it, modelled on the
// Go distribution's internal/testenv.
//
// A skip hides what was not tested. So where every tool is meant to be
// there, as in CI after it installs them (.ci/run), the environment
// variable ARBOR_REQUIRE_ALL=1 turns each such skip into a failure:
//
//	func TestLcov(t *testing.T) {
//		testenv.NeedTool(t, "lcov", "apt-get install lcov")
//		...
//	}
//
// Skips for other reasons (-short, a measurement run only on request)
// are not this package's business: they stay skips.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// RequireAll is the environment variable that, set to 1 (or any value
// strconv.ParseBool reads as true), makes a missing tool fail the test
// instead of skipping it.
const RequireAll = "ARBOR_REQUIRE_ALL"

// Required reports whether RequireAll is set: every test must run.
func Required() bool {
	v, err := strconv.ParseBool(os.Getenv(RequireAll))
	return err == nil && v
}

// Missing stops t because what it needs is missing: what names it (and
// may say why it is missing), install says how to get it, such as
// "apt-get install lcov". It skips t, or fails it when RequireAll is set.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	msg := fmt.Sprintf("needs %s (install: %s)", what, install)
	if Required() {
		t.Fatal(msg + "; " + RequireAll + " is set, so a missing tool is a failure")
		return
	}
	t.Skip(msg)
}

// NeedTool returns the path of the command tool on PATH, found as
// exec.Command finds it, or stops t with Missing ("" is returned only
// to a t whose Skip and Fatal return).
func NeedTool(t testing.TB, tool, install string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		Missing(t, tool+", which is not on PATH", install)
		return ""
	}
	return p
}

// NeedFile returns path if a file or folder is there, or stops t with
// Missing.
func NeedFile(t testing.TB, path, install string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, fmt.Sprintf("%s (%v)", path, err), install)
		return ""
	}
	return path
}
