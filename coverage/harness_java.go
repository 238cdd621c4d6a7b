package coverage

import (
	"context"
	"errors"
)

// buildJava builds the java harness. (Being written.)
func buildJava(ctx context.Context, h HarnessTarget, cacheDir string, doBuild bool) (*Binary, error) {
	return nil, errors.New("java harnesses are not built yet")
}
