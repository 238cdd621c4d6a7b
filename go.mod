module github.com/arbor-fuzz/arbor

go 1.24
