package targeting

import "github.com/arbor-fuzz/arbor/learn"

// Summary is what a targeting run reports of one function's loop: a
// record of arbor target's --json output and of --rare's summary.json.
type Summary struct {
	Function   string         `json:"function"`
	BaseRate   float64        `json:"base_rate"` // share of training inputs that ran it
	Never      bool           `json:"never_covered,omitempty"`
	Requested  int            `json:"requested"`
	Produced   int            `json:"produced"`
	Verified   int            `json:"verified"`
	Executions int            `json:"executions"`
	FirstHit   int            `json:"first_hit"`
	Rounds     int            `json:"rounds"`
	Seconds    float64        `json:"seconds"`
	Stopped    string         `json:"stopped"`
	MeanSize   float64        `json:"mean_size"`
	Sources    map[string]int `json:"executions_by_source"`
	Hits       map[string]int `json:"hits_by_source"`
	Out        string         `json:"out"` // the folder of its inputs
	// With constraints: inputs repaired before they ran, dropped unrun,
	// run although they break one.
	Repaired   int `json:"repaired,omitempty"`
	Dropped    int `json:"dropped,omitempty"`
	BrokenRuns int `json:"broken_runs,omitempty"`
}

// Summarize sums up a pursuit of a function with the given base rate
// whose inputs went to the folder out.
func Summarize(pr *Pursuit, baseRate float64, out string) Summary {
	size := 0
	for _, in := range pr.Inputs {
		size += len(in.Text)
	}
	return Summary{Function: pr.Function, BaseRate: baseRate, Requested: pr.Wanted, Produced: pr.Produced, Verified: len(pr.Inputs),
		Executions: pr.Executions, FirstHit: pr.FirstHit, Rounds: pr.Rounds, Seconds: pr.Elapsed.Seconds(), Stopped: pr.Stopped,
		MeanSize: float64(size) / float64(max(1, len(pr.Inputs))), Sources: pr.Sources, Hits: pr.Hits, Out: out,
		Repaired: pr.Repaired, Dropped: pr.Dropped, BrokenRuns: pr.BrokenRuns}
}

// BaseRate is a function's share of the model's training rows: how
// often an input of the training corpus ran it.
func BaseRate(m *learn.Model, fn *learn.FunctionModel) float64 {
	return float64(fn.Positives) / float64(max(1, m.Stats.Rows))
}
