package sweep

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/compresstest"
	"github.com/procalloc/procalloc/internal/textin"
)

// A compressed results file is not appended to (a sweep writes plain lines, one
// by one, and reads them back to resume): OpenResults names the compression and
// the command that decompresses it, and leaves the file as it was. Before, it
// said "line 1 is not a results line, and no line is: not a results file of
// procalloc sweep" without a word of gzip. Merge reads gzip (and gzip inside
// gzip) as the plain file; xz and zstd, which it does not read, are named as such.
func TestCompressedResultsFiles(t *testing.T) {
	dir := t.TempDir()
	plain := []byte(`{"sweep":"s","index":0,"key":"k0","params":{"trace":"t","machine":"mesh:4x4","alloc":"a","sched":"fcfs","contract":1,"pattern":"none","seed":1},"status":"ok","result":{"mean_wait":3}}` + "\n")
	gz := compresstest.Gzip(t, plain)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"r.jsonl.gz", gz, "r.jsonl.gz is gzip-compressed (it starts with 1F 8B): a sweep appends plain lines to its results file and reads them back to resume, and does not write into a compressed one: decompress it (gzip -dc r.jsonl.gz > r.jsonl) and give -o r.jsonl, or give -o a new file and merge the two"},
		{"old.jsonl", gz, "decompress it (gzip -dc old.jsonl > old.plain.jsonl) and give -o old.plain.jsonl"},
		{"r.jsonl.xz", []byte("\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46"), "r.jsonl.xz is xz-compressed (it starts with FD 37 7A 58 5A 00): a sweep appends plain lines"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := OpenResults(path, "s")
		if err == nil {
			r.Close()
		}
		if !errors.Is(err, textin.ErrCompressed) || !strings.Contains(strings.ReplaceAll(err.Error(), dir+"/", ""), c.want) {
			t.Errorf("%s: %v\nwant %q", c.name, err, c.want)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, c.data) {
			t.Errorf("%s: changed by OpenResults", c.name)
		}
	}
	want, err := MergeInputs([]Input{{"plain", bytes.NewReader(plain)}}, nil)
	if err != nil || len(want.Lines) != 1 {
		t.Fatalf("merge of the plain file: %v", err)
	}
	for name, data := range map[string][]byte{"gzip": gz, "gzip inside gzip": compresstest.Gzip(t, gz)} {
		got, err := MergeInputs([]Input{{name, bytes.NewReader(data)}}, nil)
		if err != nil || len(got.Lines) != 1 || got.Lines[0].Key != "k0" || string(got.Lines[0].Result) != string(want.Lines[0].Result) {
			t.Errorf("merge of %s: %+v, %v", name, got, err)
		}
	}
	_, err = MergeInputs([]Input{{"r.jsonl.zst", bytes.NewReader([]byte("\x28\xb5\x2f\xfd\x00\x58"))}}, nil)
	if !errors.Is(err, textin.ErrCompressed) || !strings.Contains(err.Error(), "r.jsonl.zst: the input is zstd-compressed") {
		t.Errorf("merge of zstd: %v", err)
	}
}
