//go:build !race

package platformsim

const raceEnabled = false
