// Command benchtable runs every benchmark behind BesluitBron's performance
// figures and prints one Markdown table: each figure, what it is measured
// against in the same run, the ratio, the target where one is promised,
// and the command that reproduces the row. `make bench` runs it;
// docs/benchmarks.md holds the latest table.
//
// Usage:
//
//	benchtable [-run substring] [-o file]
//
// It runs from the module root (found from the working directory) and
// exits 1 when a benchmark fails or a figure is missing from its output.
package main
