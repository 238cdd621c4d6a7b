// Package cron is the "cron" subject: github.com/robfig/cron/v3.
package cron

import (
	"time"

	"github.com/robfig/cron/v3"
)

// The parser a scheduler accepting Quartz-style seconds would configure.
// A Parser holds only its options: sharing it is safe.
var parser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// start is a fixed instant, so that activation times are deterministic.
var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Run parses the spec, computes its next five activations from a fixed
// start, inspects the schedule it became, and parses the spec again as a
// standard five-field one.
func Run(data []byte) error {
	spec := string(data)
	s, err := parser.Parse(spec)
	if err != nil {
		return err
	}
	t := start
	for i := 0; i < 5; i++ {
		next := s.Next(t)
		if next.IsZero() {
			break // never fires within the library's search horizon
		}
		t = next
	}
	switch x := s.(type) {
	case *cron.SpecSchedule:
		_ = x.Second | x.Minute | x.Hour | x.Dom | x.Month | x.Dow
		_ = x.Location.String()
	case cron.ConstantDelaySchedule:
		_ = x.Delay.String()
	}
	// The standard dialect has no seconds field; rejection is expected
	// for six-field specs.
	if std, err := cron.ParseStandard(spec); err == nil {
		_ = std.Next(start)
	}
	return nil
}
