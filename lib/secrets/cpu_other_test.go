//go:build !linux

package secrets

func threadCPU() float64 { return 0 }
