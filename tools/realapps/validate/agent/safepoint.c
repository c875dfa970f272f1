/*
 * safepoint.c: a safepoint-biased sampling profiler as a JVMTI agent.
 *
 *   java -agentpath:libsafepoint.so=interval=10ms,delay=8s,duration=10s,depth=2048,file=OUT ...
 *
 * A thread started with RunAgentThread sleeps DELAY (counted from
 * Agent_OnLoad), then every INTERVAL calls GetAllStackTraces. HotSpot
 * implements that as a VM operation (jvmtiEnv.cpp JvmtiEnv::GetAllStackTraces
 * runs VM_GetAllStackTraces, jvmtiEnvBase.cpp VM_GetAllStackTraces::doit,
 * through VMThread::execute): every Java thread is stopped at a global
 * safepoint, so each stack is seen where its thread polled, not where it
 * was. Threads whose JVMTI state has JVMTI_THREAD_STATE_RUNNABLE are kept
 * (running Java code, in the VM, or in native code: all three are RUNNABLE
 * to JVMTI); the sampler's own thread is not. Ticks are on an absolute
 * schedule (clock_nanosleep TIMER_ABSTIME from the window's start), so the
 * time a sample itself takes is subtracted from the sleep; a sample that
 * ends past the next tick starts the next one at once (no catch-up burst)
 * and is counted as an overrun.
 *
 * Stacks are counted per (thread, jmethodID array) in a fixed hash table
 * and frame pool allocated when the window starts; a sample allocates
 * nothing else (GetAllStackTraces's result is one JVMTI allocation, freed
 * at once; the JNI local references it makes are freed by a local frame).
 * After DURATION the methods are named (GetMethodDeclaringClass,
 * GetClassSignature, GetMethodName; a native method gets the suffix
 * "_[n]") and FILE is written in folded form, root first (to FILE.part,
 * then renamed, so FILE's presence means it is complete):
 *
 *   # safepoint-agent interval_ns=... ticks=... samples=... overruns=... dropped=... mean_tick_ns=... mean_walk_ns=... mean_agent_ns=...
 *   THREAD;pkg.Class.method;...;leaf COUNT
 *
 * A tick's time (mean_tick_ns) is GetAllStackTraces's — the safepoint and
 * the VM thread's walks, the sampler thread waiting (mean_walk_ns) — and
 * the agent's own bookkeeping after it: naming new threads, hashing and
 * counting each stack, freeing the result (mean_agent_ns).
 *
 * With lines=1 the leaf frame's position is part of each stack and printed
 * after its method as "@BCI:LINE" (LINE from the method's line number
 * table, -1 without one; BCI -1 for a native method): where in the method
 * the thread stopped for the safepoint. That needs the capability
 * can_get_line_numbers, which is requested only then; it does not change
 * what HotSpot compiles (jvmtiManageCapabilities.cpp: not among the
 * capabilities that restrict the JIT).
 *
 * Then the thread idles until the JVM ends.
 */
#include <errno.h>
#include <jvmti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 4096
#define TABLE_BITS 16 /* 65536 distinct (thread, stack) pairs */
#define POOL_FRAMES (8u << 20) /* 8 Mi jmethodIDs: 64 MiB of address space, touched as used */

typedef struct {
	uint64_t hash;
	uint32_t thread; /* index into thread_names, +1; 0 = empty slot */
	uint32_t depth;
	uint32_t offset; /* into pool */
	uint64_t count;
	jlocation leaf; /* the leaf frame's bci with lines=1, else 0 */
} entry;

static jvmtiEnv *jvmti;
static int64_t opt_interval = 10000000, opt_delay = 8000000000LL, opt_duration = 10000000000LL;
static jint opt_depth = 2048;
static int opt_lines;
static char opt_file[4096];
static struct timespec loaded;

static entry *table;
static jmethodID *pool;
static uint32_t pool_used;
static char *thread_names[MAX_THREADS];
static uint32_t nthreads;
static uint64_t ticks, samples, overruns, dropped, tick_ns_sum, walk_ns_sum, agent_ns_sum;

static void fail(const char *what, jvmtiError err) {
	fprintf(stderr, "safepoint agent: %s failed: JVMTI error %d\n", what, err);
}

