//go:build race

package platformsim

// raceEnabled: the race detector makes generating and extracting the long
// documents slow, so their tests serve the long ones only and leave the
// connectors out.
const raceEnabled = true
