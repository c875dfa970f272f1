package samplers

import "github.com/profsim/profsim/profile"

// KomoriumSetBuilt is a komorium-set's members' profiles made through a
// profile.Builder each (the set's fallback, the reference its direct
// construction must equal); nil if s is not a komorium-set.
func KomoriumSetBuilt(s Sampler) []*profile.Profile {
	set, ok := s.(*komoriumSetSampler)
	if !ok {
		return nil
	}
	return set.builtProfiles()
}
