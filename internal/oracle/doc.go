// Package oracle holds reference definitions: slow, plainly correct implementations
// that the fast code of the module is checked against in tests (brute-force sums, an
// independent k = 3 search). Only tests import it; it is not part of procalloc's API.
//
// It follows no paper of its own: the definitions it writes out plainly are those of
// the papers its callers follow (F of Leung et al. 2002 §2.2, the total pairwise L1
// distance of Bender et al. 2005; see those packages' doc comments).
package oracle
