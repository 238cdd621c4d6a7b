package grammar

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// realisticJSON builds a seeded JSON document of about size bytes: an
// indented array of user records with nested objects, arrays, numbers of
// every form, escapes and non-ASCII text.
func realisticJSON(size int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	words := []string{"alpha", "beta", "gamma", "delta", "über", "naïve", "東京", "emoji 🎉", `quote "q"`, "tab\there", "line\nbreak", `back\slash`, "x/y"}
	text := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = words[r.IntN(len(words))]
		}
		return strings.Join(parts, " ")
	}
	type address struct {
		Street string    `json:"street"`
		City   string    `json:"city"`
		Zip    string    `json:"zip"`
		Geo    []float64 `json:"geo"`
	}
	type record struct {
		ID      int            `json:"id"`
		Name    string         `json:"name"`
		Email   string         `json:"email"`
		Active  bool           `json:"active"`
		Score   float64        `json:"score"`
		Balance float64        `json:"balance"`
		Tags    []string       `json:"tags"`
		Address address        `json:"address"`
		Friends []int          `json:"friends"`
		Bio     string         `json:"bio"`
		Extra   map[string]any `json:"extra"`
		Parent  *int           `json:"parent"`
	}
	var recs []record
	total := 0
	for total < size {
		rec := record{
			ID: r.IntN(1000000), Name: text(2), Email: fmt.Sprintf("user%d@example.com", r.IntN(10000)),
			Active: r.IntN(2) == 0, Score: r.Float64() * 100, Balance: -r.Float64() * 1e6,
			Tags:    []string{text(1), text(1)},
			Address: address{Street: text(3), City: text(1), Zip: fmt.Sprintf("%05d", r.IntN(99999)), Geo: []float64{r.Float64()*180 - 90, r.Float64()*360 - 180}},
			Friends: []int{r.IntN(100), r.IntN(100), r.IntN(100)},
			Bio:     text(12),
			Extra:   map[string]any{"visits": r.IntN(500), "ratio": 1e-7 * r.Float64(), "note": nil},
		}
		b, _ := json.Marshal(rec)
		total += len(b) + 40 // indentation adds about this much
		recs = append(recs, rec)
	}
	out, _ := json.MarshalIndent(recs, "", "  ")
	return out
}

// smallJSONCorpus returns n small JSON documents of varied shapes.
func smallJSONCorpus(n int) [][]byte {
	r := rand.New(rand.NewPCG(2, 2))
	docs := make([][]byte, n)
	for i := range docs {
		var v any
		switch i % 5 {
		case 0:
			v = map[string]any{"id": r.IntN(1000), "ok": r.IntN(2) == 0, "name": fmt.Sprintf("n%d", r.IntN(100))}
		case 1:
			v = []any{r.Float64(), -r.IntN(100), "s\u00e9", nil, []int{1, 2}}
		case 2:
			v = fmt.Sprintf("line %d\nwith \"quotes\"", r.IntN(100))
		case 3:
			v = map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": r.Float64() * 1e10}}}}
		default:
			v = r.IntN(1 << 30)
		}
		docs[i], _ = json.Marshal(v)
	}
	return docs
}

// nodeCounter is a Visitor that only counts, so that benchmarks of
// visiting measure the parse's side.
type nodeCounter struct{ n int }

func (c *nodeCounter) Enter(*Node, string) { c.n++ }
func (c *nodeCounter) Leave(*Node)         {}

