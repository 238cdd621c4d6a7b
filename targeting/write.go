package targeting

import (
	"strings"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/learn"
)

// WritePursuit writes the inputs a pursuit kept into the output folder
// out, laid out by l (corpus.WriteManifest), with their manifest: a line
// per input, {"file":..,"source":..,"round":..,"execution":..} and its
// "choices", and in Go's format the function too ("function"), since a
// seed corpus's manifest gathers every run's.
func WritePursuit(l corpus.Layout, out string, pr *Pursuit) error {
	function := ""
	if l.GoFuzz() {
		function = pr.Function
	}
	_, err := corpus.WriteManifest(l, out, len(pr.Inputs), func(i int) string { return pr.Inputs[i].Text },
		func(i int, name string) any {
			in := pr.Inputs[i]
			return struct {
				File      string `json:"file"`
				Function  string `json:"function,omitempty"`
				Source    string `json:"source"`
				Round     int    `json:"round"`
				Execution int    `json:"execution"`
				Choices   []int  `json:"choices,omitempty"`
			}{name, function, in.Source, in.Round, in.Execution, in.Choices}
		})
	return err
}

// WriteOffline writes the inputs Offline made for function into the
// output folder out, laid out by l, with their manifest: a line per
// input, {"file":..,"constraint":i,"patterns":[...]}, the constraint it
// satisfies by its index in cons, the function's constraints as Offline
// numbered them (m.Constraints with the same maxGini), and that
// constraint's literals as m.Text writes them, one per pattern; in Go's
// format the function too ("function"). It returns the inputs' paths.
func WriteOffline(l corpus.Layout, out string, m *learn.Model, function string, cons []learn.Constraint, res *OfflineResult) ([]string, error) {
	if !l.GoFuzz() {
		function = ""
	}
	return corpus.WriteManifest(l, out, len(res.Inputs), func(i int) string { return res.Inputs[i].Text },
		func(i int, name string) any {
			in := res.Inputs[i]
			return struct {
				File       string   `json:"file"`
				Function   string   `json:"function,omitempty"`
				Constraint int      `json:"constraint"`
				Patterns   []string `json:"patterns"`
			}{name, function, in.Constraint, strings.Split(m.Text(cons[in.Constraint], false), "\n")}
		})
}
