package qap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// QAP is a quadratic assignment problem in Koopmans-Beckmann form: assign facility i to
// location p[i] (p a permutation of 0..N-1) minimizing
//
//	sum over i, j of A[i][j] * B[p[i]][p[j]]
//
// (diagonal terms included). For an ordering problem the facilities are the ranks
// 0..n-1, the locations are the machine's nodes, A[r][s] = w(s-r) for r < s (w of the
// ring distance for the ring variant; the upper triangle only, so each pair of nodes
// counts once) and B is the hop-distance matrix: p is then the Order and the objective
// is F (Leung et al. 2002 §2.2). The flow matrix of an ordering is Toeplitz (circulant
// for the ring).
type QAP struct {
	N    int       // facilities, and locations
	A, B []float64 // flows (A) and distances (B), row-major N x N
	Name string    // what the instance is, e.g. the machine's spec (OrderingQAP); nothing reads it
}

// Flow returns A[i][j].
func (q *QAP) Flow(i, j int) float64 { return q.A[i*q.N+j] }

// Dist returns B[k][l].
func (q *QAP) Dist(k, l int) float64 { return q.B[k*q.N+l] }

// Objective returns the cost of assignment p (p[i] = location of facility i), summing
// in a fixed order. p must be a permutation of 0..N-1.
func (q *QAP) Objective(p []int) float64 {
	n := q.N
	var f float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if a := q.A[i*n+j]; a != 0 {
				f += a * q.B[p[i]*n+p[j]]
			}
		}
	}
	return f
}

// checkShape refuses a QAP whose matrices are not N x N (nil, a negative N, a
// truncated A or B), which every solver would index past.
func (q *QAP) checkShape() error {
	if q == nil {
		return errors.New("qap: no instance (nil)")
	}
	if q.N < 0 {
		return fmt.Errorf("qap: N = %d facilities is negative", q.N)
	}
	if len(q.A) != q.N*q.N || len(q.B) != q.N*q.N {
		return fmt.Errorf("qap: %d facilities need %d flows and %d distances (N x N, row-major), have %d and %d",
			q.N, q.N*q.N, q.N*q.N, len(q.A), len(q.B))
	}
	return nil
}

// CheckPerm returns an error unless p is a permutation of 0..N-1.
func (q *QAP) CheckPerm(p []int) error {
	if len(p) != q.N {
		return fmt.Errorf("assignment has %d entries for %d facilities", len(p), q.N)
	}
	seen := make([]bool, q.N)
	for i, v := range p {
		if v < 0 || v >= q.N || seen[v] {
			return fmt.Errorf("assignment: facility %d has invalid or repeated location %d", i, v)
		}
		seen[v] = true
	}
	return nil
}

// symmetricB reports whether B is symmetric.
func (q *QAP) SymmetricB() bool {
	n := q.N
	for k := 0; k < n; k++ {
		for l := k + 1; l < n; l++ {
			if q.B[k*n+l] != q.B[l*n+k] {
				return false
			}
		}
	}
	return true
}

// maxQAPLIBWord is the longest number ReadQAPLIB reads: a float64 needs some 25
// characters; a longer word is no number of a QAPLIB file.
const maxQAPLIBWord = 1 << 16

