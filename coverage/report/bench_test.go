package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The synthetic reports have 1,000 functions in 50 files, 10 lines each.
const benchFuncs, benchFiles = 1000, 50

func lcovReport() []byte {
	var b bytes.Buffer
	per := benchFuncs / benchFiles
	for f := 0; f < benchFiles; f++ {
		fmt.Fprintf(&b, "TN:\nSF:src/file%d.c\n", f)
		for i := 0; i < per; i++ {
			fmt.Fprintf(&b, "FN:%d,func_%d_%d\nFNDA:%d,func_%d_%d\n", i*10+1, f, i, i%3, f, i)
		}
		for l := 1; l <= per*10; l++ {
			fmt.Fprintf(&b, "DA:%d,%d\n", l, l%4)
		}
		fmt.Fprintf(&b, "FNF:%d\nFNH:%d\nLF:%d\nLH:%d\nend_of_record\n", per, per*2/3, per*10, per*10*3/4)
	}
	return b.Bytes()
}

func gcovJSONReport() []byte {
	var b bytes.Buffer
	per := benchFuncs / benchFiles
	b.WriteString(`{"gcc_version": "12.2.0", "format_version": "1", "data_file": "x.gcda", "files": [`)
	for f := 0; f < benchFiles; f++ {
		if f > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"file": "src/file%d.c", "functions": [`, f)
		for i := 0; i < per; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `{"blocks": 4, "end_column": 1, "start_line": %d, "name": "func_%d_%d", "blocks_executed": 2, "execution_count": %d, "demangled_name": "func_%d_%d", "start_column": 5, "end_line": %d}`, i*10+1, f, i, i%3, f, i, i*10+9)
		}
		b.WriteString(`], "lines": [`)
		for l := 1; l <= per*10; l++ {
			if l > 1 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `{"branches": [], "count": %d, "line_number": %d, "unexecuted_block": false, "function_name": "func_%d_%d"}`, l%4, l, f, (l-1)/10)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

func coveragePyReport() []byte {
	var b bytes.Buffer
	per := benchFuncs / benchFiles
	b.WriteString(`{"meta": {"version": "7.6.1"}, "files": {`)
	for f := 0; f < benchFiles; f++ {
		if f > 0 {
			b.WriteString(", ")
		}
		var exe, miss []string
		for l := 1; l <= per*10; l++ {
			if l%4 == 0 {
				miss = append(miss, fmt.Sprint(l))
			} else {
				exe = append(exe, fmt.Sprint(l))
			}
		}
		fmt.Fprintf(&b, `"pkg/mod%d.py": {"executed_lines": [%s], "missing_lines": [%s], "excluded_lines": [], "functions": {`, f, strings.Join(exe, ", "), strings.Join(miss, ", "))
		for i := 0; i < per; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"C.m%d": {"executed_lines": [%d, %d], "missing_lines": [%d], "excluded_lines": []}`, i, i*10+2, i*10+3, i*10+4)
		}
		b.WriteString("}}")
	}
	b.WriteString("}}\n")
	return b.Bytes()
}

func jacocoReport() []byte {
	var b bytes.Buffer
	per := benchFuncs / benchFiles
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="bench"><package name="org/bench">`)
	for f := 0; f < benchFiles; f++ {
		fmt.Fprintf(&b, `<class name="org/bench/C%d" sourcefilename="C%d.java">`, f, f)
		for i := 0; i < per; i++ {
			fmt.Fprintf(&b, `<method name="m%d" desc="(ILjava/lang/String;)V" line="%d"><counter type="INSTRUCTION" missed="1" covered="%d"/><counter type="LINE" missed="0" covered="2"/><counter type="COMPLEXITY" missed="0" covered="1"/><counter type="METHOD" missed="%d" covered="%d"/></method>`, i, i*10+1, i%3, 1-i%2, i%2)
		}
		b.WriteString(`<counter type="METHOD" missed="10" covered="10"/></class>`)
	}
	for f := 0; f < benchFiles; f++ {
		fmt.Fprintf(&b, `<sourcefile name="C%d.java">`, f)
		for l := 1; l <= per*10; l++ {
			fmt.Fprintf(&b, `<line nr="%d" mi="1" ci="%d" mb="0" cb="0"/>`, l, l%3)
		}
		b.WriteString(`</sourcefile>`)
	}
	b.WriteString(`</package></report>`)
	return b.Bytes()
}

func bench(b *testing.B, p parser, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := p(bytes.NewReader(data), "bench")
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Functions) != benchFuncs {
			b.Fatalf("%d functions, want %d", len(c.Functions), benchFuncs)
		}
	}
}

func BenchmarkParseLcov(b *testing.B)       { bench(b, ParseLcov, lcovReport()) }
func BenchmarkParseGcovJSON(b *testing.B)   { bench(b, ParseGcovJSON, gcovJSONReport()) }
func BenchmarkParseCoveragePy(b *testing.B) { bench(b, ParseCoveragePy, coveragePyReport()) }
func BenchmarkParseJaCoCo(b *testing.B)     { bench(b, ParseJaCoCo, jacocoReport()) }
