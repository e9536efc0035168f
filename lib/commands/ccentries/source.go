package ccentries

import (
	"bytes"
	"strconv"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// sourceField builds the "cc_source" key inserted at the front of a line.
// The parts that do not change within a file are encoded once.
type sourceField struct {
	head      []byte // `"cc_source":{"path":"...","line":`
	session   []byte // `,"session_id":"..."` or nil when taken per line
	tail      []byte // `,"agent_id":...}`
	perRecord bool   // stdin: the session id comes from each record
}

func newSourceField(path, sessionID, agentID, toolUseID string) *sourceField {
	f := &sourceField{}
	f.head = append([]byte(`"cc_source":{"path":`), jsonOrNull(path)...)
	f.head = append(f.head, `,"line":`...)
	if path == "" && sessionID == "" {
		f.perRecord = true
	} else {
		f.session = append([]byte(`,"session_id":`), jsonOrNull(sessionID)...)
	}
	f.tail = append([]byte(`,"agent_id":`), jsonOrNull(agentID)...)
	if agentID != "" && toolUseID != "" {
		f.tail = append(f.tail, `,"tool_use_id":`...)
		f.tail = append(f.tail, jsonOrNull(toolUseID)...)
	}
	f.tail = append(f.tail, '}')
	return f
}

func jsonOrNull(s string) []byte {
	if s == "" {
		return []byte("null")
	}
	b, err := ndjson.Marshal(s)
	if err != nil {
		return []byte("null")
	}
	return b
}

// insert appends line to dst with the cc_source key as its first key. The
// line is a JSON object (it was scanned); the rest stays byte for byte.
func (f *sourceField) insert(dst, line []byte, n int, recordSession []byte) []byte {
	i := bytes.IndexByte(line, '{')
	dst = append(dst, line[:i+1]...)
	dst = append(dst, f.head...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	if f.perRecord {
		dst = append(dst, `,"session_id":`...)
		if len(recordSession) == 0 {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, jsonOrNull(string(recordSession))...)
		}
	} else {
		dst = append(dst, f.session...)
	}
	dst = append(dst, f.tail...)
	rest := line[i+1:]
	if t := bytes.TrimLeft(rest, " \t\r\n"); len(t) == 0 || t[0] != '}' {
		dst = append(dst, ',')
	}
	return append(dst, rest...)
}
