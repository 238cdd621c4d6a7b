package coverage

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// supervisorReport is what a supervisor said on its status pipe.
type supervisorReport struct {
	exited bool // the subject's process exited with code
	code   int
	signal syscall.Signal // or was killed by it
	parent string         // a signal the supervisor got, by name
}

// readSupervisorReport reads the status pipe of a supervisor that has
// exited, and closes it.
func readSupervisorReport(f *os.File) supervisorReport {
	var rep supervisorReport
	if f == nil {
		return rep
	}
	defer f.Close()
	f.SetReadDeadline(time.Now().Add(time.Second))
	sc := bufio.NewScanner(io.LimitReader(f, 4096))
	for sc.Scan() {
		word, arg, _ := strings.Cut(sc.Text(), " ")
		n, _ := strconv.Atoi(arg)
		switch word {
		case "exit":
			rep.exited, rep.code = true, n
		case "signal":
			rep.signal = syscall.Signal(n)
		case "parent":
			if rep.parent == "" {
				rep.parent = arg
			}
		}
	}
	return rep
}

// text describes how the subject's process ended, as an exec error
// would, or "" if the report does not say.
func (rep supervisorReport) text() string {
	switch {
	case rep.signal != 0:
		return "signal: " + rep.signal.String()
	case rep.exited:
		return "exit status " + strconv.Itoa(rep.code)
	}
	return ""
}

// parentNote is the message of an input during which the subject
// signalled its parent.
func (rep supervisorReport) parentNote() string {
	return fmt.Sprintf("the subject sent %s to its parent process (arbor's supervisor)", rep.parent)
}
