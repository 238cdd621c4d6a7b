package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/learn"
)

func newExplainCmd() *cobra.Command {
	var modelPath, function string
	var asDOT, asJSON, ascii bool
	cmd := &cobra.Command{
		Use:   "explain --model M [--function F]",
		Short: "Explain a function's calling condition as grammar patterns",
		Long: `explain prints a function's tree as indented text, then its covering
constraints, after a short legend. Each test is a feature of the input's
derivation tree: for a k-path, its chain of grammar symbols (parent→child)
and, after "in:", the grammar text the chain sits in. "has P" leads to the
inputs with the feature, "not P" to the others; every node shows its
training rows (covered / not covered) and gini (0: all of one class, 0.5:
an even mix). The covering constraints are the root-to-leaf paths that end
in a covered leaf with gini <= 0.3, each a conjunction of features present
(∃) and absent (∄), infeasible ones left out. --dot prints the tree for
Graphviz, --json the tree and constraints. Without --function it lists
all functions with their tree size and training accuracy (--json: the
model and its functions, docs/json.md).

Training accuracy is the kept tree's, on all its training inputs;
cross-validated accuracy (train --cv) is that of other trees, refitted
without one fold each and scored on it. They can differ either way: with
balancing each tree is fitted on its own sample of the majority class,
and a kept tree from an unlucky sample can score below its refits
(docs/targeting.md).`,
		Example: "  arbor explain --model json.model.gz\n  arbor explain --model json.model.gz --function 'encoding/json.unquote'",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if modelPath == "" {
				return usageError{errors.New("--model is required")}
			}
			m, err := learn.LoadModel(modelPath)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if function == "" {
				return listFunctions(out, modelPath, m, asJSON)
			}
			fn, err := m.Function(function)
			if err != nil {
				return err
			}
			switch {
			case asJSON:
				return explainJSON(out, m, fn, ascii)
			case asDOT:
				return writeTreeDOT(out, m, fn)
			}
			explainText(out, m, fn, ascii)
			return nil
		},
	}
	cmd.Flags().StringVar(&modelPath, "model", "", "model file from 'arbor train'")
	cmd.Flags().StringVar(&function, "function", "", "the `function` to explain")
	cmd.Flags().BoolVar(&asDOT, "dot", false, "print the tree as a Graphviz digraph")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&ascii, "ascii", false, "write has/not instead of ∃/∄ in constraints")
	return cmd
}

