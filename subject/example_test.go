package subject_test

import (
	"context"
	"fmt"

	"github.com/arbor-fuzz/arbor/subject"
)

func ExampleResolve() {
	s, err := subject.Resolve(context.Background(), subject.Spec{Go: "example.com/p.Parse", Grammar: "json"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name, s.GrammarName, s.Target.ImportPath, s.Target.Func)
	// Output: example.com/p.Parse json example.com/p Parse
}
