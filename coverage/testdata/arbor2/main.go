// Command arbor2 is a harness that speaks the ARBOR2 protocol (see
// HarnessTarget) about three made-up functions, for the Session's tests:
// the input's letters a, b, c name the functions that ran ("b" twice),
// "die" ends the process, "bad" names a function that does not exist and
// "odd" sends half a pair.
package main

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
	"strings"
)

func main() {
	in := bufio.NewReader(os.NewFile(3, "requests"))
	out := bufio.NewWriter(os.NewFile(4, "replies"))
	out.WriteString("ARBOR2\nok\n")
	blob(out, []byte("b\na\nc\n"))
	out.Flush()
	ids := map[rune]uint32{'b': 0, 'a': 1, 'c': 2}
	for {
		var hdr [21]byte // kind, the token, the input's length
		if _, err := io.ReadFull(in, hdr[:]); err != nil || hdr[0] == 'Q' {
			return
		}
		data := make([]byte, binary.LittleEndian.Uint32(hdr[17:]))
		if _, err := io.ReadFull(in, data); err != nil {
			return
		}
		s := string(data)
		if s == "die" {
			os.Exit(3)
		}
		var pairs []byte
		switch {
		case hdr[0] != 'R':
		case s == "bad":
			pairs = binary.LittleEndian.AppendUint32(pairs, 9)
			pairs = binary.LittleEndian.AppendUint32(pairs, 1)
		case s == "odd":
			pairs = []byte{1, 0, 0, 0}
		default:
			for _, r := range s {
				if id, ok := ids[r]; ok {
					pairs = binary.LittleEndian.AppendUint32(pairs, id)
					pairs = binary.LittleEndian.AppendUint32(pairs, 1+boolInt(r == 'b'))
				}
			}
		}
		outcome := byte(0)
		if strings.HasPrefix(s, "x") {
			outcome = 1
		}
		out.Write(hdr[1:17]) // the reply echoes the request's token
		out.WriteByte(outcome)
		out.Write(make([]byte, 8))
		blob(out, nil)
		blob(out, nil)
		blob(out, pairs)
		out.Flush()
	}
}

func boolInt(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func blob(w *bufio.Writer, b []byte) {
	w.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(b))))
	w.Write(b)
}
