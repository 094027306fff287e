//go:build race

package connectortest_test

const raceEnabled = true
