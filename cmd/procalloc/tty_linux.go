package main

import (
	"os"
	"syscall"
	"unsafe"
)

// isTTY asks the terminal driver for f's settings (TCGETS), which only a
// terminal has.
func isTTY(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
