package report_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/arbor-fuzz/arbor/coverage/report"
)

func Example() {
	// What lcov --capture writes after one run of a C program.
	tracefile := `TN:
SF:/src/proj/lib/parse.c
FN:3,parse_value
FNDA:4,parse_value
FN:9,parse_string
FNDA:0,parse_string
DA:3,4
DA:9,0
end_of_record
`
	cov, err := report.ParseLcov(strings.NewReader(tracefile), "run.info")
	if err != nil {
		log.Fatal(err)
	}
	cov.Relative("/src/proj")
	for _, f := range cov.Covered() {
		fmt.Println(f.Name, f.Hits)
	}
	// Output:
	// lib/parse.c:parse_value 4
}
