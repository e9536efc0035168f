#include "textflag.h"

// func indexPairBlocks(hay []byte, d int, c1, c2, m1, m2 byte) int
//
// Checks the positions i < (len(hay)-d) rounded down to 16, 32 or 16 at a
// time with SSE2 (every amd64 has it): (hay[i]|m1) == c1 and
// (hay[i+d]|m2) == c2. Returns the first such i, or -1.
TEXT ·indexPairBlocks(SB), NOSPLIT, $0-48
	MOVQ hay_base+0(FP), SI
	MOVQ hay_len+8(FP), BX
	MOVQ d+24(FP), DX
	SUBQ DX, BX             // positions
	JLE  notfound
	ANDQ $~15, BX           // whole blocks of 16 positions
	LEAQ (SI)(DX*1), DI     // the second byte of each position

	MOVBLZX c1+32(FP), AX
	MOVD    AX, X0
	PUNPCKLBW X0, X0
	PUNPCKLBW X0, X0
	PSHUFL  $0, X0, X0
	MOVBLZX c2+33(FP), AX
	MOVD    AX, X1
	PUNPCKLBW X1, X1
	PUNPCKLBW X1, X1
	PSHUFL  $0, X1, X1
	MOVBLZX m1+34(FP), AX
	MOVD    AX, X2
	PUNPCKLBW X2, X2
	PUNPCKLBW X2, X2
	PSHUFL  $0, X2, X2
	MOVBLZX m2+35(FP), AX
	MOVD    AX, X3
	PUNPCKLBW X3, X3
	PUNPCKLBW X3, X3
	PSHUFL  $0, X3, X3

	XORQ CX, CX
	MOVQ BX, R8
	SUBQ $32, R8            // last start of a double block

loop32:
	CMPQ CX, R8
	JGT  tail16
	PREFETCHT0 2048(SI)(CX*1) // see indexPairBlocksAVX2
	MOVOU (SI)(CX*1), X4
	MOVOU (DI)(CX*1), X5
	MOVOU 16(SI)(CX*1), X6
	MOVOU 16(DI)(CX*1), X7
	POR   X2, X4
	POR   X3, X5
	POR   X2, X6
	POR   X3, X7
	PCMPEQB X0, X4
	PCMPEQB X1, X5
	PCMPEQB X0, X6
	PCMPEQB X1, X7
	PAND  X5, X4
	PAND  X7, X6
	PMOVMSKB X4, AX
	PMOVMSKB X6, R9
	SHLL  $16, R9
	ORL   R9, AX
	JNZ   found
	ADDQ  $32, CX
	JMP   loop32

tail16:
	CMPQ CX, BX
	JGE  notfound
	MOVOU (SI)(CX*1), X4
	MOVOU (DI)(CX*1), X5
	POR   X2, X4
	POR   X3, X5
	PCMPEQB X0, X4
	PCMPEQB X1, X5
	PAND  X5, X4
	PMOVMSKB X4, AX
	TESTL AX, AX
	JNZ   found
	ADDQ  $16, CX
	JMP   tail16

found:
	BSFL  AX, AX
	ADDQ  CX, AX
	MOVQ  AX, ret+40(FP)
	RET

notfound:
	MOVQ $-1, ret+40(FP)
	RET

// func indexPairBlocksAVX2(hay []byte, d int, c1, c2, m1, m2 byte) int
//
// indexPairBlocks with AVX2, over whole blocks of 32 positions, 64 at a
// time; only called when the CPU has AVX2.
TEXT ·indexPairBlocksAVX2(SB), NOSPLIT, $0-48
	MOVQ hay_base+0(FP), SI
	MOVQ hay_len+8(FP), BX
	MOVQ d+24(FP), DX
	SUBQ DX, BX             // positions
	JLE  notfound
	ANDQ $~31, BX           // whole blocks of 32 positions
	LEAQ (SI)(DX*1), DI

	// Broadcast straight from memory: a legacy SSE MOVD after the first
	// 256-bit write would pay the AVX-SSE transition, ~100 ns.
	VPBROADCASTB c1+32(FP), Y0
	VPBROADCASTB c2+33(FP), Y1
	VPBROADCASTB m1+34(FP), Y2
	VPBROADCASTB m2+35(FP), Y3

	XORQ CX, CX
	MOVQ BX, R8
	SUBQ $64, R8            // last start of a double block

loop64:
	CMPQ CX, R8
	JGT  tail32
	// A mapped file is read from memory, page after page, and the
	// hardware prefetcher stops at each page end: asking 2 KiB ahead
	// makes the search 10-15% faster there (and costs nothing in cache).
	PREFETCHT0 2048(SI)(CX*1)
	VMOVDQU (SI)(CX*1), Y4
	VMOVDQU (DI)(CX*1), Y5
	VMOVDQU 32(SI)(CX*1), Y6
	VMOVDQU 32(DI)(CX*1), Y7
	VPOR    Y2, Y4, Y4
	VPOR    Y3, Y5, Y5
	VPOR    Y2, Y6, Y6
	VPOR    Y3, Y7, Y7
	VPCMPEQB Y0, Y4, Y4
	VPCMPEQB Y1, Y5, Y5
	VPCMPEQB Y0, Y6, Y6
	VPCMPEQB Y1, Y7, Y7
	VPAND   Y5, Y4, Y4
	VPAND   Y7, Y6, Y6
	VPOR    Y4, Y6, Y8
	VPTEST  Y8, Y8
	JNZ     found64
	ADDQ    $64, CX
	JMP     loop64

found64:
	VPMOVMSKB Y4, AX
	TESTL     AX, AX
	JNZ       found
	VPMOVMSKB Y6, AX
	ADDQ      $32, CX
	JMP       found

tail32:
	CMPQ CX, BX
	JGE  notfound
	VMOVDQU (SI)(CX*1), Y4
	VMOVDQU (DI)(CX*1), Y5
	VPOR    Y2, Y4, Y4
	VPOR    Y3, Y5, Y5
	VPCMPEQB Y0, Y4, Y4
	VPCMPEQB Y1, Y5, Y5
	VPAND   Y5, Y4, Y4
	VPMOVMSKB Y4, AX
	TESTL   AX, AX
	JNZ     found
	ADDQ    $32, CX
	JMP     tail32

found:
	VZEROUPPER
	BSFL  AX, AX
	ADDQ  CX, AX
	MOVQ  AX, ret+40(FP)
	RET

notfound:
	VZEROUPPER
	MOVQ $-1, ret+40(FP)
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET
