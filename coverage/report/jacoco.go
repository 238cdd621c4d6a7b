package report

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseJaCoCo reads JaCoCo's XML report (report.dtd, written by jacococli
// report --xml, the Maven and Gradle plugins and XMLFormatter): each
// method becomes a Function named
// "pkg.Class.method(int,java.lang.String)" (see JavaName), covered (Hits
// 1) when its METHOD counter, or, without one, its INSTRUCTION counter,
// has covered > 0; each sourcefile's lines are kept with Hits 1 where an
// instruction ran (ci > 0) and 0 otherwise. JaCoCo counts no executions,
// only covered or not. The report's DOCTYPE is not followed: nothing is
// fetched. name names the report in errors.
//
// It is one switch over the elements as they open and close, because
// they share where the decoder is (package, class, source file, the
// method and its counters): kept together, the nesting reads as the
// report's does.
func ParseJaCoCo(r io.Reader, name string) (*Coverage, error) {
	b := newBuilder("jacoco")
	dec := xml.NewDecoder(r)
	dec.Strict = true
	dec.Entity = nil // only XML's own entities; no DTD is read or fetched
	var (
		pkg, class, source string
		method             *Function
		methodCounters     [2]int64 // METHOD covered, INSTRUCTION covered; -1 if absent
		file               string   // the sourcefile element's path
		depth              int
		sawReport          bool
	)
	fail := func(format string, args ...any) error {
		line, col := dec.InputPos()
		return fmt.Errorf("%s:%d:%d: %s", name, line, col, fmt.Sprintf(format, args...))
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("%s:%d: %s", name, se.Line, se.Msg)
			}
			return nil, fail("%v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > 1000 {
				return nil, fail("elements nested too deeply")
			}
			attr := func(n string) string {
				for _, a := range t.Attr {
					if a.Name.Local == n {
						return a.Value
					}
				}
				return ""
			}
			switch t.Name.Local {
			case "report":
				sawReport = true
			case "package":
				pkg = attr("name")
			case "class":
				class = attr("name")
				source = attr("sourcefilename")
				if class == "" {
					return nil, fail("a class without a name")
				}
			case "method":
				if class == "" {
					return nil, fail("a method outside a class")
				}
				n, desc := attr("name"), attr("desc")
				if n == "" {
					return nil, fail("a method without a name in %s", class)
				}
				jn, err := JavaName(class, n, desc)
				if err != nil {
					return nil, fail("%v", err)
				}
				ln := 0
				if s := attr("line"); s != "" {
					if ln, err = lineNumber(s); err != nil {
						return nil, fail("method %s: %v", jn, err)
					}
				}
				f := b.function("", n+desc+"\x00"+class)
				f.Name, f.Symbol, f.Line = jn, n+desc, ln
				if source != "" {
					f.File = joinPkg(pkg, source)
				}
				method, methodCounters = f, [2]int64{-1, -1}
			case "counter":
				if method == nil {
					break
				}
				cov, err := strconv.ParseInt(attr("covered"), 10, 64)
				if err != nil || cov < 0 {
					return nil, fail("counter: covered %.20q", attr("covered"))
				}
				switch attr("type") {
				case "METHOD":
					methodCounters[0] = cov
				case "INSTRUCTION":
					methodCounters[1] = cov
				}
			case "sourcefile":
				file = joinPkg(pkg, attr("name"))
				b.file(file)
			case "line":
				if file == "" {
					break
				}
				nr, err := lineNumber(attr("nr"))
				if err != nil {
					return nil, fail("line: %v", err)
				}
				ci, err := strconv.ParseInt(attr("ci"), 10, 64)
				if err != nil || ci < 0 {
					return nil, fail("line %d: ci %.20q", nr, attr("ci"))
				}
				var hits uint64
				if ci > 0 {
					hits = 1
				}
				m := b.lines[b.file(file)]
				if hits > m[nr] {
					m[nr] = hits
				} else if _, ok := m[nr]; !ok {
					m[nr] = 0
				}
			}
		case xml.EndElement:
			depth--
			switch t.Name.Local {
			case "method":
				if method != nil {
					c := methodCounters[0]
					if c < 0 {
						c = methodCounters[1]
					}
					if c > 0 {
						method.Hits = 1
					}
				}
				method = nil
			case "class":
				class, source = "", ""
			case "package":
				pkg = ""
			case "sourcefile":
				file = ""
			}
		}
	}
	if !sawReport {
		return nil, fmt.Errorf("%s: no report element: not a JaCoCo XML report", name)
	}
	return b.done(), nil
}

func joinPkg(pkg, file string) string {
	if pkg == "" {
		return file
	}
	return pkg + "/" + file
}

// JavaName forms a method's name from its class's internal name
// ("org/x/Parser$Inner"), its name and its descriptor
// ("(I[Ljava/lang/String;)V"): "org.x.Parser$Inner.parse(int,java.lang.String[])".
// The return type is left out, as in Java source, where overloads differ in
// parameters only; constructors and static initializers keep the JVM's names
// <init> and <clinit>.
func JavaName(class, method, desc string) (string, error) {
	var sb strings.Builder
	sb.WriteString(strings.ReplaceAll(class, "/", "."))
	sb.WriteByte('.')
	sb.WriteString(method)
	if desc == "" {
		return sb.String(), nil
	}
	if desc[0] != '(' {
		return "", fmt.Errorf("method %s: descriptor %.40q does not start with (", method, desc)
	}
	sb.WriteByte('(')
	i := 1
	for n := 0; ; n++ {
		if i >= len(desc) {
			return "", fmt.Errorf("method %s: descriptor %.40q has no )", method, desc)
		}
		if desc[i] == ')' {
			break
		}
		if n > 0 {
			sb.WriteByte(',')
		}
		dims := 0
		for i < len(desc) && desc[i] == '[' {
			dims++
			i++
		}
		if i >= len(desc) {
			return "", fmt.Errorf("method %s: descriptor %.40q ends in an array type", method, desc)
		}
		switch c := desc[i]; c {
		case 'L':
			end := strings.IndexByte(desc[i:], ';')
			if end < 2 {
				return "", fmt.Errorf("method %s: descriptor %.40q: bad class type", method, desc)
			}
			sb.WriteString(strings.ReplaceAll(desc[i+1:i+end], "/", "."))
			i += end + 1
		default:
			p := javaPrimitive(c)
			if p == "" {
				return "", fmt.Errorf("method %s: descriptor %.40q: bad type %q", method, desc, c)
			}
			sb.WriteString(p)
			i++
		}
		for ; dims > 0; dims-- {
			sb.WriteString("[]")
		}
	}
	sb.WriteByte(')')
	return sb.String(), nil
}

func javaPrimitive(c byte) string {
	switch c {
	case 'B':
		return "byte"
	case 'C':
		return "char"
	case 'D':
		return "double"
	case 'F':
		return "float"
	case 'I':
		return "int"
	case 'J':
		return "long"
	case 'S':
		return "short"
	case 'Z':
		return "boolean"
	}
	return ""
}