// listFunctions prints the functions of model m, read from path, with
// their trees' sizes and accuracies.
func listFunctions(out io.Writer, path string, m *learn.Model, asJSON bool) error {
	rows := make([][]string, len(m.Functions))
	weak := 0
	for i, f := range m.Functions {
		rows[i] = []string{f.Name, strconv.Itoa(len(f.Tree.Nodes)), strconv.Itoa(f.Depth), strconv.Itoa(f.Positives), fmt.Sprintf("%.3f", f.TrainAccuracy), cvCell(f.CV)}
		if f.CV != nil && !f.CV.Beats() {
			weak++
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	kinds := m.Kinds
	if kinds == "" {
		kinds = "kpath"
	}
	if asJSON {
		return writeJSON(out, modelSummary(path, m, kinds))
	}
	fmt.Fprintf(out, "%s (subject %s, grammar %s, k ≤ %d, features %s): %d functions with trees, trained on %d inputs\n",
		path, m.Subject, m.Grammar.Name, m.K, kinds, len(m.Functions), m.Stats.Rows)
	if weak > 0 {
		fmt.Fprintf(out, "%d trees (marked *) do not predict held-out inputs better than always guessing the majority class: do not trust their explanations\n", weak)
	}
	if err := renderTable(out, []string{"function", "nodes", "depth", "covered by", "training accuracy (this tree)", "cv accuracy / majority (refits)"}, rows); err != nil {
		return err
	}
	for _, f := range m.Functions {
		if f.CV != nil {
			fmt.Fprint(out, accuracyNote(f.CV.Folds))
			break
		}
	}
	return nil
}

// explainJSON prints fn's tree, the patterns of its tests and its
// covering constraints as JSON.
func explainJSON(out io.Writer, m *learn.Model, fn *learn.FunctionModel, ascii bool) error {
	type jc struct {
		Literals []string `json:"literals"`
		Pos      int      `json:"pos"`
		Neg      int      `json:"neg"`
		Gini     float64  `json:"gini"`
	}
	var js []jc
	for _, c := range m.Covering(fn) {
		js = append(js, jc{strings.Split(m.Text(c, ascii), "\n"), c.Pos, c.Neg, c.Gini})
	}
	return json.NewEncoder(out).Encode(struct {
		Function    string               `json:"function"`
		Tree        *learn.Tree          `json:"tree"`
		Patterns    map[int]string       `json:"patterns"`
		Constraints []jc                 `json:"constraints"`
		Stats       *learn.FunctionModel `json:"-"`
	}{fn.Name, fn.Tree, treePatterns(m, fn), js, fn})
}

// explainText prints fn's tree as indented text and its covering
// constraints, each after a legend, headed by the tree's accuracies.
func explainText(out io.Writer, m *learn.Model, fn *learn.FunctionModel, ascii bool) {
	fmt.Fprintf(out, "%s: tree of %d nodes, depth %d; covered by %d of %d training inputs\n",
		fn.Name, len(fn.Tree.Nodes), fn.Depth, fn.Positives, m.Stats.Rows)
	fmt.Fprintf(out, "training accuracy %.3f: this tree, on all %d training inputs\n", fn.TrainAccuracy, m.Stats.Rows)
	if cv := fn.CV; cv != nil {
		fmt.Fprintf(out, "cross-validated accuracy %.3f: %d trees refitted, each on the inputs of the other folds, scored on one fold it did not see; always guessing the majority class %.3f",
			cv.Accuracy, cv.Folds, cv.Baseline)
		if !cv.Beats() {
			fmt.Fprint(out, ": this tree is no better than the guess; do not trust its explanation")
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out)
	writeTreeLegend(out)
	writeTreeText(out, m, fn, ascii)
	fmt.Fprintln(out)
	cons := m.Covering(fn)
	writeConstraintsLegend(out, len(cons), ascii)
	for i, c := range cons {
		fmt.Fprintf(out, "%d. leaf %d: %d covered, %d not, gini %.3f\n", i+1, c.Leaf, c.Pos, c.Neg, c.Gini)
		for _, line := range strings.Split(m.Text(c, ascii), "\n") {
			fmt.Fprintf(out, "   %s\n", line)
		}
	}
}

// modelListing is explain's JSON without --function: the model and its
// functions.
type modelListing struct {
	Model     string            `json:"model"`
	Subject   string            `json:"subject"`
	Grammar   string            `json:"grammar"`
	K         int               `json:"k"`
	Features  string            `json:"features"`
	Inputs    int               `json:"inputs"`
	Functions []functionListing `json:"functions"`
}

type functionListing struct {
	Name          string         `json:"name"`
	Nodes         int            `json:"nodes"`
	Depth         int            `json:"depth"`
	Positives     int            `json:"positives"` // training inputs that ran it
	TrainAccuracy float64        `json:"training_accuracy"`
	CV            *learn.CVScore `json:"cv,omitempty"` // absent when trained without cross-validation
	Trusted       bool           `json:"trusted"`      // its tree beat the majority class held out (true without cv)
}

func modelSummary(path string, m *learn.Model, kinds string) modelListing {
	l := modelListing{Model: path, Subject: m.Subject, Grammar: m.Grammar.Name, K: m.K, Features: kinds, Inputs: m.Stats.Rows}
	for _, f := range m.Functions {
		l.Functions = append(l.Functions, functionListing{f.Name, len(f.Tree.Nodes), f.Depth, f.Positives, f.TrainAccuracy, f.CV, f.CV == nil || f.CV.Beats()})
	}
	sort.Slice(l.Functions, func(i, j int) bool { return l.Functions[i].Name < l.Functions[j].Name })
	return l
}

// accuracyNote says what the two accuracies of explain's listing
// measure: they are of different trees, and either can be the higher.
func accuracyNote(folds int) string {
	return fmt.Sprintf("training accuracy: the tree the model keeps, on all its training inputs; cv accuracy: %d other trees,\n"+
		"each refitted without one fold and scored on it. They are different trees, so either can be the higher.\n", folds)
}

// cvCell shows a cross-validated score, starred when the tree does not
// beat the majority class.
func cvCell(cv *learn.CVScore) string {
	if cv == nil {
		return "-"
	}
	s := fmt.Sprintf("%.3f / %.3f", cv.Accuracy, cv.Baseline)
	if !cv.Beats() {
		s += " *"
	}
	return s
}

func treePatterns(m *learn.Model, fn *learn.FunctionModel) map[int]string {
	p := map[int]string{}
	for _, n := range fn.Tree.Nodes {
		if !n.Leaf() {
			p[n.Feature] = m.Features[n.Feature].Describe()
		}
	}
	return p
}

// writeTreeLegend says how to read writeTreeText's tree: the symbols of
// a test, "in:", the counts and gini are arbor's own notation.
func writeTreeLegend(w io.Writer) {
	fmt.Fprint(w, `How to read it: a test is a feature of the input's derivation tree; for a
k-path, a chain of grammar symbols (parent→child) and, after "in:", the
grammar text it sits in. "has" leads to inputs with it, "not" to the rest.
[C covered / N not, gini G]: training inputs at the node that ran the
function (C) and did not (N); gini 0 is all one class, 0.5 an even mix.

`)
}

// writeConstraintsLegend heads the list of covering constraints with what
// they are and what ∃ and ∄ (or has and not) mean.
func writeConstraintsLegend(w io.Writer, n int, ascii bool) {
	has, not := "∃", "∄"
	if ascii {
		has, not = "has", "not"
	}
	fmt.Fprintf(w, "covering constraints (%d): the paths to a covered leaf with gini <= %.1f. An input\n", n, learn.MaxConstraintGini)
	fmt.Fprintf(w, "with every %s feature of one of them and none of its %s ones is predicted to run it:\n", has, not)
}

func writeTreeText(w io.Writer, m *learn.Model, fn *learn.FunctionModel, ascii bool) {
	var walk func(i int, indent string, test string)
	walk = func(i int, indent, test string) {
		n := &fn.Tree.Nodes[i]
		label := fmt.Sprintf("[%d covered / %d not, gini %.3f]", n.Pos, n.Neg, n.Gini)
		if n.Leaf() {
			verdict := "→ not covered"
			if n.Covered() {
				verdict = "→ covered"
			}
			fmt.Fprintf(w, "%s%s%s %s\n", indent, test, verdict, label)
			return
		}
		fmt.Fprintf(w, "%s%s%s\n", indent, test, label)
		feature := m.Features[n.Feature].Describe()
		walk(n.Present, indent+"  ", "has "+feature+"  ")
		walk(n.Absent, indent+"  ", "not "+feature+"  ")
	}
	walk(0, "", "")
}

func writeTreeDOT(w io.Writer, m *learn.Model, fn *learn.FunctionModel) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph tree {\n  label=%q;\n  node [fontname=\"Helvetica\" shape=box];\n", fn.Name)
	for i, n := range fn.Tree.Nodes {
		if n.Leaf() {
			color := "lightgrey"
			if n.Covered() {
				color = "palegreen"
			}
			fmt.Fprintf(&b, "  n%d [label=%q style=filled fillcolor=%s];\n", i, fmt.Sprintf("%d covered / %d not\ngini %.3f", n.Pos, n.Neg, n.Gini), color)
			continue
		}
		fmt.Fprintf(&b, "  n%d [label=%q];\n", i, fmt.Sprintf("%s\n%d covered / %d not", m.Features[n.Feature].Describe(), n.Pos, n.Neg))
		fmt.Fprintf(&b, "  n%d -> n%d [label=\"has\"];\n  n%d -> n%d [label=\"not\" style=dashed];\n", i, n.Present, i, n.Absent)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
