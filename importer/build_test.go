package importer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A site's planned calls are summed in one order: a float sum in map
// order differs in its last bits from run to run (a model file imported
// twice from one recording differed in a branch probability's 16th
// digit).
func TestSiteCallsSumInOneOrder(t *testing.T) {
	b := &builder{}
	it := &item{kind: itemSite, callees: map[int]int{}}
	for i := 0; i < 8; i++ {
		b.methods = append(b.methods, &mmethod{calls: 1 + 0.1*float64(i*i), incl: 3 + 0.7*float64(i)})
		it.callees[i] = 1 + 3*i
	}
	want, _ := b.siteCalls(it)
	for k := 0; k < 200; k++ {
		got, _ := b.siteCalls(it)
		require.Equal(t, want, got, "call %d", k)
	}
}
