package coverage

import (
	"encoding/binary"
	"runtime"
	"testing"
)

// craftedMeta is a meta-data file of one package whose funcs functions
// all point at one function of units units: each function's units take
// their bytes, but the file holds them once.
func craftedMeta(funcs, units int) []byte {
	le := binary.LittleEndian
	// The package: header, function offsets, string table, one function.
	var pkg []byte
	pkg = le.AppendUint32(pkg, 0) // length, set below
	pkg = le.AppendUint32(pkg, 0) // name, path, module: string 0
	pkg = le.AppendUint32(pkg, 0)
	pkg = le.AppendUint32(pkg, 0)
	pkg = append(pkg, make([]byte, 16+1+3)...)
	pkg = le.AppendUint32(pkg, 1) // files
	pkg = le.AppendUint32(pkg, uint32(funcs))
	fn := len(pkg) + 4*funcs + 3 // after the offsets and the string table "a"
	for range funcs {
		pkg = le.AppendUint32(pkg, uint32(fn))
	}
	pkg = append(pkg, 1, 1, 'a')
	pkg = binary.AppendUvarint(pkg, uint64(units))
	pkg = append(pkg, 0, 0) // name, file
	pkg = append(pkg, make([]byte, 5*units)...)
	pkg = append(pkg, 0) // not a literal
	le.PutUint32(pkg, uint32(len(pkg)))

	var b []byte
	b = append(b, metaMagic[:]...)
	b = le.AppendUint32(b, 1)
	const header = 56 + 16
	b = le.AppendUint64(b, uint64(header+len(pkg)))
	b = le.AppendUint64(b, 1)
	b = append(b, make([]byte, 16+4+4+1+1+6)...)
	b = le.AppendUint64(b, header)
	b = le.AppendUint64(b, uint64(len(pkg)))
	return append(b, pkg...)
}

// TestDecodeMetaBounded (issue 29, item 11): the subject writes where
// the harness keeps its coverage files, so a meta-data file is untrusted
// bytes. Functions that all point at one function's bytes must not make
// the decoder hold their units many times over: memory stays in
// proportion to the file.
func TestDecodeMetaBounded(t *testing.T) {
	if m, err := DecodeMeta(craftedMeta(3, 4)); err != nil || len(m.Packages) != 1 || len(m.Packages[0].Funcs) != 3 {
		t.Fatalf("a small crafted file: %+v, %v; want 3 functions", m, err)
	}
	b := craftedMeta(2500, 2000) // 20 KB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeMeta(b)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes: %v; %d bytes allocated", len(b), err, alloc)
	if alloc > 64*uint64(len(b)) {
		t.Errorf("a %d-byte meta-data file made the decoder allocate %d MB", len(b), alloc>>20)
	}
}

// FuzzDecodeMeta: whatever the bytes, DecodeMeta returns, without
// panicking.
func FuzzDecodeMeta(f *testing.F) {
	f.Add(craftedMeta(3, 4))
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeMeta(b)
	})
}

// FuzzDecodeCounters: whatever the bytes, DecodeCounters returns,
// without panicking, and hands out no more counters than the file has
// bytes.
func FuzzDecodeCounters(f *testing.F) {
	f.Add(append(append([]byte{}, counterMagic[:]...), make([]byte, 60)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeCounters(b, nil, func(pkg, fn uint32, counters []uint32) {
			if len(counters) > len(b) {
				t.Fatalf("%d counters from %d bytes", len(counters), len(b))
			}
		})
	})
}
