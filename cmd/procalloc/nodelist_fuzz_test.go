package main

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzReadNodeList fuzzes the reader of subset's --free FILE (node indices, '#'
// comments) on a machine of n nodes. The nodes read are the input's fields in order,
// each a plain decimal index in 0..n-1 and listed once; written back they read back
// the same; a refusal names a line of the input.
func FuzzReadNodeList(f *testing.F) {
	f.Add([]byte("3 1 # c\n\n0\n"), 4)
	f.Add([]byte("0\n2115999999 7\n"), 1<<31)
	f.Add([]byte("3\n1\n3\n"), 16)
	f.Add([]byte("+1 01 -0 0x1\n"), 16)
	f.Add([]byte("# none\n"), 16)
	f.Add([]byte("1\r\n2\r\n"), 3)
	lineRef := regexp.MustCompile(`^line (\d+): `)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if len(data) > 1<<14 || n < 1 {
			return
		}
		nodes, err := readNodeList(bytes.NewReader(data), n)
		if err != nil {
			if m := lineRef.FindStringSubmatch(err.Error()); m != nil {
				ln, _ := strconv.Atoi(m[1])
				if lines := bytes.Count(data, []byte("\n")) + 1; ln < 1 || ln > lines {
					t.Fatalf("%v: the input has %d lines", err, lines)
				}
			}
			return
		}
		if len(nodes) == 0 {
			t.Fatal("no nodes and no error")
		}
		// The fields outside comments, in order, are the nodes' decimal forms.
		var fields []string
		for line := range strings.SplitSeq(string(data), "\n") {
			line, _, _ = strings.Cut(line, "#")
			fields = append(fields, strings.Fields(line)...)
		}
		seen := map[int]bool{}
		for i, v := range nodes {
			if v < 0 || v >= n || seen[v] {
				t.Fatalf("node %d (of %d) out of range or repeated", v, n)
			}
			seen[v] = true
			if i >= len(fields) || fields[i] != strconv.Itoa(v) {
				t.Fatalf("node %d read where the input's field %d is not %d (fields %q)", v, i, v, fields)
			}
		}
		if len(fields) != len(nodes) {
			t.Fatalf("%d nodes from %d fields", len(nodes), len(fields))
		}
		var out bytes.Buffer
		for _, v := range nodes {
			fmt.Fprintln(&out, v)
		}
		back, err := readNodeList(&out, n)
		if err != nil || !slices.Equal(back, nodes) {
			t.Fatalf("written back and read: %v, %v; want %v", back, err, nodes)
		}
	})
}
