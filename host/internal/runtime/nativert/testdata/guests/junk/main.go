// Command junk is any program that is not a connector: it prints a line
// and exits.
package main

import "fmt"

func main() { fmt.Println("hello, I am not a connector") }
