// Package redistest runs a private redis-server (Debian's package,
// installed by scripts/install-redis.sh) for the tests of scaling out: a
// free port, no persistence, killed and restarted at will. A restart
// loses everything, the hardest case for state shared in Redis.
package redistest
