package importer

import (
	"slices"
	"time"
)

// How much time a sample stands for.
//
// JDK 17's JFR sampler thread (JfrThreadSampler::run, jfrThreadSampler.cpp)
// wakes once a period; at each wake-up it suspends each thread in Java
// code and walks it (OSThreadSampler::protected_task), which yields no
// event when the suspended thread's pc gives no Java frame (a stub, a
// runtime call: on chart 78 % of the ticks of its only busy thread have no
// sample), and walks one thread in native code without suspending it
// (JfrNativeSamplerCallback::call), which succeeds from its last Java
// frame. A native method sample therefore stands for one tick; the ticks
// at which a busy thread left no sample are its time in Java code that the
// walk could not place (and in the VM: the throwables' stack walks, costed
// apart), which belongs to its execution samples. Weighing every sample by
// the mean gap between visible ticks (EstimatePeriod) instead gives native
// code every failed Java sample's share: chart's MaskFill.FillAAPgram,
// 34 % of the model's time under a JVMTI sampler where the real one sees
// 8-9 %.

// TickPeriod is the period of JFR's sampler thread: the 10th percentile of
// the gaps between consecutive sampling ticks (samples less than TickGap
// apart are one tick). Ticks that left no sample make longer gaps, so the
// short end of the distribution is the sampler's own period (1 ms setting
// and its oversleep: 1.08-1.16 ms in the nine recordings of
// workloads/models); the 10th percentile rather than the least gap, so
// that a few ticks taken early do not set it. With fewer than two ticks,
// DefaultPeriod.
func TickPeriod(times []int64) time.Duration {
	if Ticks(times) < 2 {
		return DefaultPeriod
	}
	var gaps []int64
	last := times[0]
	for i := 1; i < len(times); i++ {
		if times[i]-times[i-1] >= int64(TickGap) {
			gaps = append(gaps, times[i]-last)
			last = times[i]
		}
	}
	slices.Sort(gaps)
	return time.Duration(gaps[len(gaps)/10])
}

// weigh sets the weights when the busiest thread (the most execution
// samples) has native method samples or throwables: an execution sample
// stands for period = (that thread's span − its native samples × tick −
// its throwables' walks) / its execution samples, at least tick. A model
// thread runs back to back from its start (docs/IMPORT.md), so the span
// from its first sample of either kind to its last (and that tick) is its
// time; the busiest thread sets
// the period for all (one Period per model). ok is false, and the period
// left as EstimatePeriod gave it, when the busiest thread has neither.
func (rec *recording) weigh(tick float64, throwNs map[int]float64) (period float64, ok bool) {
	busiest := -1
	for i, th := range rec.threads {
		if busiest < 0 || th.samples > rec.threads[busiest].samples {
			busiest = i
		}
	}
	if busiest < 0 || rec.threads[busiest].samples == 0 {
		return 0, false
	}
	natives := 0
	for _, k := range rec.native.order {
		st := rec.native.stacks[k]
		if ti, ok := rec.byThread[threadKey{st.s.Thread.Name, threadID(st.s.Thread)}]; ok && ti == busiest {
			natives += st.count
		}
	}
	thrown := throwNs[busiest]
	if natives == 0 && thrown == 0 {
		return 0, false
	}
	th := rec.threads[busiest]
	first, last := th.first, th.last
	for k, sp := range rec.native.spans {
		if ti, ok := rec.byThread[k]; ok && ti == busiest {
			first, last = min(first, sp[0]), max(last, sp[1])
		}
	}
	span := float64(last-first) + tick // its first sample's tick counts too
	period = (span - float64(natives)*tick - thrown) / float64(th.samples)
	return max(period, tick), true
}
