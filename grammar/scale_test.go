package grammar_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/synth"
)

// Benchmarks of issue 17, item 2: the parser on a 1 MB XML document, a
// 1 MB CSV with quoted fields, and exprlang's random inputs, reporting
// MB/s and bytes allocated per input byte. With ARBOR_SCALE_OUT set to a
// directory, TestWriteScaleInputs writes the two documents there, for the
// CLI and for other parsers to be timed on the same bytes.

// scaleXML builds a seeded XML document of about size bytes: nested
// elements with attributes, text, entity and character references,
// comments, CDATA sections and empty elements.
func scaleXML(size int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 17))
	words := []string{"alpha", "beta", "gamma", "delta", "über", "naïve", "東京", "x/y", "a-b", "tab\there"}
	text := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = words[r.IntN(len(words))]
		}
		return strings.Join(parts, " ")
	}
	var b strings.Builder
	b.WriteString("<catalog version=\"2\">\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "  <item id=\"%d\" kind='%s' price=\"%d.%02d\">\n", i, words[r.IntN(4)], r.IntN(1000), r.IntN(100))
		fmt.Fprintf(&b, "    <name>%s &amp; %s</name>\n", text(2), text(1))
		fmt.Fprintf(&b, "    <desc lang=\"en\">%s &#169; &#x2014; %s</desc>\n", text(6), text(3))
		switch r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "    <!-- note %d: %s -->\n", i, text(3))
		case 1:
			fmt.Fprintf(&b, "    <code><![CDATA[if a < b && c > d { x[y] = %d }]]></code>\n", r.IntN(100))
		case 2:
			b.WriteString("    <flag/>\n")
		default:
			fmt.Fprintf(&b, "    <tags><tag>%s</tag><tag>%s</tag></tags>\n", text(1), text(1))
		}
		b.WriteString("  </item>\n")
	}
	b.WriteString("</catalog>\n")
	return []byte(b.String())
}

// scaleCSV builds a seeded CSV of about size bytes whose fields are often
// quoted, with commas, doubled quotes and line breaks inside the quotes.
func scaleCSV(size int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 18))
	words := []string{"alpha", "beta", "gamma", "delta", "über", "naïve", "東京", "x/y", "a-b"}
	var b strings.Builder
	b.WriteString("id,name,comment,amount,note\r\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%d,", i)
		fmt.Fprintf(&b, "\"%s, %s\",", words[r.IntN(len(words))], words[r.IntN(len(words))])
		fmt.Fprintf(&b, "\"she said \"\"%s\"\"\nand left\",", words[r.IntN(len(words))])
		fmt.Fprintf(&b, "%d.%02d,", r.IntN(10000), r.IntN(100))
		if r.IntN(3) == 0 {
			b.WriteString("\"\"")
		} else {
			b.WriteString(words[r.IntN(len(words))])
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

// exprlangInputs returns n random inputs of the exprlang grammar from
// synth's generator, as `eval E4` makes them.
func exprlangInputs(t testing.TB, n int) (*grammar.Graph, [][]byte) {
	g, err := datasets.Grammar("exprlang")
	if err != nil {
		t.Fatal(err)
	}
	gen := synth.NewGenerator(g, synth.NewRandom(1000), synth.RandomPolicy)
	ins := make([][]byte, n)
	for i := range ins {
		ins[i] = []byte(gen.Generate().String())
	}
	return g, ins
}

func scaleGrammar(t testing.TB, name string) *grammar.Graph {
	g, err := datasets.Grammar(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestWriteScaleInputs writes the benchmark documents to $ARBOR_SCALE_OUT.
func TestWriteScaleInputs(t *testing.T) {
	dir := os.Getenv("ARBOR_SCALE_OUT")
	if dir == "" {
		t.Skip("ARBOR_SCALE_OUT is not set")
	}
	_, ex := exprlangInputs(t, 200)
	for name, data := range map[string][]byte{
		"scale.xml":      scaleXML(1<<20, 1),
		"scale.csv":      scaleCSV(1<<20, 1),
		"exprlang.txt":   []byte(strings.Join(byteStrings(ex), "\x00")),
		"exprlang-1.txt": ex[0],
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func byteStrings(bs [][]byte) []string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = string(b)
	}
	return s
}

// BenchmarkScale: Parse (the tree) and ParseLazy (no tree where the
// deterministic parser applies) on the three workloads.
func BenchmarkScale(b *testing.B) {
	xml, csv := scaleGrammar(b, "xml"), scaleGrammar(b, "csv")
	docs := []struct {
		name string
		g    *grammar.Graph
		in   []byte
	}{
		{"xml-1MB", xml, scaleXML(1<<20, 1)},
		{"csv-quoted-1MB", csv, scaleCSV(1<<20, 1)},
	}
	for _, d := range docs {
		if _, err := d.g.Parse(d.in); err != nil {
			b.Fatalf("%s: %v", d.name, err)
		}
		b.Run(d.name+"/tree", func(b *testing.B) {
			allocPerByte(b, len(d.in), func() {
				if _, err := d.g.Parse(d.in); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(d.name+"/lazy", func(b *testing.B) {
			allocPerByte(b, len(d.in), func() {
				if _, err := d.g.ParseLazy(d.in, 1); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
	eg, ex := exprlangInputs(b, 200)
	total := 0
	for _, in := range ex {
		total += len(in)
	}
	b.Run("exprlang-200-random", func(b *testing.B) {
		allocPerByte(b, total, func() {
			for _, in := range ex {
				if _, err := eg.ParseAll(in, grammar.DefaultTreeLimit); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(len(ex)), "ms/input")
	})
}

// allocPerByte runs f b.N times and reports MB/s and the bytes allocated
// per run and input byte.
func allocPerByte(b *testing.B, size int, f func()) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		f()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(size), "B/input-byte")
}
