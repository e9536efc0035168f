//go:build race

package cccassette

const raceOn = true