/* parse_duration reads "10ms", "8s", "500us", "100ns" or a bare number of ms. */
static int parse_duration(const char *s, size_t n, int64_t *out) {
	char buf[64];
	char *end;
	if (n == 0 || n >= sizeof buf) return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	double v = strtod(buf, &end);
	if (end == buf || v < 0) return -1;
	double mul;
	if (strcmp(end, "ns") == 0) mul = 1;
	else if (strcmp(end, "us") == 0) mul = 1e3;
	else if (strcmp(end, "ms") == 0 || *end == 0) mul = 1e6;
	else if (strcmp(end, "s") == 0) mul = 1e9;
	else return -1;
	*out = (int64_t)(v * mul);
	return 0;
}

static int parse_options(const char *opts) {
	if (opts == NULL) opts = "";
	const char *p = opts;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		if (eq == NULL) {
			fprintf(stderr, "safepoint agent: option %.*s: want key=value\n", (int)len, p);
			return -1;
		}
		size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
		const char *v = eq + 1;
#define KEY(k) (klen == strlen(k) && strncmp(p, k, klen) == 0)
		int bad = 0;
		if (KEY("interval")) bad = parse_duration(v, vlen, &opt_interval) || opt_interval <= 0;
		else if (KEY("delay")) bad = parse_duration(v, vlen, &opt_delay);
		else if (KEY("duration")) bad = parse_duration(v, vlen, &opt_duration) || opt_duration <= 0;
		else if (KEY("depth")) {
			char buf[16];
			char *end;
			bad = vlen == 0 || vlen >= sizeof buf;
			if (!bad) {
				memcpy(buf, v, vlen);
				buf[vlen] = 0;
				long d = strtol(buf, &end, 10);
				bad = *end != 0 || d <= 0 || d > 65535;
				opt_depth = (jint)d;
			}
		} else if (KEY("lines")) {
			bad = vlen != 1 || (v[0] != '0' && v[0] != '1');
			opt_lines = !bad && v[0] == '1';
		} else if (KEY("file")) {
			bad = vlen == 0 || vlen >= sizeof opt_file;
			if (!bad) {
				memcpy(opt_file, v, vlen);
				opt_file[vlen] = 0;
			}
		} else {
			fprintf(stderr, "safepoint agent: unknown option %.*s (want interval, delay, duration, depth, lines, file)\n",
				(int)klen, p);
			return -1;
		}
#undef KEY
		if (bad) {
			fprintf(stderr, "safepoint agent: option %.*s: bad value\n", (int)len, p);
			return -1;
		}
		p = comma ? comma + 1 : p + len;
	}
	if (opt_file[0] == 0) {
		fprintf(stderr, "safepoint agent: option file=PATH is required\n");
		return -1;
	}
	return 0;
}

static int64_t ns(const struct timespec *t) { return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec; }

static struct timespec ts(int64_t n) {
	struct timespec t = {(time_t)(n / 1000000000LL), (long)(n % 1000000000LL)};
	return t;
}

static void sleep_until(int64_t deadline) {
	struct timespec t = ts(deadline);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {
	}
}

static int64_t now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return ns(&t);
}

/* thread_index returns the thread's index + 1, naming it on first sight
 * (the one allocation outside the table, once per thread). */
