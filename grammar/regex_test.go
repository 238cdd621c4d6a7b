package grammar

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMatcherFastPathAgrees checks the byte-level matcher against the rune
// machine on random inputs, and that ends lists every match length.
func TestMatcherFastPathAgrees(t *testing.T) {
	tests := []struct {
		src  string
		fast bool // expected to take the byte-level path
	}{
		{`[^"\\\x00-\x1f]+`, true},
		{`[1-9][0-9]*`, true},
		{`[0-9a-fA-F]{4}`, true},
		{`[ \t\n\r]*`, true},
		{`[0-9]{1,3}`, true},
		{`a?b*c+`, true},
		{`(?i)k`, false}, // folds to the Kelvin sign
		{`[a-z]*[a-z]`, false},
		{`[α-ω]+`, false},
		{`.+`, true},
		{`[^a]{2}`, false},
		{`ab|cd`, false},
		{`(?:ab)*`, false},
	}
	alphabet := []byte("aAbck09fF \t\n\"\\\xce\xb1\xc3\xa9\xff-zx")
	r := rand.New(rand.NewPCG(3, 3))
	for _, tt := range tests {
		m, err := compileMatcher(tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if got := m.seq != nil; got != tt.fast {
			t.Errorf("/%s/: byte-level path %v, want %v", tt.src, got, tt.fast)
		}
		for i := 0; i < 2000; i++ {
			in := make([]byte, r.IntN(8))
			for j := range in {
				in[j] = alphabet[r.IntN(len(alphabet))]
			}
			ends := m.ends(in, 0, nil)
			want := -1
			if len(ends) > 0 {
				want = ends[len(ends)-1]
			}
			if got := m.longest(in, 0); got != want {
				t.Fatalf("/%s/ on %q: longest %d, rune machine %d (ends %v)", tt.src, in, got, want, ends)
			}
			if !slices.IsSorted(ends) {
				t.Fatalf("ends not sorted: %v", ends)
			}
		}
	}
	m, _ := compileMatcher(`a+`)
	if got := m.ends([]byte("aaab"), 0, nil); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("ends of /a+/ on aaab = %v, want [1 2 3]", got)
	}
}
