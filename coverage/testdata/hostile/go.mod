module example.com/hostile

go 1.24