static uint32_t thread_index(jthread t) {
	jlong tag = 0;
	if ((*jvmti)->GetTag(jvmti, t, &tag) == JVMTI_ERROR_NONE && tag > 0) return (uint32_t)tag;
	if (nthreads >= MAX_THREADS) return 0;
	jvmtiThreadInfo info;
	memset(&info, 0, sizeof info);
	const char *name = "[unnamed]";
	if ((*jvmti)->GetThreadInfo(jvmti, t, &info) == JVMTI_ERROR_NONE && info.name != NULL) name = info.name;
	char *copy = strdup(name);
	if (copy == NULL) return 0;
	for (char *c = copy; *c; c++)
		if (*c == ';' || *c == '\n') *c = '_';
	if (info.name != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
	thread_names[nthreads++] = copy;
	(*jvmti)->SetTag(jvmti, t, (jlong)nthreads);
	return nthreads;
}

static void count_stack(uint32_t thread, const jvmtiFrameInfo *frames, jint depth) {
	jlocation leaf = opt_lines && depth > 0 ? frames[0].location : 0;
	uint64_t h = (1469598103934665603ULL ^ thread) + (uint64_t)leaf * 1099511628211ULL;
	for (jint i = 0; i < depth; i++) {
		h ^= (uint64_t)(uintptr_t)frames[i].method;
		h *= 1099511628211ULL;
	}
	uint32_t mask = (1u << TABLE_BITS) - 1;
	for (uint32_t i = (uint32_t)h & mask, probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
		entry *e = &table[i];
		if (e->thread == 0) {
			if (pool_used + (uint32_t)depth > POOL_FRAMES) {
				dropped++;
				return;
			}
			e->hash = h;
			e->thread = thread;
			e->depth = (uint32_t)depth;
			e->offset = pool_used;
			for (jint j = 0; j < depth; j++) pool[pool_used + j] = frames[j].method;
			pool_used += (uint32_t)depth;
			e->count = 1;
			e->leaf = leaf;
			return;
		}
		if (e->hash == h && e->thread == thread && e->depth == (uint32_t)depth && e->leaf == leaf) {
			const jmethodID *m = pool + e->offset;
			jint j = 0;
			while (j < depth && m[j] == frames[j].method) j++;
			if (j == depth) {
				e->count++;
				return;
			}
		}
	}
	dropped++; /* table full */
}

static void sample(JNIEnv *env, jthread self) {
	jvmtiStackInfo *infos = NULL;
	jint n = 0;
	if ((*env)->PushLocalFrame(env, 64) != 0) return;
	int64_t t0 = now();
	jvmtiError err = (*jvmti)->GetAllStackTraces(jvmti, opt_depth, &infos, &n);
	int64_t t1 = now();
	walk_ns_sum += (uint64_t)(t1 - t0);
	if (err != JVMTI_ERROR_NONE) {
		fail("GetAllStackTraces", err);
		(*env)->PopLocalFrame(env, NULL);
		return;
	}
	for (jint i = 0; i < n; i++) {
		jvmtiStackInfo *s = &infos[i];
		if (!(s->state & JVMTI_THREAD_STATE_RUNNABLE) || s->frame_count == 0) continue;
		if ((*env)->IsSameObject(env, s->thread, self)) continue;
		uint32_t t = thread_index(s->thread);
		if (t == 0) {
			dropped++;
			continue;
		}
		count_stack(t, s->frame_buffer, s->frame_count);
		samples++;
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)infos);
	(*env)->PopLocalFrame(env, NULL);
	agent_ns_sum += (uint64_t)(now() - t1);
}

/* put_method writes the method's dotted name ("pkg.Class$Inner.name") to f. */
static void put_method(FILE *f, jmethodID m) {
	jclass cls = NULL;
	char *sig = NULL, *name = NULL;
	jboolean native = JNI_FALSE;
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) != JVMTI_ERROR_NONE ||
	    (*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE ||
	    (*jvmti)->GetMethodName(jvmti, m, &name, NULL, NULL) != JVMTI_ERROR_NONE) {
		fputs("[unknown]", f);
	} else {
		/* "Ljava/lang/String;" -> "java.lang.String"; arrays keep their descriptor. */
		const char *c = sig;
		size_t len = strlen(sig);
		if (len >= 2 && sig[0] == 'L' && sig[len - 1] == ';') {
			c = sig + 1;
			len -= 2;
		}
		for (size_t i = 0; i < len; i++) fputc(c[i] == '/' ? '.' : c[i], f);
		fputc('.', f);
		fputs(name, f);
		if ((*jvmti)->IsMethodNative(jvmti, m, &native) == JVMTI_ERROR_NONE && native) fputs("_[n]", f);
	}
	if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	if (name) (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
}

/* put_position writes "@BCI:LINE" for location loc in method m. */
static void put_position(FILE *f, jmethodID m, jlocation loc) {
	jint n = 0, line = -1;
	jvmtiLineNumberEntry *tab = NULL;
	if ((*jvmti)->GetLineNumberTable(jvmti, m, &n, &tab) == JVMTI_ERROR_NONE) {
		/* the entry with the largest start at or before loc */
		jint best = -1;
		for (jint j = 0; j < n; j++)
			if (tab[j].start_location <= loc && (best < 0 || tab[j].start_location > tab[best].start_location)) best = j;
		if (best >= 0) line = tab[best].line_number;
		(*jvmti)->Deallocate(jvmti, (unsigned char *)tab);
	}
	fprintf(f, "@%lld:%d", (long long)loc, (int)line);
}

