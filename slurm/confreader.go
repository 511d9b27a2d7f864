package slurm

import (
	"bufio"
	"io"
	"iter"
	"strings"
)

// confReader reads a Slurm configuration file (topology.conf, slurm.conf) as slurmctld
// does: line by line, a '#' starting a comment, fields separated by white space. Lines
// may be long (a NodeName= line of a big machine): up to 16 MiB.
type confReader struct {
	sc   *bufio.Scanner
	line int
}

func newConfReader(r io.Reader) *confReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	return &confReader{sc: sc}
}

// lines yields the number (from 1) and the fields of every line that has any once its
// comment is cut.
func (c *confReader) lines() iter.Seq2[int, []string] {
	return func(yield func(int, []string) bool) {
		for c.sc.Scan() {
			c.line++
			t := c.sc.Text()
			if i := strings.IndexByte(t, '#'); i >= 0 {
				t = t[:i]
			}
			fields := strings.Fields(t)
			if len(fields) == 0 {
				continue
			}
			if !yield(c.line, fields) {
				return
			}
		}
	}
}

// err returns the error that stopped the reading, if any, and the number of the line
// it could not read.
func (c *confReader) err() (int, error) { return c.line + 1, c.sc.Err() }