// ReadQAPLIB reads a QAP in QAPLIB format: n, then the n x n matrix A, then the n x n
// matrix B, all whitespace-separated numbers (line breaks are not significant). The
// objective is sum A[i][j] B[p(i)][p(j)] as in QAPLIB. Errors name the offending number.
func ReadQAPLIB(r io.Reader) (*QAP, error) {
	br := bufio.NewReader(textin.Decompress(r))
	// As every text input (textin.CheckStart): UTF-16 and xz are refused saying
	// so, and a UTF-8 byte-order mark is skipped (it was "\ufeff" is not a number).
	start, err := br.Peek(textin.StartLen)
	if errors.Is(err, textin.ErrCompressed) { // xz or zstd: Decompress says so itself
		return nil, fmt.Errorf("QAPLIB: %w", err)
	}
	if len(start) > 0 {
		if err := textin.CheckStart(string(start)); err != nil {
			return nil, fmt.Errorf("QAPLIB: %w", err)
		}
		if bytes.HasPrefix(start, []byte(textin.BOM)) {
			br.Discard(len(textin.BOM))
		}
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64*1024), maxQAPLIBWord)
	sc.Split(bufio.ScanWords)
	count := 0
	next := func(what string) (float64, error) {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				if errors.Is(err, bufio.ErrTooLong) {
					return 0, fmt.Errorf("QAPLIB: number %d (%s) is longer than %d bytes: %w", count+1, what, maxQAPLIBWord, textin.ErrTooLarge)
				}
				return 0, err
			}
			return 0, fmt.Errorf("QAPLIB: file ends before %s", what)
		}
		count++
		v, err := strconv.ParseFloat(sc.Text(), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("QAPLIB: number %d (%s): %q is not a finite number", count, what, textin.Clip(sc.Text()))
		}
		return v, nil
	}
	nf, err := next("n")
	if err != nil {
		return nil, err
	}
	if nf != math.Trunc(nf) || nf < 1 || nf > 5000 {
		return nil, fmt.Errorf("QAPLIB: n = %s must be an integer between 1 and 5000", textin.Clip(strings.TrimSpace(sc.Text())))
	}
	n := int(nf)
	// The matrices grow as their numbers are read: made whole from n first, the
	// 5 bytes "5000\n" took 381 MB before "file ends before A[1][1]".
	q := &QAP{N: n}
	for _, m := range []struct {
		at   *[]float64
		name string
	}{{&q.A, "A"}, {&q.B, "B"}} {
		*m.at = make([]float64, 0, min(n*n, 1<<12))
		for k := 0; k < n*n; k++ {
			v, err := next(fmt.Sprintf("%s[%d][%d]", m.name, k/n+1, k%n+1))
			if err != nil {
				return nil, err
			}
			*m.at = append(*m.at, v)
		}
	}
	if sc.Scan() {
		return nil, fmt.Errorf("QAPLIB: unexpected %q after the two %dx%d matrices", textin.Clip(sc.Text()), n, n)
	}
	if err := sc.Err(); err != nil {
		// The end of the input was not reached whole: a read error, a compressed
		// file cut short after its last number.
		return nil, fmt.Errorf("QAPLIB: after the two %dx%d matrices: %w", n, n, err)
	}
	return q, nil
}

// WriteQAPLIB writes q in QAPLIB format.
func WriteQAPLIB(w io.Writer, q *QAP) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d\n", q.N)
	for _, m := range [][]float64{q.A, q.B} {
		bw.WriteByte('\n')
		for i := 0; i < q.N; i++ {
			for j := 0; j < q.N; j++ {
				if j > 0 {
					bw.WriteByte(' ')
				}
				bw.WriteString(strconv.FormatFloat(m[i*q.N+j], 'g', -1, 64))
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// pairEdge is one facility pair with a non-zero flow, seen from facility i.
type pairEdge struct {
	j        int
	aij, aji float64
}

// flowGraph returns, for each facility, the facilities it exchanges flow with (both
// directions listed), and the diagonal flows.
func (q *QAP) flowGraph() (adj [][]pairEdge, diag []float64) {
	n := q.N
	adj = make([][]pairEdge, n)
	diag = make([]float64, n)
	for i := 0; i < n; i++ {
		diag[i] = q.A[i*n+i]
		for j := 0; j < n; j++ {
			if j != i && (q.A[i*n+j] != 0 || q.A[j*n+i] != 0) {
				adj[i] = append(adj[i], pairEdge{j, q.A[i*n+j], q.A[j*n+i]})
			}
		}
	}
	return adj, diag
}

// Band returns the bandwidth K of q's flows: the largest offset |i - j| (with ring,
// min(|i - j|, n - |i - j|)) of a non-zero flow between facilities i and j; 0 when
// every flow off the diagonal is zero. Flows that are not banded give K near n.
func Band(q *QAP, ring bool) int {
	n := q.N
	k := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j || q.A[i*n+j] == 0 {
				continue
			}
			t := abs(i - j)
			if ring {
				t = min(t, n-t)
			}
			k = max(k, t)
		}
	}
	return k
}
