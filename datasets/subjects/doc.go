// Package subjects holds arbor's bundled programs under test: one package
// per subject, each with a Run(data []byte) error that uses a real
// third-party library the way a program would (parse, then walk,
// serialise or evaluate what was parsed). It is a module of its own so
// that arbor's dependency list stays small.
package subjects
