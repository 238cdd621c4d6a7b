// Package supervise is arbor's supervisor, on Linux: a small process
// between arbor and the subject's process (a harness of package
// coverage, or a command's run). It is arbor's own program, started
// again with Var in its environment, which this package's init turns
// into the supervisor before the program's main runs. It exists because
// the subject's process must not be arbor's child:
//
//   - getppid() of the subject is the supervisor's pid, not arbor's, so
//     a subject that signals its parent (kill(getppid(), SIGTERM), or
//     SIGSTOP) reaches the supervisor. The supervisor catches the
//     signals that would end it, says which it got (the input is then
//     labelled a crash with that text) and ends the subject's process;
//     the recording goes on with a new one. SIGSTOP cannot be caught:
//     arbor sends the supervisor SIGCONT whenever it needs it.
//   - It is the subreaper (PR_SET_CHILD_SUBREAPER) of everything the
//     subject starts: a child that leaves the process group and the
//     session (setsid) is still its descendant, and is killed with the
//     rest when the subject's process ends, when arbor ends the run
//     (closing the supervisor's "live" pipe), and when arbor dies
//     (the same pipe reads end-of-file, and the kernel sends the
//     supervisor SIGTERM: Pdeathsig).
//   - Resource limits that must hold from the program's first
//     instruction (RLIMIT_AS, RLIMIT_DATA for commands) are set by a
//     shell's ulimit just before it execs the program.
//
// What remains possible: a subject that looks for arbor's pid (walking
// /proc, or asking for its grandparent) can still signal arbor itself,
// and one that kills the supervisor with SIGKILL ends its own run (the
// kernel kills the subject's process with it: Pdeathsig), but then its
// setsid children are left to the init process. A cgroup would close
// both; arbor does not need one to run.
//
// The supervisor's descriptors: 0-2 and 3 .. 3+n-1 are passed to the
// subject's process, live (one of them, or one of its own) reads
// end-of-file when arbor wants the run to end, and status receives
// lines that say how it ended:
//
//	exit N       the subject's process exited with status N
//	signal N     it was killed by signal N
//	parent SIG   the supervisor got signal SIG while the run went on
package supervise
