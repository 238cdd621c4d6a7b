package coverage

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The formats below are Go's coverage meta-data and counter-data files,
// as written by runtime/coverage.WriteMeta and WriteCounters and
// documented in the Go distribution's internal/coverage package (which
// programs outside it cannot import). All integers are little-endian;
// "uleb" is unsigned LEB128.

var (
	metaMagic    = [4]byte{0x00, 0x63, 0x76, 0x6d}
	counterMagic = [4]byte{0x00, 0x63, 0x77, 0x6d}
)

const (
	metaFileHeaderSize   = 4 + 4 + 8 + 8 + 16 + 4 + 4 + 1 + 1 + 6 // MetaFileHeader
	metaSymbolHeaderSize = 4 + 4 + 4 + 4 + 16 + 1 + 3 + 4 + 4     // MetaSymbolHeader
	counterHeaderSize    = 4 + 4 + 16 + 1 + 1 + 6                 // CounterFileHeader
	segmentHeaderSize    = 8 + 4 + 4                              // CounterSegmentHeader
	counterFooterSize    = 4 + 4 + 4 + 4                          // CounterFileFooter

	flavorRaw  = 1
	flavorULEB = 2
)

// ErrFormat reports data that is not a well-formed coverage file.
var ErrFormat = errors.New("malformed coverage data")

// Meta is a program's coverage meta-data: its instrumented packages, in
// the order counter data refers to them.
type Meta struct {
	Hash     [16]byte
	Mode     uint8 // 1 set, 2 count, 3 atomic
	Packages []MetaPackage
}

// MetaPackage is one instrumented package.
type MetaPackage struct {
	Path, Name, Module string
	Funcs              []MetaFunc
}

// MetaFunc is one instrumented function; Lit marks a function literal
// (closure), named like its enclosing function plus ".funcN".
type MetaFunc struct {
	Name, File string
	Lit        bool
	Units      []Unit
}

// Unit is a coverable unit (basic block): its source span and statement count.
type Unit struct {
	StLine, StCol, EnLine, EnCol, NxStmts uint32
}

// reader reads a byte slice without ever panicking: the first read past
// the end sets err and later reads return zeros.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.off+n > len(r.b) || r.off+n < r.off {
		r.err = fmt.Errorf("%w: read past the end at offset %d", ErrFormat, r.off)
		return false
	}
	return true
}

func (r *reader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b
}

func (r *reader) u8() uint8 {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *reader) uleb() uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if !r.need(1) {
			return 0
		}
		c := r.b[r.off]
		r.off++
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		if c&0x80 == 0 {
			return v
		}
		if shift > 70 {
			r.err = fmt.Errorf("%w: overlong number at offset %d", ErrFormat, r.off)
			return 0
		}
	}
}

func (r *reader) seek(off int) {
	if r.err == nil && (off < 0 || off > len(r.b)) {
		r.err = fmt.Errorf("%w: offset %d outside %d bytes", ErrFormat, off, len(r.b))
		return
	}
	r.off = off
}

// stringTable reads a uleb count followed by uleb-length-prefixed strings.
func (r *reader) stringTable() []string {
	n := r.uleb()
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("%w: string table of %d entries in %d bytes", ErrFormat, n, len(r.b))
		return nil
	}
	out := make([]string, 0, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		l := r.uleb()
		if l > uint64(len(r.b)) {
			r.err = fmt.Errorf("%w: string of %d bytes", ErrFormat, l)
			return nil
		}
		out = append(out, string(r.bytes(int(l))))
	}
	return out
}

func lookup(tab []string, i uint64, r *reader) string {
	if i >= uint64(len(tab)) {
		if r.err == nil {
			r.err = fmt.Errorf("%w: string index %d of %d", ErrFormat, i, len(tab))
		}
		return ""
	}
	return tab[i]
}

// DecodeMeta decodes a meta-data file (runtime/coverage.WriteMeta).
func DecodeMeta(b []byte) (*Meta, error) {
	r := &reader{b: b}
	var magic [4]byte
	copy(magic[:], r.bytes(4))
	if r.err == nil && magic != metaMagic {
		return nil, fmt.Errorf("%w: not a coverage meta-data file", ErrFormat)
	}
	if v := r.u32(); r.err == nil && v != 1 {
		return nil, fmt.Errorf("%w: meta-data version %d (arbor reads version 1)", ErrFormat, v)
	}
	total := r.u64()
	entries := r.u64()
	m := &Meta{}
	copy(m.Hash[:], r.bytes(16))
	r.u32() // file string table offset
	r.u32() // its length
	m.Mode = r.u8()
	r.u8() // granularity
	r.bytes(6)
	if r.err != nil {
		return nil, r.err
	}
	if total != uint64(len(b)) || entries > uint64(len(b))/16 {
		return nil, fmt.Errorf("%w: header says %d bytes and %d packages, file has %d bytes", ErrFormat, total, entries, len(b))
	}
	offsets := make([]uint64, entries)
	lengths := make([]uint64, entries)
	for i := range offsets {
		offsets[i] = r.u64()
	}
	for i := range lengths {
		lengths[i] = r.u64()
	}
	for i := range offsets {
		if r.err != nil {
			return nil, r.err
		}
		if offsets[i] > total || lengths[i] > total-offsets[i] {
			return nil, fmt.Errorf("%w: package %d lies outside the file", ErrFormat, i)
		}
		p, err := decodePackage(b[offsets[i] : offsets[i]+lengths[i]])
		if err != nil {
			return nil, fmt.Errorf("package %d: %w", i, err)
		}
		m.Packages = append(m.Packages, *p)
	}
	return m, r.err
}

