package coverage

import (
	"context"
	"errors"
)

// buildC builds the c harness. (Being written.)
func buildC(ctx context.Context, h HarnessTarget, cacheDir string, doBuild bool) (*Binary, error) {
	return nil, errors.New("c harnesses are not built yet")
}
