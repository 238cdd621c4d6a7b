package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/constraint"
	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

type generateFlags struct {
	outputFormat
	mode, closeOff, out string
	k, n, maxDepth      int
	maxRepeat           int
	seed                uint64
	absence, choices    bool
	force, guided       bool
	constraints         constraintsFlag
}

func newGenerateCmd() *cobra.Command {
	var f generateFlags
	cmd := &cobra.Command{
		Use:   "generate GRAMMAR",
		Short: "Generate inputs: random, shortest, k-path covering or forestation",
		Long: `generate produces inputs from a grammar. Every decision is seeded: the same
--seed gives the same inputs.

Modes:
  random    depth-bounded random expansion (--max-depth rule expansions,
            unbounded repetitions up to --max-repeat); regexes draw random
            strings of their language
  shortest  fewest expansions (ties broken at random)
  kpath     a k-path covering set: every k-path of the grammar in at least
            one input; as many inputs as that takes (-n is ignored)
  forest    -n inputs, each grown towards one k-path drawn at random; the
            prefixes of the sequence span the range of k-path coverage

kpath and forest fill what lies off the targeted path with --close-off
random (depth-bounded) or shortest. --absence makes the absence of each
optional part (x?, x*) a target too.

--out DIR writes one file per input (created if needed; a folder that
already holds files is refused, since two corpora would mix, unless
--force); --out - writes JSON Lines {"input":"..."} to standard output,
or {"bytes":"<base64>"} for an input that is not UTF-8, so that every
byte comes through. --choices adds each input's
recorded choice sequence (to DIR/choices.jsonl, or to each JSON line).
Every mode writes each input as soon as it is made, so memory does not
grow with -n. With --out DIR, a line on standard error says how many
inputs went where, how many of them are distinct (a grammar that derives
a few short inputs often repeats them, and constraints that small trees
satisfy as drawn favour those), from which seed; for kpath and forest a
summary with the k-path coverage of the set follows it (with --out -
too).

--guided (random mode, with the grammar's where clauses) draws the trees
with RLCheck's bandit guide and makes the constraint checker its judge:
the guide learns which choices, where, make inputs that satisfy the
clauses, and the search repairs what it still draws broken. Where the
clauses can be satisfied as drawn it is many times faster; its inputs
are the guide's, not uniform random choices: they hold fewer of the
grammar's k-paths, and where the clauses leave a program's checks
unsaid the program may reject more of them (docs/algorithms.md,
"Guided drawing"; arbor eval E11 measures both on the bundled subjects).

` + formatHelp,
		Example: "  arbor generate json --mode random -n 1000 --seed 1 --out corpus/\n  arbor generate url --mode kpath --k 3 --out -\n" +
			"  arbor generate json --mode kpath --k 2 --format gofuzz --fuzz-target FuzzDecode --out ./decoder",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGenerate(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.mode, "mode", "random", "random, shortest, kpath or forest")
	fl.IntVar(&f.k, "k", 2, "path length `K` for kpath and forest")
	fl.IntVarP(&f.n, "n", "n", 10, "number of inputs (random, shortest, forest)")
	fl.Uint64Var(&f.seed, "seed", 1, "random `seed`")
	fl.StringVar(&f.out, "out", "-", "output folder, or - for JSON Lines on standard output")
	fl.IntVar(&f.maxDepth, "max-depth", synth.DefaultMaxDepth, "depth bound of random expansion, in rule expansions")
	fl.IntVar(&f.maxRepeat, "max-repeat", synth.DefaultMaxRepeat, "most repetitions of an unbounded quantifier")
	fl.StringVar(&f.closeOff, "close-off", "random", "kpath and forest: fill the rest with random or shortest expansion")
	fl.BoolVar(&f.absence, "absence", false, "kpath and forest: make the absence of optional parts a target")
	fl.BoolVar(&f.choices, "choices", false, "also write each input's choice sequence")
	fl.BoolVar(&f.force, "force", false, "write into an --out folder that already holds files")
	fl.BoolVar(&f.guided, "guided", false, "random mode: draw with a bandit guide that learns from the constraint checker which choices satisfy the where clauses")
	f.constraints.register(fl, "random and shortest inputs satisfy them (repaired by local search; those that cannot be repaired are written, counted on stderr and the clauses they break named)")
	f.outputFormat.register(fl)
	return cmd
}

func runGenerate(cmd *cobra.Command, grammarArg string, f generateFlags) error {
	if err := f.check(); err != nil {
		return err
	}
	g, err := datasets.LoadGrammar(grammarArg)
	if err != nil {
		return err
	}
	var from *grammar.Graph // what the inputs are generated from, if not g
	if f.absence {
		if from, err = synth.WithAbsence(g.Source); err != nil {
			return fmt.Errorf("rewrite for absence: %w", err)
		}
	}
	ctx := contextOf(cmd)
	w := f.writer(cmd.OutOrStdout(), grammarArg)
	if f.mode == "kpath" || f.mode == "forest" {
		return generateSet(ctx, cmd.ErrOrStderr(), g, from, f, w)
	}
	distinct := f.distinctCount()
	broken, err := generateStream(ctx, g, f, w, distinct)
	if err := w.Close(err); err != nil {
		return err
	}
	f.summarizeFiles(cmd.ErrOrStderr(), f.n, len(distinct))
	broken.print(cmd.ErrOrStderr(), f.n)
	return nil
}

// unrepaired tallies the inputs that break a constraint the search could
// not repair, by the clauses they break, so that generate names the
// clauses that failed (an unsatisfiable one, or one the search cannot
// reach) rather than only counting the inputs.
type unrepaired struct {
	inputs  int
	check   *constraint.Checker
	clauses map[*constraint.Clause]int // inputs breaking each
}

// add tallies the clauses t breaks.
func (u *unrepaired) add(set *constraint.Set, t *grammar.Tree) {
	if u.check == nil {
		u.check, u.clauses = constraint.NewChecker(set), map[*constraint.Clause]int{}
	}
	u.inputs++
	seen := map[*constraint.Clause]bool{}
	for _, v := range u.check.Check(t) {
		if !seen[v.Clause] {
			seen[v.Clause] = true
			u.clauses[v.Clause]++
		}
	}
}

// print says how many of n inputs break a clause, and which clauses, the
// ones most inputs break first.
func (u *unrepaired) print(w io.Writer, n int) {
	if u.inputs == 0 {
		return
	}
	fmt.Fprintf(w, "%d of %d inputs break a constraint the search could not repair (arbor parse --constraints on shows where); the clauses they break:\n", u.inputs, n)
	cls := make([]*constraint.Clause, 0, len(u.clauses))
	for c := range u.clauses {
		cls = append(cls, c)
	}
	slices.SortFunc(cls, func(a, b *constraint.Clause) int {
		if d := u.clauses[b] - u.clauses[a]; d != 0 {
			return d
		}
		return strings.Compare(a.Where.Pos.String(), b.Where.Pos.String())
	})
	for _, c := range cls {
		text, _, cut := strings.Cut(c.String(), "\n")
		if r := []rune(text); cut || len(r) > 70 {
			text = string(r[:min(len(r), 70)]) + "..."
		}
		inputs := "inputs"
		if u.clauses[c] == 1 {
			inputs = "input"
		}
		fmt.Fprintf(w, "  %s (%d %s): %s\n", c.Where.Pos, u.clauses[c], inputs, text)
	}
}

// check validates the flags as usage errors.
func (f generateFlags) check() error {
	switch {
	case f.mode != "random" && f.mode != "shortest" && f.mode != "kpath" && f.mode != "forest":
		return usageError{fmt.Errorf("--mode must be random, shortest, kpath or forest, not %q", f.mode)}
	case f.closeOff != "random" && f.closeOff != "shortest":
		return usageError{fmt.Errorf("--close-off must be random or shortest, not %q", f.closeOff)}
	case f.n < 0:
		return usageError{fmt.Errorf("-n must not be negative")}
	case f.maxDepth < 1 || f.maxRepeat < 0:
		return usageError{fmt.Errorf("--max-depth must be at least 1 and --max-repeat not negative")}
	case f.guided && f.mode != "random":
		return usageError{fmt.Errorf("--guided draws random inputs: it does not go with --mode %s", f.mode)}
	case f.guided && f.constraints.off():
		return usageError{errors.New("--guided learns from the grammar's where clauses: it does not go with --constraints off")}
	}
	if err := checkK("--k", f.k); err != nil {
		return err
	}
	if err := f.constraints.check(); err != nil {
		return err
	}
	if err := f.outputFormat.check(); err != nil {
		return err
	}
	if f.gofuzz() && f.out == "-" {
		return usageError{errors.New("--format gofuzz writes files: give --out the Go package's folder")}
	}
	if f.out != "-" && !f.force && !f.gofuzz() {
		if entries, err := os.ReadDir(f.out); err == nil && len(entries) > 0 {
			return usageError{fmt.Errorf("--out %s already holds %d files: generating into it would mix two corpora; give a new or empty folder, or --force", f.out, len(entries))}
		}
	}
	return nil
}

// writer is where the inputs go: JSON Lines on stdout (--out -), or
// files in --out. Every mode writes each input as soon as it is made,
// so memory does not grow with -n.
func (f generateFlags) writer(stdout io.Writer, grammarArg string) *corpus.Writer {
	if f.out == "-" {
		return corpus.NewLineWriter(stdout, f.choices)
	}
	n := f.n
	if f.mode == "kpath" {
		// A covering set's size is known only at its end.
		n = corpus.UnknownCount
	}
	return corpus.NewWriter(f.out, f.layout(grammarArg), n, f.choices)
}

// summarizeFiles says on stderr, when the inputs went to files, how many
// went where, how many of them are distinct and from which seed, so that
// --out DIR does not finish silently; with --out - the data on stdout
// says it.
func (f generateFlags) summarizeFiles(w io.Writer, count, distinct int) {
	if f.out == "-" {
		return
	}
	l := f.layout("")
	fmt.Fprintf(w, "%d inputs in %s (%d distinct, seed %d)", count, l.InputDir(f.out), distinct, f.seed)
	if f.choices {
		fmt.Fprintf(w, "; their choices in %s", l.SideFile(f.out, "choices.jsonl"))
	}
	fmt.Fprintln(w)
}

// distinctCount counts distinct inputs by a 64-bit hash (FNV-1a), a few
// bytes an input however long it is, so that memory stays small over
// millions of inputs (the chance that two of a million distinct inputs
// share a hash is 3 in 10^8). A nil one counts nothing: with --out -
// no summary is printed.
type distinctCount map[uint64]struct{}

// distinctCount returns the count summarizeFiles prints: nil with --out
// -, where it prints none.
func (f generateFlags) distinctCount() distinctCount {
	if f.out == "-" {
		return nil
	}
	return distinctCount{}
}

func (d distinctCount) add(in string) {
	if d == nil {
		return
	}
	h := fnv.New64a()
	io.WriteString(h, in)
	d[h.Sum64()] = struct{}{}
}

// generateStream generates f.n random or shortest inputs into w, counts
// the distinct ones into distinct, and returns the tally of those that
// break a constraint.
func generateStream(ctx context.Context, g *grammar.Graph, f generateFlags, w *corpus.Writer, distinct distinctCount) (broken *unrepaired, err error) {
	broken = &unrepaired{}
	opts := synth.GenerateOptions{Policy: synth.RandomPolicy, Seed: f.seed, MaxDepth: f.maxDepth, MaxRepeat: f.maxRepeat, Choices: f.choices}
	if f.mode == "shortest" {
		opts.Policy = synth.ShortestPolicy
	}
	if opts.Constraints, err = f.constraints.set(g); err != nil {
		return broken, err
	}
	if f.guided && opts.Constraints.Len() == 0 {
		return broken, usageError{errors.New("--guided learns from the grammar's where clauses, and this grammar has none")}
	}
	opts.Guided = f.guided
	err = synth.GenerateFunc(ctx, g, f.n, opts, func(in synth.Input) error {
		if in.Broken > 0 {
			// Before the generator reuses the tree's memory.
			broken.add(opts.Constraints, in.Tree)
		}
		distinct.add(in.Text)
		return w.Write(in.Text, in.Choices)
	})
	if err != nil && err == ctx.Err() {
		return broken, fmt.Errorf("generate: stopped after %d of %d inputs (those are written): %w", w.Written(), f.n, err)
	}
	return broken, err
}

// generateSet generates a k-path covering set (kpath) or a forest of g,
// or of from, its rewriting for --absence, into w, and prints its
// summary: the set's k-paths in g (synth.GenerateSet) and the
// generator's time. The output is what generating the whole set first
// and then writing it gave, byte for byte.
func generateSet(ctx context.Context, stderr io.Writer, g, from *grammar.Graph, f generateFlags, w *corpus.Writer) error {
	opts := synth.SetOptions{
		CoverOptions: synth.CoverOptions{K: f.k, Seed: f.seed, MaxDepth: f.maxDepth, MaxRepeat: f.maxRepeat, NoChoices: !f.choices},
		Forest:       f.mode == "forest", N: f.n, From: from,
	}
	if f.closeOff == "shortest" {
		opts.CloseOff = synth.ShortestPolicy
	}
	distinct := f.distinctCount()
	st, err := synth.GenerateSet(ctx, g, opts, func(in synth.Input) error {
		distinct.add(in.Text)
		return w.Write(in.Text, in.Choices)
	})
	if err := w.Close(err); err != nil {
		return err
	}
	f.summarizeFiles(stderr, st.Inputs, len(distinct))
	fmt.Fprintf(stderr, "%s: %d inputs (mean %.1f bytes) in %v; %d-path coverage %.4f (%d of %v)\n",
		f.mode, st.Inputs, float64(st.Bytes)/float64(max(1, st.Inputs)), st.Elapsed.Round(time.Microsecond),
		f.k, st.Paths.Fraction(f.k), st.Paths.Covered(f.k), st.Paths.Total(f.k))
	return nil
}
