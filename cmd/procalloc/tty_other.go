//go:build !linux

package main

import "os"

// isTTY is true elsewhere: a character device is taken for a terminal.
func isTTY(*os.File) bool { return true }
