//go:build !unix

package ndjson

func allocBlock(n int) []byte { return make([]byte, n) }

func freeBlock([]byte) {}

func makeLong(n int) []byte { return make([]byte, n) }
