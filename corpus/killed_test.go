package corpus

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// killedInput is input i of TestWriterKilled's writer: large, so that
// a kill often lands while a file is written.
func killedInput(i int) []byte {
	return bytes.Repeat([]byte(strconv.Itoa(i)+";"), 1<<15)
}

// TestMain runs the writer TestWriterKilled kills when it is asked to.
func TestMain(m *testing.M) {
	if out := os.Getenv("ARBOR_TEST_CORPUS_WRITER"); out != "" {
		w := NewWriter(out, Layout{}, UnknownCount, false)
		for i := 0; ; i++ {
			if err := w.Write(string(killedInput(i)), nil); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
	os.Exit(m.Run())
}

// TestWriterKilled kills a process writing inputs into a folder
// (SIGKILL, at seeded random moments): every file it leaves is an input
// whole, never an empty or cut one, which would read as an input it did
// not write.
func TestWriterKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	r := rand.New(rand.NewPCG(7, 7))
	dir := t.TempDir()
	for k := range 8 {
		out := filepath.Join(dir, strconv.Itoa(k))
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "ARBOR_TEST_CORPUS_WRITER="+out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50*time.Millisecond + time.Duration(r.Int64N(int64(200*time.Millisecond))))
		cmd.Process.Kill()
		cmd.Wait()
		files, err := List(out)
		if err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		for i, f := range files {
			got, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if want := killedInput(i); !bytes.Equal(got, want) {
				t.Fatalf("kill %d: %s holds %d bytes, not input %d's %d", k, filepath.Base(f), len(got), i, len(want))
			}
		}
		t.Logf("kill %d: %d files, each whole", k, len(files))
	}
}
