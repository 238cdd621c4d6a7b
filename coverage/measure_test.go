package coverage_test

import (
	"slices"
	"time"
)

// median is the median of the durations (the upper one of an even
// count), for the harnesses' measurements.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// symDiff lists the names in only one of two sorted lists: "+name" for
// a's, "-name" for b's.
func symDiff(a, b []string) []string {
	var d []string
	for _, n := range a {
		if _, ok := slices.BinarySearch(b, n); !ok {
			d = append(d, "+"+n)
		}
	}
	for _, n := range b {
		if _, ok := slices.BinarySearch(a, n); !ok {
			d = append(d, "-"+n)
		}
	}
	return d
}
