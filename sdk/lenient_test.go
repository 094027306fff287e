package sdk_test

import (
	"reflect"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
)

func TestDecodeLenient(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type rec struct {
		ID    string `json:"Id"`
		Count int    `json:"Count"`
		In    inner  `json:"In"`
		Title string `json:"Titel"`
	}
	var r rec
	dropped, err := sdk.DecodeLenient([]byte(`{"Id":"a","Count":"seven","In":{"n":"x"},"Titel":"Besluit"}`), &r, "Id")
	if err != nil || !reflect.DeepEqual(dropped, []string{"Count", "In.n"}) || r != (rec{ID: "a", Title: "Besluit"}) {
		t.Errorf("got %+v, dropped %v, err %v", r, dropped, err)
	}
	if _, err := sdk.DecodeLenient([]byte(`{"Id":7}`), &r, "Id"); err == nil {
		t.Error("a required field of the wrong type was left out instead of failing")
	}
	if _, err := sdk.DecodeLenient([]byte(`[1]`), &r); err == nil {
		t.Error("an array was read as an object")
	}
	if got := sdk.DroppedNote("OpenTK", "rows", []string{"a", "b"}); got != "OpenTK sent rows with a, b in an unexpected form; left out." {
		t.Errorf("note %q", got)
	}
}
