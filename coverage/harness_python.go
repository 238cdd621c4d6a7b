package coverage

import (
	"context"
	"errors"
)

// buildPython builds the python harness. (Being written.)
func buildPython(ctx context.Context, h HarnessTarget, cacheDir string, doBuild bool) (*Binary, error) {
	return nil, errors.New("python harnesses are not built yet")
}
