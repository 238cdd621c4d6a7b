// Package proctest helps tests find the processes they started and the
// files they changed, so that fault tests can assert that nothing
// outlives a killed program and nothing is left in a user's folder.
//
// A test marks the processes it starts with an environment variable,
// which every descendant inherits, and later lists the marked ones:
//
//	mark := proctest.NewMark()
//	cmd.Env = append(os.Environ(), mark)
//	...
//	if left := proctest.WaitGone(mark, 5*time.Second); len(left) > 0 {
//		t.Errorf("outlived arbor: %v", left)
//	}
//
// Finding processes reads /proc, so it works on Linux only.
package proctest
