package config

import (
	"errors"
	"fmt"

	"github.com/knadh/koanf/v2"
)

// switchedOffLimits refuses a connectors.<id>.limits.<service> table that
// would switch a platform's limit off: units = 0 (from the file or the
// environment), or a table with neither units nor per, which decodes to
// the same zero. Either used to remove the limit the connector declares
// without a word, and the limits BesluitBron keeps are the platforms' own
// or polite defaults it promises to keep (docs/operations.md, "Platform
// limits"). A limit can be raised or lowered, never removed; a service
// declared without one has none to remove.
func switchedOffLimits(k *koanf.Koanf) error {
	var errs []error
	for _, id := range k.MapKeys("connectors") {
		base := "connectors." + id + ".limits"
		for _, s := range k.MapKeys(base) {
			p := base + "." + s
			how := fmt.Sprintf("a platform's limit cannot be switched off: give a number of units above 0 and a per, such as units = 60 and per = \"60s\" under [%s], or remove the table to keep the connector's declared limit", p)
			switch {
			case k.Exists(p+".units") && isZero(k.Get(p+".units")):
				errs = append(errs, fmt.Errorf("%s.units = 0: %s", p, how))
			case !k.Exists(p+".units") && !k.Exists(p+".per"):
				errs = append(errs, fmt.Errorf("%s: neither units nor per: %s", p, how))
			}
		}
	}
	return errors.Join(errs...)
}

// isZero reports a units value that is the number 0, not one the shape
// check refuses on its own (a word, a list).
func isZero(v any) bool {
	switch v := v.(type) {
	case int64:
		return v == 0
	case float64:
		return v == 0
	case int:
		return v == 0
	case string:
		var f float64
		_, err := fmt.Sscan(v, &f)
		return err == nil && f == 0
	}
	return false
}
