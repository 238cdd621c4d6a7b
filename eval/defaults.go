package eval

import "time"

// Every experiment's config fills in its own defaults (setDefaults), so
// that a zero field means "the default" whoever builds the config: the
// command line, All or a test.

// setDefault gives a config's unset (zero) field its default.
func setDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}

// setPositive gives a config's field its default where it is not
// positive: the fuzzing experiments (E7–E10) take zero and below alike
// as unset.
func setPositive[T int | float64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}
