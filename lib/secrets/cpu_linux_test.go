package secrets

import "syscall"

// threadCPU returns the CPU seconds of the calling thread (the benchmark
// locks itself to one), so that a loaded machine does not hide the speed:
// wall time counts the waits for a core, CPU time does not.
func threadCPU() float64 {
	var r syscall.Rusage
	_ = syscall.Getrusage(1 /* RUSAGE_THREAD */, &r)
	return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
}
