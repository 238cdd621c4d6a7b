package testenv_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/arbor-fuzz/arbor/internal/testenv"
)

// printer stands in for a test, printing how it would be stopped.
type printer struct{ testing.TB }

func (printer) Helper()           {}
func (printer) Skip(args ...any)  { fmt.Println("skip:", args[0]) }
func (printer) Fatal(args ...any) { fmt.Println("fail:", args[0]) }

// A test that needs lcov skips where it is missing, and fails there when
// ARBOR_REQUIRE_ALL=1 says every tool should be installed.
func ExampleNeedTool() {
	defer os.Setenv(testenv.RequireAll, os.Getenv(testenv.RequireAll))
	defer os.Setenv("PATH", os.Getenv("PATH"))
	os.Setenv("PATH", "")

	os.Setenv(testenv.RequireAll, "")
	testenv.NeedTool(printer{}, "lcov", "apt-get install lcov")
	os.Setenv(testenv.RequireAll, "1")
	testenv.NeedTool(printer{}, "lcov", "apt-get install lcov")
	// Output:
	// skip: needs lcov, which is not on PATH (install: apt-get install lcov)
	// fail: needs lcov, which is not on PATH (install: apt-get install lcov); ARBOR_REQUIRE_ALL is set, so a missing tool is a failure
}