func BenchmarkJSON(b *testing.B) {
	g := bundled(b, "json")
	big := realisticJSON(1<<20, 1)
	small := smallJSONCorpus(10000)
	smallBytes := 0
	for _, d := range small {
		smallBytes += len(d)
	}
	// Sanity: both parsers accept every input before timing them.
	for _, d := range append(small, big) {
		if !json.Valid(d) {
			b.Fatal("encoding/json rejects a generated input")
		}
		if _, err := g.Parse(d); err != nil {
			b.Fatalf("arbor rejects a generated input: %v", err)
		}
	}
	b.Run("1MB/arbor", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := g.Parse(big); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("1MB/encoding-json-Valid", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		for i := 0; i < b.N; i++ {
			if !json.Valid(big) {
				b.Fatal("invalid")
			}
		}
	})
	// The reusable parser: the tree (or the record) of each input in the
	// memory of the one before. Its ParseLazy records the small inputs;
	// the 1 MB document's tree is too large to record (lazyRecordMax),
	// so there it checks, and Visit parses again.
	parser := g.NewParser()
	b.Run("1MB/arbor-Parser.Parse", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := parser.Parse(big); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("1MB/arbor-ParseLazy-check", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := g.ParseLazy(big, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("1MB/arbor-Graph.ParseLazy+Visit", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		var v nodeCounter
		for i := 0; i < b.N; i++ {
			p, err := g.ParseLazy(big, 1)
			if err != nil {
				b.Fatal(err)
			}
			p.Visit(0, &v)
		}
	})
	b.Run("1MB/arbor-Parser.ParseLazy+Visit", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		var v nodeCounter
		for i := 0; i < b.N; i++ {
			p, err := parser.ParseLazy(big, 1)
			if err != nil {
				b.Fatal(err)
			}
			p.Visit(0, &v)
		}
	})
	b.Run("1MB/arbor-Parser.ParseLazy", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := parser.ParseLazy(big, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("10k-small/arbor", func(b *testing.B) {
		b.SetBytes(int64(smallBytes))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, d := range small {
				if _, err := g.Parse(d); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("10k-small/arbor-Parser.Parse", func(b *testing.B) {
		b.SetBytes(int64(smallBytes))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, d := range small {
				if _, err := parser.Parse(d); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("10k-small/arbor-ParseLazy-check", func(b *testing.B) {
		b.SetBytes(int64(smallBytes))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, d := range small {
				if _, err := g.ParseLazy(d, 1); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("10k-small/arbor-Graph.ParseLazy+Visit", func(b *testing.B) {
		b.SetBytes(int64(smallBytes))
		b.ReportAllocs()
		var v nodeCounter
		for i := 0; i < b.N; i++ {
			for _, d := range small {
				p, err := g.ParseLazy(d, 1)
				if err != nil {
					b.Fatal(err)
				}
				p.Visit(0, &v)
			}
		}
	})
	b.Run("10k-small/arbor-Parser.ParseLazy+Visit", func(b *testing.B) {
		b.SetBytes(int64(smallBytes))
		b.ReportAllocs()
		var v nodeCounter
		for i := 0; i < b.N; i++ {
			for _, d := range small {
				p, err := parser.ParseLazy(d, 1)
				if err != nil {
					b.Fatal(err)
				}
				p.Visit(0, &v)
			}
		}
	})
	b.Run("10k-small/arbor-Parser.ParseLazy", func(b *testing.B) {
		b.SetBytes(int64(smallBytes))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, d := range small {
				if _, err := parser.ParseLazy(d, 1); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("10k-small/encoding-json-Valid", func(b *testing.B) {
		b.SetBytes(int64(smallBytes))
		for i := 0; i < b.N; i++ {
			for _, d := range small {
				if !json.Valid(d) {
					b.Fatal("invalid")
				}
			}
		}
	})
}

// BenchmarkJSONScaling shows that time and memory grow linearly with input size.
func BenchmarkJSONScaling(b *testing.B) {
	g := bundled(b, "json")
	for _, size := range []int{64 << 10, 256 << 10, 1 << 20, 4 << 20} {
		in := realisticJSON(size, 3)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := g.Parse(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGeneralParser measures the Earley parser alone, which grammars
// with lookahead conflicts (and JSON, were it not deterministic) rely on.
func BenchmarkGeneralParser(b *testing.B) {
	g := bundled(b, "json")
	in := realisticJSON(64<<10, 4)
	b.Run("json-64KB", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := g.parseGeneral(in, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	e := bundled(b, "expr")
	r := rand.New(rand.NewPCG(5, 5))
	var exprs [][]byte
	for len(exprs) < 200 {
		exprs = append(exprs, []byte(randomTree(e, r, 12).String()))
	}
	b.Run("expr-200-inputs", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, in := range exprs {
				if _, err := e.Parse(in); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
