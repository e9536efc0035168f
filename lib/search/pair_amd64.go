package search

import "golang.org/x/sys/cpu"

// indexPairBlocks is indexPair over whole blocks of 16 positions, in
// SSE2, which every amd64 has (pair_amd64.s).
//
//go:noescape
func indexPairBlocks(hay []byte, d int, c1, c2, m1, m2 byte) int

// indexPairBlocksAVX2 is indexPair over whole blocks of 32 positions, in
// AVX2: as fast as bytes.IndexByte, without a call per hit of a byte.
//
//go:noescape
func indexPairBlocksAVX2(hay []byte, d int, c1, c2, m1, m2 byte) int

// useAVX2 tells indexPair to use indexPairBlocksAVX2 (a variable so that
// tests can check the SSE2 path too).
var useAVX2 = cpu.X86.HasAVX2
