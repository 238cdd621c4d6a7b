module github.com/arbor-fuzz/arbor/datasets/subjects

go 1.24.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/Knetic/govaluate v3.0.0+incompatible
	github.com/expr-lang/expr v1.17.8
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/robfig/cron/v3 v3.0.1
	github.com/tdewolff/parse/v2 v2.8.20
	github.com/tidwall/gjson v1.20.0
	github.com/valyala/fastjson v1.6.10
	github.com/vektah/gqlparser/v2 v2.5.30
	github.com/yuin/goldmark v1.8.7
	golang.org/x/net v0.45.0
	gopkg.in/ini.v1 v1.67.3
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/agnivade/levenshtein v1.2.1 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
)
