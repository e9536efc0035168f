#include "textflag.h"

// func indexPairSSE2(s []byte, a, b byte, k int) int
//
// Scans s sixteen positions at a time for the first i with s[i] == a and
// s[i+k] == b, using SSE2 only (every amd64 CPU has it). Returns that i,
// or ^i where i is the first position it did not scan (the caller checks
// the tail).
TEXT ·indexPairSSE2(SB), NOSPLIT, $0-48
	MOVQ    s_base+0(FP), SI
	MOVQ    s_len+8(FP), DX
	MOVBLZX a+24(FP), AX
	MOVBLZX b+25(FP), BX
	MOVQ    k+32(FP), CX

	// Broadcast a to X0 and b to X1.
	MOVD      AX, X0
	PUNPCKLBW X0, X0
	PUNPCKLWL X0, X0
	PSHUFL    $0, X0, X0
	MOVD      BX, X1
	PUNPCKLBW X1, X1
	PUNPCKLWL X1, X1
	PSHUFL    $0, X1, X1

	LEAQ (SI)(CX*1), R8 // s[k:]
	SUBQ CX, DX
	SUBQ $16, DX        // the last block starts at len(s)-k-16
	XORQ DI, DI

loop:
	CMPQ     DI, DX
	JGT      done
	MOVOU    (SI)(DI*1), X2
	MOVOU    (R8)(DI*1), X3
	PCMPEQB  X0, X2
	PCMPEQB  X1, X3
	PAND     X3, X2
	PMOVMSKB X2, R9
	TESTL    R9, R9
	JNZ      found
	ADDQ     $16, DI
	JMP      loop

found:
	BSFL R9, R9
	ADDQ R9, DI
	MOVQ DI, ret+40(FP)
	RET

done:
	NOTQ DI
	MOVQ DI, ret+40(FP)
	RET
