package sdk_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
)

func TestTextWriter(t *testing.T) {
	var w sdk.TextWriter
	w.Block(2) // nothing written yet: no leading breaks
	w.Text("  Uitspraak \n\t van de ")
	w.Text("rechtbank")
	w.Block(2)
	w.Block(1) // the larger break owed wins
	w.Text("1.")
	w.Glue()
	w.Block(1)
	w.Space()
	w.Text("De feiten\u00a0 zijn")
	w.Block(2)
	if got, want := w.String(), "Uitspraak van de rechtbank\n\n1. De feiten zijn"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTextWriterTable(t *testing.T) {
	var w sdk.TextWriter
	w.Text("Tabel")
	for _, row := range [][]string{{"jaar", "bedrag"}, {"2024", "€ 1,2 mln"}} {
		w.BeginRow()
		for _, c := range row {
			w.Cell()
			w.Text(c)
		}
		w.EndRow()
	}
	w.Cell() // outside a row: nothing
	w.Text("Einde")
	if got, want := w.String(), "Tabel\njaar | bedrag\n2024 | € 1,2 mln\nEinde"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
