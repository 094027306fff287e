package host

import "github.com/besluitbron/besluitbron/host/internal/platformsim"

// The offline platform simulator lives in host/internal/platformsim so
// that host tests can start it in process; these aliases let
// cmd/platformsim (which may not import internal packages) run it too.
// Production serving never uses them.
type (
	// Simulator serves the seven platforms' APIs from recorded data.
	Simulator = platformsim.Sim
	// SimulatorOptions configure a Simulator.
	SimulatorOptions = platformsim.Options
	// SimulatorFault is a fault injected at one simulated platform.
	SimulatorFault = platformsim.Fault
)

// NewSimulator loads the recorded data under o.DataDir.
func NewSimulator(o SimulatorOptions) (*Simulator, error) { return platformsim.New(o) }

// SimulatorBaseURLs maps connector ids to the base_url of a simulator
// served at root.
func SimulatorBaseURLs(root string) map[string]string { return platformsim.BaseURLs(root) }

// SimulatorURLRewrites maps connector ids to the url_rewrites that send
// their second host to a simulator served at root.
func SimulatorURLRewrites(root string) map[string][]string { return platformsim.URLRewrites(root) }

// SimulatorPlatforms lists the simulated connector ids.
func SimulatorPlatforms() []string { return append([]string(nil), platformsim.Platforms...) }

// ParseSimulatorFault reads "<platform>:<key>=<value>,…".
func ParseSimulatorFault(s string) (string, SimulatorFault, error) { return platformsim.ParseFault(s) }

// SimulatorFaultLines lists faults as "platform: {…}" lines.
func SimulatorFaultLines(m map[string]SimulatorFault) []string { return platformsim.SortedFaults(m) }
