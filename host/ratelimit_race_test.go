//go:build race

package host_test

// floodSize is smaller under the race detector, which makes each request
// several times slower; it still passes the 20 000-bucket cap.
const floodSize = 24_000
