// Package filelock gives one writer at a time to a file or a folder: an
// exclusive advisory lock (flock) that goes with the process, so that a
// writer killed with SIGKILL lets go at once, and an error that names the
// process holding it.
//
// A command that writes a file or a folder takes the lock before it
// reads anything back, and keeps it until it is done:
//
//	l, err := filelock.Acquire(ctx, filepath.Join(dir, ".arbor.lock"), filelock.Options{
//		What: "fuzz campaign folder " + dir,
//		Hint: "give each campaign a folder of its own, or wait for it with --wait",
//	})
//	if err != nil {
//		return err // "fuzz campaign folder out is being written by process 1234 (arbor fuzz ...); give ..."
//	}
//	defer l.Release()
//
// Where flock does not exist (not unix) the lock does nothing: two
// writers there are the user's to avoid.
package filelock
