package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns the random stream of one component of a run: a PCG
// generator keyed by the run's master seed and the component's name
// ("thread/main-0", "sampler/tprof"). Components never share a stream, so
// adding a sampler never changes the program's own random choices.
func Stream(seed uint64, component string) *rand.Rand {
	return rand.New(streamSource(seed, component))
}

// streamSource is Stream's generator, for a caller that draws from it
// directly as well (a thread's branches: Thread.pcg).
func streamSource(seed uint64, component string) *rand.PCG {
	h := fnv.New64a()
	h.Write([]byte(component))
	return rand.NewPCG(seed, h.Sum64())
}
