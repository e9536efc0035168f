package bytescan

import "sync"

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

// cpuid and xgetbv ask the CPU (pair_amd64.s).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax uint32)

// hasAVX2 is whether the CPU (and the OS, for the YMM registers) has AVX2,
// by golang.org/x/sys/cpu's test (TestHasAVX2). It is asked at the first
// scan, not at start as that package's init asks: on a VM each cpuid
// traps to the hypervisor (8 us on the dev VM), and a command that never
// scans should not pay for it. Unlike that package it does not read
// GODEBUG's cpu.avx2 (the environment is cli.System's); both loops give
// the same answers.
var hasAVX2 = sync.OnceValue(func() bool {
	const osxsave, avx2, xmmYMM = 1 << 27, 1 << 5, 1<<1 | 1<<2
	if maxID, _, _, _ := cpuid(0, 0); maxID < 7 {
		return false
	}
	if _, _, ecx1, _ := cpuid(1, 0); ecx1&osxsave == 0 || xgetbv()&xmmYMM != xmmYMM {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&avx2 != 0
})
