package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
)

// KeySet holds the sha256 of each named client's API key.
type KeySet struct {
	names  []string
	hashes [][sha256.Size]byte
}

// NewKeySet reads the key_sha256 of each client (name → 64 hexadecimal
// digits, any case).
func NewKeySet(hexByName map[string]string) (*KeySet, error) {
	ks := &KeySet{}
	for name := range hexByName {
		ks.names = append(ks.names, name)
	}
	sort.Strings(ks.names)
	for _, name := range ks.names {
		b, err := hex.DecodeString(hexByName[name])
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("auth: clients.%s.key_sha256: want 64 hexadecimal digits, the sha256 of the key", name)
		}
		ks.hashes = append(ks.hashes, [sha256.Size]byte(b))
	}
	return ks, nil
}

// Len is the number of clients.
func (ks *KeySet) Len() int { return len(ks.names) }

// Lookup returns the name of the client whose key this is. It hashes the
// key and compares the hash with every client's in constant time, all of
// them whatever matches, so neither the time nor the order of the
// clients tells an attacker anything of a key.
func (ks *KeySet) Lookup(key string) (string, bool) {
	sum := sha256.Sum256([]byte(key))
	found := -1
	for i := range ks.hashes {
		if subtle.ConstantTimeCompare(sum[:], ks.hashes[i][:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return ks.names[found], true
}

func (ks *KeySet) verify(_ context.Context, token string, _ *http.Request) (Principal, *Failure) {
	name, ok := ks.Lookup(token)
	if !ok {
		return Principal{}, unauthorized("unknown_key", "BesluitBron: the API key is not one of this server's clients ([clients.<name>] key_sha256): check the key, or ask the admin for one (besluitbron new-key <name>)")
	}
	return Principal{Named: name}, nil
}

// NewKey returns a fresh API key (32 random bytes, unpadded base64url: 43
// characters) and its sha256 in hexadecimal, the key_sha256 to configure.
func NewKey() (key, sha256Hex string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	key = base64.RawURLEncoding.EncodeToString(b)
	return key, HashKey(key), nil
}

// HashKey is the key_sha256 of an API key.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
