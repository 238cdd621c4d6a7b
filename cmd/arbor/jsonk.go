package main

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// byK is a JSON object keyed by k = 1, 2, ... in numeric order (a Go map
// would be written with its keys sorted as strings: 1, 10, 11, 2).
type byK[T any] []T

func (m byK[T]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(strconv.Itoa(i + 1)))
		b.WriteByte(':')
		data, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b.Write(data)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
