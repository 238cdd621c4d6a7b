package datasets_test

import (
	"testing"
)

// TestCronConstraints checks the cron grammar's where clauses on
// schedules of robfig/cron's documented format: the documentation's
// examples hold them, ranges that run backwards break them, and month
// and day names compare by their place in the calendar.
func TestCronConstraints(t *testing.T) {
	checkConstraints(t, "cron", []constraintCase{
		// The documentation's examples.
		{"3-59/15 * * * *", nil},
		{"0 9-17 * * *", nil},
		{"0 0 * * MON,WED,FRI", nil},
		{"CRON_TZ=Asia/Tokyo 30 04 * * *", nil},
		{"@every 1h30m10s", nil},
		{"@monthly", nil},
		// A range of one value, leading zeros, names in any case.
		{"5-5 09-10 1-31 1-12 0-6", nil},
		{"0 30 9 * JAN-mar sun", nil},
		{"0 0 1 Feb-Dec Mon-sat", nil},
		{"0 0 1 feb-12 0-Sat", nil},
		{"0 0 1 1-DEC 1-sat", nil},
		{"* * * * * ?", nil},
		// A backward range in each field.
		{"59-0 * * * * *", []string{"where SecondItem"}},
		{"0 30-15 * * * *", []string{"where MinuteItem"}},
		{"0 0 17-9 * * *", []string{"where HourItem"}},
		{"0 0 0 31-1 * *", []string{"where DomItem"}},
		{"0 0 0 1 12-1 *", []string{"where MonthItem"}},
		{"0 0 0 1 DEC-JAN *", []string{"where MonthItem"}},
		{"0 0 0 1 dec-3 *", []string{"where MonthItem"}},
		{"0 0 0 1 10-Mar *", []string{"where MonthItem"}},
		{"0 0 0 * * 6-0", []string{"where DowItem"}},
		{"0 0 0 * * SAT-SUN", []string{"where DowItem"}},
		{"0 0 0 * * fri-Mon", []string{"where DowItem"}},
		{"0 0 0 * * 5-mon", []string{"where DowItem"}},
		// Only the backward item of a list breaks the clause.
		{"1-2,9-3/2 * * * *", []string{"where MinuteItem"}},
	})
}
