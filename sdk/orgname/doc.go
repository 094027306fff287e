// Package orgname reads the name of a Dutch public body as a user types
// it ("Bergen (NH)", "Gemeente Utrecht", "Wetterskip Fryslân") and finds
// it in a platform's list of organisations without ever settling an
// ambiguous name by order: a name that fits several organisations is
// asked about (sdk.Choose, when the admin granted elicitation and the
// client supports it) or answered with the candidates and what to pass.
//
// The council connectors (ori, obv) and the host's cross-platform search
// read names by these rules alike, so a name means the same everywhere;
// it lives in the sdk because connectors share no other code.
package orgname
