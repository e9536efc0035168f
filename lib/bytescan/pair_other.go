//go:build !amd64

package bytescan

// The vector versions are amd64 only; IndexPair does not call these.

func indexPairBlocks([]byte, int, byte, byte, byte, byte) int { return -1 }

func indexPairBlocksAVX2([]byte, int, byte, byte, byte, byte) int { return -1 }

func hasAVX2() bool { return false }
