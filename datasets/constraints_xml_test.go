package datasets_test

import "testing"

// TestXMLConstraints checks the xml grammar's where clauses on documents
// after the examples of XML 1.0 and Namespaces in XML 1.0, and on near
// misses that break one clause each.
func TestXMLConstraints(t *testing.T) {
	checkConstraints(t, "xml", []constraintCase{
		// Valid documents.
		{`<greeting>Hello, world!</greeting>`, nil},
		{`<?xml version="1.0" encoding="UTF-8"?><termdef id="dt-dog" term="dog"/>`, nil},
		{`<?xml version='1.0' encoding='utf-8'?><a>&lt;&gt;&amp;&apos;&quot;&#9;&#x20;&#55295;&#xE000;&#x10FFFF;&#x0000041;</a>`, nil},
		{`<x xmlns:edi='http://ecommerce.example.org/schema'><edi:price units='Euro'>32.18</edi:price></x>`, nil},
		{`<bk:book xmlns:bk='urn:loc.gov:books' xmlns:isbn='urn:ISBN:0-395-36341-6'><bk:title>Cheaper by the Dozen</bk:title><isbn:number>1568491379</isbn:number></bk:book>`, nil},
		{`<x xmlns:n1="http://www.w3.org" xmlns="http://www.w3.org"><good a="1" n1:a="2"/></x>`, nil},
		{`<a xml:lang="en" xmlns:xml="http://www.w3.org/XML/1998/namespace">]]</a>`, nil},
		{`<a><b/><b></b></a>`, nil},
		// WFC Element Type Match.
		{`<a><b></a></b>`, []string{"EndName.text == ElementName.text", "EndName.text == ElementName.text"}},
		{`<a>text</A>`, []string{"EndName.text == ElementName.text"}},
		// WFC Unique Att Spec: one instance per repeated name.
		{`<a x="1" y="2" x="3"/>`, []string{"count(AttName", "count(AttName"}},
		// CharData without "]]>".
		{`<a>x]]>y</a>`, []string{`"]]>"`}},
		// WFC Legal Character.
		{`<a>&#0;</a>`, []string{"where DecimalCode"}},
		{`<a b="&#xD800;"/>`, []string{"where HexCode"}},
		{`<a>&#xFFFE;</a>`, []string{"where HexCode"}},
		{`<a>&#x110000;</a>`, []string{"where HexCode"}},
		{`<a>&#1114112;</a>`, []string{"where DecimalCode"}},
		// WFC Entity Declared: no DTD, only the predefined entities.
		{`<a>&nbsp;</a>`, []string{"where EntityRef"}},
		// Character encoding: inputs are UTF-8.
		{`<?xml version="1.0" encoding="ISO-8859-1"?><a/>`, []string{"where EncodingDecl"}},
		// Namespaces: QNames, PI targets without colons.
		{`<a:b:c xmlns:a="u"/>`, []string{"where QName"}},
		{`<a><?p:i x?></a>`, []string{"where PITarget"}},
		// Prefix Declared: undeclared, declared on a sibling, on a descendant.
		{`<p:a/>`, []string{"any(AttName"}},
		{`<a><b xmlns:p="u"/><p:c/></a>`, []string{"any(AttName"}},
		{`<a><b xmlns:p="u"/><p:c></p:c></a>`, []string{"any(AttName", "any(AttName"}},
		{`<a p:x="1"><b xmlns:p="u"/></a>`, []string{"any(AttName"}},
		// No empty prefix declaration; reserved prefixes.
		{`<a xmlns:p=""/>`, []string{"AttValue.len > 2"}},
		{`<a xmlns:xmlns="u"/>`, []string{`"xmlns:xmlns"`}},
		{`<a xmlns:xml="u"/>`, []string{`"xmlns:xml"`}},
		{`<xmlns:a/>`, []string{`where ElementName`}},
	})
}