static void write_profile(JNIEnv *env, int64_t window_ns) {
	char part[sizeof opt_file + 8];
	snprintf(part, sizeof part, "%s.part", opt_file);
	FILE *f = fopen(part, "w");
	if (f == NULL) {
		fprintf(stderr, "safepoint agent: cannot write %s: %s\n", part, strerror(errno));
		return;
	}
	fprintf(f,
		"# safepoint-agent interval_ns=%lld delay_ns=%lld duration_ns=%lld window_ns=%lld depth=%d ticks=%llu "
		"samples=%llu overruns=%llu dropped=%llu mean_tick_ns=%llu mean_walk_ns=%llu mean_agent_ns=%llu\n",
		(long long)opt_interval, (long long)opt_delay, (long long)opt_duration, (long long)window_ns, (int)opt_depth,
		(unsigned long long)ticks, (unsigned long long)samples, (unsigned long long)overruns,
		(unsigned long long)dropped, (unsigned long long)(ticks ? tick_ns_sum / ticks : 0),
		(unsigned long long)(ticks ? walk_ns_sum / ticks : 0), (unsigned long long)(ticks ? agent_ns_sum / ticks : 0));
	for (uint32_t i = 0; i < (1u << TABLE_BITS); i++) {
		entry *e = &table[i];
		if (e->thread == 0) continue;
		(*env)->PushLocalFrame(env, 16);
		fputs(thread_names[e->thread - 1], f);
		/* GetAllStackTraces gives frames leaf first; folded form is root first. */
		for (uint32_t j = e->depth; j-- > 0;) {
			fputc(';', f);
			put_method(f, pool[e->offset + j]);
			if (opt_lines && j == 0) put_position(f, pool[e->offset + j], e->leaf);
		}
		fprintf(f, " %llu\n", (unsigned long long)e->count);
		(*env)->PopLocalFrame(env, NULL);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "safepoint agent: writing %s: %s\n", part, strerror(errno));
		return;
	}
	if (rename(part, opt_file) != 0) fprintf(stderr, "safepoint agent: renaming %s: %s\n", part, strerror(errno));
}

static void JNICALL sampler(jvmtiEnv *jv, JNIEnv *env, void *arg) {
	(void)jv;
	(void)arg;
	jthread self;
	if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE) return;
	table = calloc((size_t)1 << TABLE_BITS, sizeof(entry));
	pool = malloc((size_t)POOL_FRAMES * sizeof(jmethodID));
	if (table == NULL || pool == NULL) {
		fprintf(stderr, "safepoint agent: out of memory for the stack table\n");
		return;
	}
	int64_t start = ns(&loaded) + opt_delay;
	sleep_until(start);
	int64_t end = start + opt_duration, next = start;
	int64_t t;
	while ((t = now()) < end) {
		sample(env, self);
		int64_t done = now();
		ticks++;
		tick_ns_sum += (uint64_t)(done - t);
		next += opt_interval;
		if (done >= next) {
			overruns++;
			next = done;
		}
		if (next >= end) break;
		sleep_until(next);
	}
	write_profile(env, now() - start);
	for (;;) sleep_until(now() + 3600000000000LL);
}

static void JNICALL vm_init(jvmtiEnv *jv, JNIEnv *env, jthread thread) {
	(void)thread;
	jclass cls = (*env)->FindClass(env, "java/lang/Thread");
	jmethodID init = cls ? (*env)->GetMethodID(env, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
	jstring name = (*env)->NewStringUTF(env, "safepoint-sampler");
	jobject t = init && name ? (*env)->NewObject(env, cls, init, name) : NULL;
	if (t == NULL) {
		fprintf(stderr, "safepoint agent: cannot create the sampler thread\n");
		return;
	}
	jvmtiError err = (*jv)->RunAgentThread(jv, t, sampler, NULL, JVMTI_THREAD_MAX_PRIORITY);
	if (err != JVMTI_ERROR_NONE) fail("RunAgentThread", err);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
	(void)reserved;
	clock_gettime(CLOCK_MONOTONIC, &loaded);
	if (parse_options(options) != 0) return JNI_ERR;
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
		fprintf(stderr, "safepoint agent: no JVMTI 1.2\n");
		return JNI_ERR;
	}
	jvmtiCapabilities caps;
	memset(&caps, 0, sizeof caps);
	caps.can_tag_objects = 1;
	caps.can_get_line_numbers = opt_lines ? 1 : 0;
	jvmtiError err = (*jvmti)->AddCapabilities(jvmti, &caps);
	if (err != JVMTI_ERROR_NONE) {
		fail("AddCapabilities(can_tag_objects, can_get_line_numbers)", err);
		return JNI_ERR;
	}
	jvmtiEventCallbacks cb;
	memset(&cb, 0, sizeof cb);
	cb.VMInit = vm_init;
	if ((err = (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb)) != JVMTI_ERROR_NONE ||
	    (err = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL)) != JVMTI_ERROR_NONE) {
		fail("enabling VMInit", err);
		return JNI_ERR;
	}
	return JNI_OK;
}
