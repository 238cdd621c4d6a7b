// Package xml is the "xml" subject: encoding/xml.
package xml

import (
	"bytes"
	"encoding/xml"
	"io"
)

type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Content string     `xml:",chardata"`
	Nodes   []node     `xml:",any"`
}

// Run reads the document token by token, copying it to an encoder, then
// unmarshals it into a generic tree and marshals that again.
func Run(data []byte) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var out bytes.Buffer
	e := xml.NewEncoder(&out)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.ProcInst:
			if t.Target == "xml" {
				continue // the encoder writes only one, first
			}
		case xml.Directive:
			continue
		}
		if err := e.EncodeToken(xml.CopyToken(tok)); err != nil {
			return err
		}
	}
	if err := e.Flush(); err != nil {
		return err
	}
	var root node
	if err := xml.Unmarshal(data, &root); err != nil {
		return err
	}
	_, err := xml.MarshalIndent(root, "", " ")
	return err
}
