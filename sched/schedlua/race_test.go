//go:build race

package schedlua

const raceEnabled = true
