// Package nearest finds the valid name nearest to a mistyped one, for
// "did you mean" hints in error messages.
package nearest

import "strings"

// Name returns the valid name nearest to name by edit distance, or ""
// when none is near: at most a third of the name's length apart, one edit
// at least and three at most, comparing case-insensitively; ties go to
// the first in valid.
func Name(name string, valid []string) string {
	limit := min(max(1, len(name)/3), 3)
	best, bestD := "", limit+1
	for _, v := range valid {
		if d := distance(strings.ToLower(name), v); d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

// distance is the Levenshtein distance, with a transposition of
// neighbours counting one (Damerau's optimal string alignment).
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 1 << 30 // not a typo of any name
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
