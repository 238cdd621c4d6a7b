module example.com/covtest

go 1.24
