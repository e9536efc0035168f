//go:build darwin || freebsd

package mapped

// mapPopulate: the pages are mapped by faults there.
const mapPopulate = 0
