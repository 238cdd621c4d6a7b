module github.com/arbor-fuzz/arbor/datasets/subjects

go 1.24

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/Knetic/govaluate v3.0.0+incompatible
	github.com/expr-lang/expr v1.17.8
	github.com/tidwall/gjson v1.20.0
	github.com/valyala/fastjson v1.6.10
	github.com/yuin/goldmark v1.8.7
	gopkg.in/ini.v1 v1.67.3
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
)
