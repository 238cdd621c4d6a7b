//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/mine"
)

// backwardsProgram rejects (exit 1) an input with a range that runs
// backwards, and leaves an lcov report of its one function.
const backwardsProgram = `status=0
for r in $(cat "$1"); do a=${r%-*}; b=${r#*-}; if [ "$a" -gt "$b" ]; then status=1; fi; done
printf 'SF:prog.sh\nFN:1,main\nFNDA:1,main\nend_of_record\n' > "$ARBOR_RUN_DIR/cov.info"
exit $status
`

// TestGrammarMine records a program that rejects backward ranges and
// mines the clause it checks from its verdicts, in text and JSON; a
// corpus the program accepts whole has nothing to separate, which mine
// says, exiting 1.
func TestGrammarMine(t *testing.T) {
	dir := t.TempDir()
	plain := writeInput(t, dir, "plain.grammar", []byte(rangesGrammar[:strings.Index(rangesGrammar, "where")]))
	prog := writeInput(t, dir, "prog.sh", []byte(backwardsProgram))
	record := func(name string, inputs []string) (string, string) {
		in := filepath.Join(dir, name)
		for i, text := range inputs {
			writeInput(t, in, fmt.Sprintf("%02d", i), []byte(text))
		}
		cov := filepath.Join(dir, name+".jsonl")
		if out, errOut, code := runArbor(t, "", "record", "--cmd", "sh "+prog+" {}", "--report", "lcov", "--inputs", in, "--out", cov, "--timeout", "20s"); code != 0 {
			t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
		}
		return in, cov
	}
	var mixed []string
	for i := range 24 {
		a, b := i%7, (i*5+3)%9
		mixed = append(mixed, fmt.Sprintf("%d-%d %d-%d", a, b, b, (a+i)%6))
	}
	in, cov := record("mixed", mixed)
	out, errOut, code := runArbor(t, "", "grammar", "mine", plain, "--inputs", in, "--coverage", cov)
	const want = "where Range: !(Start != nil && End != nil && Start.num > End.num) ;"
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "precision 1.000") {
		t.Fatalf("exit %d, want the clause %s with precision 1\n%s\n%s", code, want, out, errOut)
	}
	out, _, code = runArbor(t, "", "grammar", "mine", plain, "--inputs", in, "--coverage", cov, "--json")
	var rep mine.Report
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || len(rep.Candidates) == 0 || rep.Candidates[0].Clause != want {
		t.Fatalf("--json: exit %d, %v: %s", code, err, out)
	}
	if c := rep.Candidates[0]; c.Support != rep.Rejected || c.Breaks != c.Support || rep.Accepted+rep.Rejected != len(mixed) {
		t.Errorf("the clause breaks %d inputs, %d rejected, of %d rejected and %d accepted", c.Breaks, c.Support, rep.Rejected, rep.Accepted)
	}

	in, cov = record("accepted", []string{"1-2", "3-4 5-6", "0-0"})
	out, errOut, code = runArbor(t, "", "grammar", "mine", plain, "--inputs", in, "--coverage", cov)
	if code != 1 || !strings.Contains(errOut, "the program accepted all 3 parsed inputs; mining needs rejected ones") {
		t.Errorf("a corpus with no rejected input: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, code = runArbor(t, "", "grammar", "mine", plain, "--inputs", in); code != 2 || !strings.Contains(errOut, "--coverage") {
		t.Errorf("without --coverage: exit %d\n%s", code, errOut)
	}
}
