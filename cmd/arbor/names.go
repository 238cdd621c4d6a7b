package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage"
)

// A file name may hold any byte but / and NUL: an input named with an
// escape sequence, printed raw, rewrites the user's terminal (its title,
// its colours, what it shows), and one in invalid UTF-8 cannot be told
// from another. Commands print the names of inputs, corpora and files
// they were given through showName, and errors about an input through
// showInputError.

// showName is a file name as a command prints it: as it is if it is
// plain, else quoted as a Go string (coverage.ShowName, the form the
// coverage package's messages use too).
func showName(name string) string { return coverage.ShowName(name) }

// showInputError is the message of err, an error about the input file,
// as a line safe to print: the file's name, wherever the message holds
// it (an *fs.PathError's, a parse error's position), as showName shows
// it, and any other character that is not printable escaped
// (coverage.ShowText), since messages made elsewhere may quote the input.
func showInputError(file string, err error) string {
	msg := err.Error()
	if shown := showName(file); shown != file && file != "" {
		msg = strings.ReplaceAll(msg, file, shown)
	}
	return coverage.ShowText(msg)
}

// readError is the error to stop with when err, from reading and
// parsing the input file, is a failure to read it (the file system's
// error) rather than the input's fault: it names the file. It is nil
// for any other error.
func readError(file string, err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return nil
	}
	return errors.New(showInputError(file, fmt.Errorf("cannot read input %s: %w", file, pe.Err)))
}
