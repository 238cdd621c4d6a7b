//go:build !unix

package subject

import (
	"errors"
)

func limitMemory([]string, int64) ([]string, error) {
	return nil, errors.New("a memory limit for an oracle command needs a unix shell (ulimit -v); give a limit of 0")
}
