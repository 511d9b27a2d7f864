package slurm

import (
	"errors"
	"testing"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// TestConfErrorKeepsCause: a slurm.conf line that ReadConf, Nodes or Partitions refuses because a hostlist in it does
// not parse is a *ConfError naming the line whose cause is still hostlist's error, so
// a caller can tell it apart (errors.Is) without reading the message.
func TestConfErrorKeepsCause(t *testing.T) {
	for _, conf := range []string{
		"ClusterName=c\nNodeName=n[1-\n",                               // the node names
		"ClusterName=c\nNodeName=n[1-2] Port=[6001-\n",                 // the port list
		"ClusterName=c\nNodeName=n[1-2]\nPartitionName=p Nodes=n[1-\n", // a partition's nodes
	} {
		c, err := ReadConf([]byte(conf))
		if err == nil {
			_, err = c.Nodes()
		}
		if err == nil {
			_, err = c.Partitions(nil)
		}
		var ce *ConfError
		if !errors.As(err, &ce) {
			t.Errorf("%q: error %v, want a *ConfError", conf, err)
			continue
		}
		if !errors.Is(err, hostlist.ErrSyntax) {
			t.Errorf("%q: error %v (line %d) does not wrap hostlist.ErrSyntax", conf, err, ce.Line)
		}
	}
}
