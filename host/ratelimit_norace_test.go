//go:build !race

package host_test

// floodSize is the number of distinct clients in the flood test.
const floodSize = 100_000
