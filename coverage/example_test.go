package coverage_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/arbor-fuzz/arbor/coverage"
)

func ExampleReadFile() {
	dir, _ := os.MkdirTemp("", "cov")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "cov.jsonl")
	os.WriteFile(path, []byte(`{"arbor":"coverage","version":1,"subject":"p","functions":["p.A","p.B"]}
{"input":"1","sha256":"aa","covered":[0],"outcome":"ok","ms":0.01}
{"input":"2","sha256":"bb","covered":[0,1],"outcome":"ok","ms":0.02}
{"input":"3","sha256":"cc","covered":[],"outcome":"error","ms":0.01,"error":"bad input"}
`), 0o644)
	f, err := coverage.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, inputs := range f.Matrix() {
		fmt.Printf("%s ran for %d of %d inputs\n", f.Functions[i], inputs.Count(), len(f.Records))
	}
	// Output:
	// p.A ran for 2 of 3 inputs
	// p.B ran for 1 of 3 inputs
}
