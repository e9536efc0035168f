//go:build !race

package cccassette

const raceOn = false
