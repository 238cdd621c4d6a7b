//go:build linux

package proctest_test

import (
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/arbor-fuzz/arbor/internal/proctest"
)

func Example() {
	mark := proctest.NewMark()
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), mark)
	if err := cmd.Start(); err != nil {
		fmt.Println(err)
		return
	}
	// Until the child has called exec, /proc shows the parent's environment.
	for i := 0; i < 200 && len(proctest.Marked(mark)) == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("running:", len(proctest.Marked(mark)))
	cmd.Process.Kill()
	cmd.Wait()
	fmt.Println("left:", len(proctest.WaitGone(mark, time.Second)))
	// Output:
	// running: 1
	// left: 0
}
