package synth

import (
	"context"
	"strings"
	"testing"
)

// TestAdmit: an input that satisfies the constraints runs as it is; one
// that breaks a few instances is repaired, with choices that replay it;
// one that breaks more than a repair can mend is dropped without a
// repair (its tree unchanged), and after MaxDrops drops in a row one
// runs as it is.
func TestAdmit(t *testing.T) {
	g, set := constrained(t, `S := N{1,400} ;
N := "x" | "y" ;
where all(N, {.text == "x"}) ;`)
	a := NewAdmitter(set, 1, nil)
	tests := []struct {
		input string
		want  Admission
	}{
		{strings.Repeat("x", 50), Admitted},
		{strings.Repeat("x", 40) + strings.Repeat("y", 10), Repaired},
		{strings.Repeat("y", 300), Dropped},
	}
	for _, tc := range tests {
		tree, err := g.Parse([]byte(tc.input))
		if err != nil {
			t.Fatal(err)
		}
		v, choices := a.Admit(context.Background(), tree)
		if v != tc.want {
			t.Fatalf("%d bytes of %q...: admission %d, want %d", len(tc.input), tc.input[len(tc.input)-1:], v, tc.want)
		}
		switch v {
		case Repaired:
			if got := NewGenerator(g, &Replay{Choices: choices}, RandomPolicy).Generate().String(); got != tree.String() || strings.Contains(got, "y") {
				t.Errorf("repaired to %q, choices replay %q", tree.String(), got)
			}
		case Admitted, Dropped:
			if tree.String() != tc.input {
				t.Errorf("admission %d changed the input to %q", v, tree.String())
			}
		}
	}
	var last Admission
	for range MaxDrops {
		tree, _ := g.Parse([]byte(strings.Repeat("y", 300)))
		last, _ = a.Admit(context.Background(), tree)
	}
	if last != RunBroken {
		t.Errorf("after %d drops in a row: admission %d, want RunBroken", MaxDrops+1, last)
	}
}
