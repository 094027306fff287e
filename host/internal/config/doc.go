// Package config reads the admin's configuration: defaults, then
// plugins.toml, then environment variables (prefix BESLUITBRON_, path
// segments joined by "__", e.g. BESLUITBRON_CONNECTORS__OBV__BASE_URL),
// each later source overriding the earlier.
//
// Decoding is strict: the file and the environment are each checked
// against the Config type before they are merged (shape.go), so every
// unknown key (with the closest known key: `[connector.<id>]` → did you
// mean connectors?) and every value of the wrong kind (`addr = 8080`, a
// bare `per = 60`) is reported at once, naming the key, the form it wants
// (a field's `form` tag, else one derived from its type) and, for the
// environment, the variable. A TOML syntax error names file:line:column.
// Values are then validated; the same checks run for every command that
// loads the file, so `besluitbron check-config` refuses what `serve`
// would. Relative paths resolve against the config file's own
// directory. Connector tables are [connectors.<id>] (not an array: koanf
// lets an environment variable aimed at one array element replace the
// whole array). Limits and cache TTLs of a connector are checked against
// its manifest later, by [Connector.Check]; a limit switched off (units =
// 0, or an empty limits table) is refused here (limits.go).
//
// A variable that looks meant for BesluitBron but is not spelled
// BESLUITBRON_ (.NET's BesluitBron__Section__Key, small letters) is not
// read; Load lists it in Config.Warnings with the spelling that is, and the
// start logs it (envwarn.go).
package config
