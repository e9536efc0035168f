//go:build !linux

package jq

// addressSpaceLimit: only Linux is watched (no /proc/self/statm elsewhere).
func addressSpaceLimit() uint64 { return 0 }

func addressSpace() uint64 { return 0 }