func decodePackage(b []byte) (*MetaPackage, error) {
	r := &reader{b: b}
	length := r.u32()
	pkgName, pkgPath, modPath := r.u32(), r.u32(), r.u32()
	r.bytes(16 + 1 + 3)
	r.u32() // number of files
	nfuncs := r.u32()
	if r.err != nil {
		return nil, r.err
	}
	if uint64(length) > uint64(len(b)) || uint64(nfuncs)*4 > uint64(len(b)) {
		return nil, fmt.Errorf("%w: package header says %d bytes and %d functions", ErrFormat, length, nfuncs)
	}
	offs := make([]uint32, nfuncs)
	for i := range offs {
		offs[i] = r.u32()
	}
	tab := r.stringTable()
	p := &MetaPackage{
		Name: lookup(tab, uint64(pkgName), r), Path: lookup(tab, uint64(pkgPath), r), Module: lookup(tab, uint64(modPath), r),
		Funcs: make([]MetaFunc, nfuncs),
	}
	// Each unit takes at least five bytes of its own function's encoding,
	// so the package's functions hold fewer units than it has bytes. A
	// forged file (the subject can write where the harness keeps them)
	// could point every function at one long one: its units, made once
	// per function, would take memory quadratic in the file's size.
	var allUnits uint64
	for i, off := range offs {
		r.seek(int(off))
		units := r.uleb()
		name, file := r.uleb(), r.uleb()
		if allUnits += units; units > uint64(len(b)) || allUnits > uint64(len(b)) {
			return nil, fmt.Errorf("%w: functions with %d units in a package of %d bytes", ErrFormat, allUnits, len(b))
		}
		f := MetaFunc{Name: lookup(tab, name, r), File: lookup(tab, file, r), Units: make([]Unit, units)}
		for u := range f.Units {
			f.Units[u] = Unit{uint32(r.uleb()), uint32(r.uleb()), uint32(r.uleb()), uint32(r.uleb()), uint32(r.uleb())}
		}
		f.Lit = r.uleb() != 0
		p.Funcs[i] = f
		if r.err != nil {
			return nil, r.err
		}
	}
	return p, r.err
}

// DecodeCounters decodes a counter-data file (runtime/coverage.WriteCounters)
// and calls f for every function payload: package index (into
// Meta.Packages), function index, and its counters (one per unit; the
// slice is reused between calls). metaHash, if not nil, must match the
// file's.
func DecodeCounters(b []byte, metaHash *[16]byte, f func(pkg, fn uint32, counters []uint32)) error {
	flavor, bigEndian, segments, err := counterFrame(b, metaHash)
	if err != nil {
		return err
	}
	body := &reader{b: b[:len(b)-counterFooterSize], off: counterHeaderSize}
	u32 := func() uint32 {
		switch {
		case flavor == flavorULEB:
			return uint32(body.uleb())
		case bigEndian:
			if x := body.bytes(4); x != nil {
				return binary.BigEndian.Uint32(x)
			}
			return 0
		}
		return body.u32()
	}
	var counters []uint32
	for s := uint32(0); s < segments; s++ {
		if s > 0 {
			body.bytes(counterFooterSize) // segments after the first follow a footer
		}
		entries := body.u64()
		strLen, argsLen := body.u32(), body.u32()
		body.bytes(int(strLen))
		body.bytes(int(argsLen))
		if rem := body.off % 4; rem != 0 {
			body.bytes(4 - rem)
		}
		if body.err != nil {
			return body.err
		}
		if entries > uint64(len(b)) {
			return fmt.Errorf("%w: segment with %d functions", ErrFormat, entries)
		}
		for i := uint64(0); i < entries; i++ {
			n := u32()
			pkg, fn := u32(), u32()
			if uint64(n) > uint64(len(b)) {
				return fmt.Errorf("%w: function with %d counters", ErrFormat, n)
			}
			counters = counters[:0]
			for c := uint32(0); c < n; c++ {
				counters = append(counters, u32())
			}
			if body.err != nil {
				return body.err
			}
			f(pkg, fn, counters)
		}
	}
	return nil
}

// counterFrame checks a counter-data file's header and footer, and
// returns how its counters are encoded and how many segments it has.
func counterFrame(b []byte, metaHash *[16]byte) (flavor uint8, bigEndian bool, segments uint32, err error) {
	r := &reader{b: b}
	var magic [4]byte
	copy(magic[:], r.bytes(4))
	if r.err == nil && magic != counterMagic {
		return 0, false, 0, fmt.Errorf("%w: not a coverage counter-data file", ErrFormat)
	}
	if v := r.u32(); r.err == nil && v != 1 {
		return 0, false, 0, fmt.Errorf("%w: counter-data version %d (arbor reads version 1)", ErrFormat, v)
	}
	var hash [16]byte
	copy(hash[:], r.bytes(16))
	flavor = r.u8()
	bigEndian = r.u8() != 0
	r.bytes(6)
	if r.err != nil {
		return 0, false, 0, r.err
	}
	if metaHash != nil && hash != *metaHash {
		return 0, false, 0, fmt.Errorf("%w: counter data of another program (meta-data hash differs)", ErrFormat)
	}
	if flavor != flavorRaw && flavor != flavorULEB {
		return 0, false, 0, fmt.Errorf("%w: unknown counter flavor %d", ErrFormat, flavor)
	}
	if len(b) < counterHeaderSize+counterFooterSize {
		return 0, false, 0, fmt.Errorf("%w: counter file of %d bytes", ErrFormat, len(b))
	}
	fr := &reader{b: b[len(b)-counterFooterSize:]}
	copy(magic[:], fr.bytes(4))
	fr.u32()
	segments = fr.u32()
	if magic != counterMagic || segments == 0 {
		return 0, false, 0, fmt.Errorf("%w: bad counter file footer", ErrFormat)
	}
	return flavor, bigEndian, segments, nil
}
