// Package qaptest makes the QAP instances of the tests of packages qap, ilp and order
// and holds their brute-force optimum. Only tests import it (it imports qap, so
// internal/oracle, which the lowest packages' tests import, cannot hold it).
//
// It follows no paper: it is test support.
package qaptest
