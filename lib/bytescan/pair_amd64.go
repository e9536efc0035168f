package bytescan

import "golang.org/x/sys/cpu"

// indexPairBlocks is IndexPair over whole blocks of 16 positions, in
// SSE2, which every amd64 has (pair_amd64.s).
//
//go:noescape
func indexPairBlocks(hay []byte, d int, c1, c2, m1, m2 byte) int

// indexPairBlocksAVX2 is IndexPair over whole blocks of 32 positions, in
// AVX2: as fast as bytes.IndexByte, without a call per hit of a byte.
//
//go:noescape
func indexPairBlocksAVX2(hay []byte, d int, c1, c2, m1, m2 byte) int

// hasAVX2 is whether the CPU (and the OS, for the YMM registers) has AVX2.
var hasAVX2 = cpu.X86.HasAVX2
