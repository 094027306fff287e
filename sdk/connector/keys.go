package connector

import (
	"fmt"
	"strings"
)

// Document keys: the stable identifiers a platform gives a document, by
// which the host tells that results of several platforms are one
// document (besluitbron_search lists such a document once, with its other
// copies under also_on). A connector declares in its search profile
// ([SearchProfile.Keys]) which kinds its results carry, and sets them per
// result in [Item.Keys], normalised with the sdk's helpers (sdk.DocKeys)
// so that every connector spells one key the same way. The host groups
// only by kinds a manifest declares: it knows no platform's fields.
const (
	// KeySourceURL is the address of the original file at its source
	// (a council's iBabs or Notubiz download), as several council
	// platforms harvest the same file: "https://example.org/path?sorted=query".
	KeySourceURL = "source_url"
	// KeyTKDocument is a Tweede Kamer document number: "2025D05511".
	KeyTKDocument = "tk_document_number"
	// KeyKamerstuk is a Kamerstuk by dossier, addition and number:
	// "36800-VII-14".
	KeyKamerstuk = "kamerstuk"
	// KeyECLI is a court decision's ECLI, upper case.
	KeyECLI = "ecli"
	// KeyPublication is an Officiële Bekendmakingen publication id:
	// "kst-36800-VII-14", "stcrt-2025-18220".
	KeyPublication = "publication_id"
)

// KeyKinds lists the document key kinds, in the order results name them.
func KeyKinds() []string {
	return []string{KeySourceURL, KeyTKDocument, KeyKamerstuk, KeyECLI, KeyPublication}
}

// KnownKeyKind reports whether kind is one of [KeyKinds].
func KnownKeyKind(kind string) bool {
	for _, k := range KeyKinds() {
		if k == kind {
			return true
		}
	}
	return false
}

// maxKeyLen bounds one key's value: a source URL is the longest.
const maxKeyLen = 1000

// validateKeys checks a search profile's declared key kinds.
func validateKeys(kinds []string, bad func(string, ...any)) {
	seen := map[string]bool{}
	for i, k := range kinds {
		switch {
		case !KnownKeyKind(k):
			bad("search_profile.keys[%d] %q: want one of %s", i, k, strings.Join(KeyKinds(), ", "))
		case seen[k]:
			bad("search_profile.keys[%d] %q: declared twice", i, k)
		}
		seen[k] = true
	}
}

// KeyError says why an item's key cannot be used, or nil: a kind its
// profile does not declare, an empty or overlong value. The host drops
// such a key (the result stays) and groups by the others.
func KeyError(declared []string, kind, value string) error {
	ok := false
	for _, k := range declared {
		ok = ok || k == kind
	}
	switch {
	case !ok:
		return fmt.Errorf("key %q is not among the kinds the manifest declares (%s)", kind, strings.Join(declared, ", "))
	case strings.TrimSpace(value) == "":
		return fmt.Errorf("key %q: empty", kind)
	case len(value) > maxKeyLen:
		return fmt.Errorf("key %q: %d bytes, at most %d", kind, len(value), maxKeyLen)
	}
	return nil
}
