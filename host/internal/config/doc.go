// Package config reads the admin's configuration: defaults, then
// plugins.toml, then environment variables (prefix BESLUITBRON_, path
// segments joined by "__", e.g. BESLUITBRON_CONNECTORS__OBV__BASE_URL),
// each later source overriding the earlier.
//
// Decoding is strict: an unknown key or a bad value fails with an error that
// names the key. Relative paths resolve against the config file's own
// directory. Connector tables are [connectors.<id>] (not an array: koanf
// lets an environment variable aimed at one array element replace the
// whole array). Limits and cache TTLs of a connector are checked against
// its manifest later, by [Connector.Check].
package config
