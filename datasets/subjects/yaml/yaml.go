// Package yaml is the "yaml" subject: gopkg.in/yaml.v3.
package yaml

import (
	"gopkg.in/yaml.v3"
)

// Run decodes the document into a node tree and walks it (kinds, tags,
// styles, anchors and aliases, each scalar decoded into a typed value),
// decodes it into generic values, and encodes both back.
func Run(data []byte) error {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return err
	}
	walk(&root, 0)
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return err
	}
	if _, err := yaml.Marshal(&root); err != nil {
		return err
	}
	_, err := yaml.Marshal(v)
	return err
}

// walk visits every node; depth bounds it against alias cycles.
func walk(n *yaml.Node, depth int) {
	if n == nil || depth > 64 {
		return
	}
	_ = n.ShortTag()
	_ = n.Style&yaml.LiteralStyle != 0 || n.Style&yaml.FoldedStyle != 0 || n.Style&yaml.FlowStyle != 0
	_ = n.Anchor
	switch n.Kind {
	case yaml.ScalarNode:
		var x any
		_ = n.Decode(&x)
		var i int64
		_ = n.Decode(&i)
		var f float64
		_ = n.Decode(&f)
		var b bool
		_ = n.Decode(&b)
	case yaml.AliasNode:
		if n.Alias != nil {
			_ = n.Alias.Anchor
		}
		return
	case yaml.MappingNode:
		var m map[string]any
		_ = n.Decode(&m)
	}
	for _, c := range n.Content {
		walk(c, depth+1)
	}
}
