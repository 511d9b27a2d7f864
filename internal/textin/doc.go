// Package textin is the one reader of procalloc's line-oriented text formats: points
// (geom.ReadPoints), graphs (topo.ReadGraph), node lists, ranking and host-name files
// (package curves). In all of them '#' starts a comment that runs to the end of the
// line, blank lines carry no data, a UTF-8 byte-order mark at the start is skipped,
// and an error names its 1-based line. Decompress is the one decompressing reader
// of every input of procalloc's own (gzip and bzip2, told by their magic bytes; a
// file compressed twice decompressed twice; zero padding after the data read as
// gzip and bunzip2 read it; cut or damaged files named as such after their last
// whole line).
//
// It follows no paper.
package textin
