//go:build darwin || freebsd

package transcript

const mapPopulate = 0
