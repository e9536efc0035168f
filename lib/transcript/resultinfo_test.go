package transcript

import (
	"reflect"
	"testing"
)

// checkResultInfo: ReadResultInfo reads raw as its slow twin (encoding/json)
// does, and DecodeTools' walk of a user record holding raw as its
// toolUseResult reads it the same, or leaves it to ReadResultInfo.
func checkResultInfo(t *testing.T, raw []byte) {
	t.Helper()
	got, want := ReadResultInfo(raw), slowResultInfo(raw)
	if !sameInfo(got, want) {
		t.Fatalf("ReadResultInfo %+v (stdout %v), encoding/json %+v (stdout %v): %q", got, str(got.Stdout()), want, str(want.Stdout()), raw)
	}
	line := append(append([]byte(`{"type":"user","toolUseResult":`), raw...), `,"message":{"content":[{"type":"tool_result","tool_use_id":"t"}]}}`...)
	for _, alias := range []bool{false, true} {
		e, ok := decodeTools(append([]byte(nil), line...), alias, new(Header))
		if !ok || e.User == nil || !e.User.InfoRead {
			continue
		}
		if !sameInfo(e.User.Info, want) {
			t.Fatalf("DecodeTools (alias %v) %+v, encoding/json %+v: %q", alias, e.User.Info, want, raw)
		}
	}
}

func str(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func sameInfo(a, b ResultInfo) bool {
	if !reflect.DeepEqual(str(a.Stdout()), str(b.Stdout())) {
		return false
	}
	a.stdout, a.stdoutJSON, b.stdout, b.stdoutJSON = nil, nil, nil, nil
	return reflect.DeepEqual(a, b)
}

var resultInfoSeeds = []string{
	`{"stdout":"a\nb","stderr":"","interrupted":false,"type":"create"}`, `{"stdout":null}`, `{"stdout":""}`,
	`{"Stdout":"x"}`, `{"stdout":"a","stdout":"b"}`, `{"interrupted":"yes","stderr":"e"}`, `"Error: x"`, `[1]`, `null`,
	`{"x":[{"y":1}],"backgroundTaskId":"b1"}`, `{"stdout":"\u00e9\ud800x","persistedOutputPath":"/p"}`,
	`{"stdout":1,"stderr":"s"}`, `{"interrupted":null,"type":null}`, `{"st\u0064out":"esc key"}`, `{"ſtdout":"fold"}`,
	` {"type":"update"} `, `{"interrupted":true,"interrupted":true}`, `{"stdout":"x"`, `{}`,
}

func TestReadResultInfoSeeds(t *testing.T) {
	for _, s := range resultInfoSeeds {
		checkResultInfo(t, []byte(s))
	}
}

func FuzzReadResultInfo(f *testing.F) {
	for _, s := range resultInfoSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkResultInfo(t, raw) })
}
