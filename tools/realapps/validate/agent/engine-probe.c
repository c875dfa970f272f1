/*
 * engine-probe.c: which engine async-profiler's `cpu` event uses here.
 *
 * async-profiler 4.5 (src/profiler.cpp Profiler::selectEngine) takes
 * perf_events for `cpu` when PerfEvents::supported() (src/perfEvents_linux.cpp)
 * can open a software cpu-clock event with a call chain for the calling
 * thread, and otherwise ctimer (CTimer::supported() is true on Linux).
 * This makes the same perf_event_open call and prints "perf_events" or
 * "ctimer" (with the errno of the failed call on stderr).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 1000000000;
	attr.sample_type = PERF_SAMPLE_CALLCHAIN;
	attr.disabled = 1;
	long fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd == -1) {
		fprintf(stderr, "engine-probe: perf_event_open: %s\n", strerror(errno));
		puts("ctimer");
		return 0;
	}
	close((int)fd);
	puts("perf_events");
	return 0;
}
