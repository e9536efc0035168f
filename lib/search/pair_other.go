//go:build !amd64

package search

// The vector versions are amd64 only; indexPair does not call these.

func indexPairBlocks([]byte, int, byte, byte, byte, byte) int { return -1 }

func indexPairBlocksAVX2([]byte, int, byte, byte, byte, byte) int { return -1 }

var useAVX2 = false
