package grammar

// table is an open-addressing hash table from items to int32 values.
type table struct {
	slots []tslot
	used  []int32 // indexes of used slots, for a cheap reset
}

type tslot struct {
	k item // node+1 in k marks the slot used
	v int32
}

func (t *table) init() { t.slots = make([]tslot, 64) }

func hashItem(it item) uint64 {
	h := (uint64(uint32(it.node))<<32 | uint64(uint32(it.origin))) * 0x9E3779B97F4A7C15
	h ^= uint64(uint32(it.dot)) * 0xC2B2AE3D27D4EB4F
	return h ^ h>>29
}

func (t *table) reset() {
	for _, i := range t.used {
		t.slots[i] = tslot{}
	}
	t.used = t.used[:0]
}

// lookup finds it's slot, inserting it with value -1 if absent.
func (t *table) lookup(it item) (s *tslot, inserted bool) {
	if 2*len(t.used) >= len(t.slots) {
		t.grow()
	}
	k := item{it.node + 1, it.dot, it.origin}
	mask := uint64(len(t.slots) - 1)
	for h := hashItem(it) & mask; ; h = (h + 1) & mask {
		s := &t.slots[h]
		switch s.k {
		case k:
			return s, false
		case item{}:
			s.k, s.v = k, -1
			t.used = append(t.used, int32(h))
			return s, true
		}
	}
}

func (t *table) find(it item) *tslot {
	k := item{it.node + 1, it.dot, it.origin}
	mask := uint64(len(t.slots) - 1)
	for h := hashItem(it) & mask; ; h = (h + 1) & mask {
		s := &t.slots[h]
		switch s.k {
		case k:
			return s
		case item{}:
			return nil
		}
	}
}

func (t *table) grow() {
	old, oldUsed := t.slots, t.used
	t.slots = make([]tslot, 2*len(old))
	t.used = make([]int32, 0, 2*len(oldUsed))
	for _, i := range oldUsed {
		s := old[i]
		n, _ := t.lookup(item{s.k.node - 1, s.k.dot, s.k.origin})
		n.v = s.v
	}
}
