// Package csv is the "csv" subject: encoding/csv.
package csv

import (
	"bytes"
	"encoding/csv"
)

// Run reads every record (any number of fields per record) and writes
// them back.
func Run(data []byte) error {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	records, err := r.ReadAll()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	if err := w.WriteAll(records); err != nil {
		return err
	}
	for _, rec := range records {
		for i := range rec {
			_, _ = r.FieldPos(i)
		}
	}
	return nil
}
