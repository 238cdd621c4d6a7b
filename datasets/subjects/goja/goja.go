// Package goja is the "goja" subject: github.com/dop251/goja, an
// ECMAScript 5.1 engine with much of ES2015, embedded the way a Go
// program runs a user's script.
//
// Run compiles the input as strict mode code: the javascript grammar
// writes strict programs (no with, no octal literals, no assignment to
// undeclared names, unique parameters), and in strict code an assignment
// to a name that nothing declares is a ReferenceError instead of a new
// global, so that the grammar's scoping clauses are what decides
// acceptance. It then runs the program in a new Runtime that has only
// the built-ins of the specification (no console, require or other
// host objects, so no I/O), and stringifies the completion value with
// JSON.stringify, as an embedding reads a script's result.
//
// Guards, because goja has neither a step counter nor a memory limit:
//   - a time budget of 100 ms, after which the run is interrupted
//     (Runtime.Interrupt from a time.AfterFunc). The grammar's loops are
//     bounded and its programs small, so that generated programs finish
//     in well under a millisecond and the budget is hit only by
//     recursion that does not end soon, which keeps results
//     deterministic;
//   - a call stack of at most 256 frames, so that unbounded recursion
//     stops at once (a StackOverflowError, which scripts cannot catch);
//   - a heap watch: the run is interrupted if the Go heap grows by more
//     than 256 MB during it (a string doubled in a loop). The grammar
//     bounds numeric literals and the arguments that size a string
//     (repeat, padStart) to digits and has no Array(n), so that only
//     repeated doubling gets there;
//   - Math.random and Date read a fixed source (the grammar uses
//     neither).
//
// Anything thrown (a syntax or reference error, an exception the
// program throws, a budget exceeded) is an error.
package goja

import (
	"errors"
	"fmt"
	"runtime/metrics"
	"time"

	"github.com/dop251/goja"
)

const (
	// budget is the time a program may run.
	budget = 100 * time.Millisecond
	// maxCallStack bounds the depth of calls.
	maxCallStack = 256
	// maxHeapGrowth is how much the heap may grow while a program runs.
	maxHeapGrowth = 256 << 20
	// heapPoll is how often the heap is looked at.
	heapPoll = 2 * time.Millisecond
)

var (
	errBudget = errors.New("time budget exceeded")
	errMemory = errors.New("memory budget exceeded")
)

// Run compiles the script as strict code, runs it in a fresh runtime
// under the guards of the package comment, and stringifies its
// completion value.
func Run(data []byte) error {
	prg, err := goja.Compile("input.js", string(data), true)
	if err != nil {
		return err
	}
	vm := goja.New()
	vm.SetMaxCallStackSize(maxCallStack)
	vm.SetRandSource(func() float64 { return 0.5 })
	vm.SetTimeSource(func() time.Time { return time.Unix(0, 0) })
	stop := guard(vm)
	defer stop()
	v, err := vm.RunProgram(prg)
	if err != nil {
		return err
	}
	stringify, ok := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("stringify"))
	if !ok {
		return errors.New("JSON.stringify is not a function")
	}
	s, err := stringify(goja.Undefined(), v)
	if err != nil {
		return fmt.Errorf("stringify the result: %w", err)
	}
	_ = s.String()
	return nil
}

// guard interrupts vm when the time budget is spent or the heap has
// grown by more than maxHeapGrowth; stop ends the watch.
func guard(vm *goja.Runtime) (stop func()) {
	timer := time.AfterFunc(budget, func() { vm.Interrupt(errBudget) })
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(heap)
	limit := heap[0].Value.Uint64() + maxHeapGrowth
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(heapPoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				metrics.Read(heap)
				if heap[0].Value.Uint64() > limit {
					vm.Interrupt(errMemory)
					return
				}
			}
		}
	}()
	return func() {
		timer.Stop()
		close(done)
	}
}
