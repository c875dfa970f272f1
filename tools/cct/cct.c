/*
 * cct.c: a JVMTI agent that counts a Java program's distinct calling
 * contexts. It keeps one calling-context tree for all threads, keyed by
 * method (jmethodID): a context is the path of methods from the bottom
 * frame of a thread's stack to a frame, the same definition as profsim's
 * ground truth (sim/truth.go: one root, a thread's entry method its child).
 *
 *   java -agentpath:libcct.so=OPTIONS ...
 *
 * OPTIONS, comma separated:
 *   out=FILE       write the report to FILE (default stderr)
 *   every=N        a line every N million method entries (default 10)
 *   mark=C.M       a line each time method M of class C is entered (C in
 *                  internal form, e.g. antlr/Tool.doEverything); '+'
 *                  separates several. A driver's iteration method marks
 *                  its iterations.
 *   check=N        compare the tree's depth with the VM's frame count
 *                  (GetFrameCount) every N entries of a thread (default
 *                  65536; 0 = never) and resync from its stack if they
 *                  differ
 *
 * Each line: seconds since VM init, method entries, distinct contexts
 * (nodes of the tree without the root), distinct methods, the deepest
 * context's depth, threads seen, resyncs, exits by exception. At VM death
 * the final line, the deepest context and the methods with the most
 * contexts.
 *
 * Method entry and exit events put every thread in interpreter-only mode
 * (HotSpot posts them only then: JvmtiExport::post_method_entry and
 * post_method_exit in src/hotspot/share/prims/jvmtiExport.cpp), so a
 * program runs ~10-100x slower. A frame popped by an exception gets its
 * MethodExit with was_popped_by_exception set
 * (JvmtiExport::notice_unwind_due_to_exception), so exits always match
 * entries; a thread's first event builds its path from its stack
 * (GetStackTrace), since frames pushed before the events were enabled
 * never had an entry.
 */
#include <jvmti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint32_t u32;
typedef uint64_t u64;

static jvmtiEnv *jvmti;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static u64 every = 10000000;
static u64 check_every = 65536;
static char *marks[16];
static int nmarks;
static int dead;
static struct timespec t0;

/* Nodes: node 0 is the root. */
static u32 *n_parent, *n_method, *n_depth;
static u32 n_count, n_cap;
/* Children: open addressing on (parent, method); slots hold node ids, 0 empty. */
static u32 *h_slots;
static u64 h_mask;

/* Methods: jmethodID -> index, with names and flags. */
typedef struct {
	jmethodID id;
	char *name; /* "class.method" */
	u32 contexts;
	int mark;
} method_t;
static method_t *methods;
static u32 m_count, m_cap;
static u32 *mh_slots; /* index + 1, 0 empty */
static u64 mh_mask;

static u64 calls, exc_exits, resyncs, threads, mark_count;
static u32 deepest; /* node id of the deepest context */

typedef struct {
	u32 node;
	u32 started;
	u64 events;
} tstate_t;
static __thread tstate_t ts;

static u64 hash2(u64 a, u64 b) {
	u64 h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
	return h ^ (h >> 29);
}

static void die(const char *what) {
	fprintf(stderr, "cct: %s\n", what);
	exit(1);
}

static void *grow(void *p, size_t n, size_t size) {
	void *q = realloc(p, n * size);
	if (q == NULL)
		die("out of memory");
	return q;
}

static void nodes_rehash(void) {
	u64 cap = (h_mask + 1) * 2;
	free(h_slots);
	h_slots = calloc(cap, sizeof(u32));
	if (h_slots == NULL)
		die("out of memory");
	h_mask = cap - 1;
	for (u32 i = 1; i < n_count; i++) {
		u64 j = hash2(n_parent[i], n_method[i]) & h_mask;
		while (h_slots[j] != 0)
			j = (j + 1) & h_mask;
		h_slots[j] = i;
	}
}

static const char *method_name(u32 m);

/* child returns parent's child for method m, creating it. */
static u32 child(u32 parent, u32 m) {
	u64 j = hash2(parent, m) & h_mask;
	for (;;) {
		u32 n = h_slots[j];
		if (n == 0)
			break;
		if (n_parent[n] == parent && n_method[n] == m)
			return n;
		j = (j + 1) & h_mask;
	}
	if (n_count == n_cap) {
		n_cap *= 2;
		n_parent = grow(n_parent, n_cap, sizeof(u32));
		n_method = grow(n_method, n_cap, sizeof(u32));
		n_depth = grow(n_depth, n_cap, sizeof(u32));
	}
	u32 n = n_count++;
	n_parent[n] = parent;
	n_method[n] = m;
	n_depth[n] = n_depth[parent] + 1;
	methods[m].contexts++;
	if (n_depth[n] > n_depth[deepest])
		deepest = n;
	h_slots[j] = n;
	if ((u64)n_count * 2 > h_mask + 1)
		nodes_rehash();
	return n;
}

static char *describe(jmethodID id) {
	char *name = NULL, *sig = NULL;
	jclass cls;
	char buf[1024];
	if ((*jvmti)->GetMethodName(jvmti, id, &name, NULL, NULL) != JVMTI_ERROR_NONE)
		return strdup("?");
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, id, &cls) != JVMTI_ERROR_NONE ||
	    (*jvmti)->GetClassSignature(jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE) {
		snprintf(buf, sizeof buf, "?.%s", name);
	} else {
		/* "Lpkg/Class;" -> "pkg/Class" */
		size_t n = strlen(sig);
		const char *c = sig;
		if (n >= 2 && sig[0] == 'L' && sig[n - 1] == ';') {
			c = sig + 1;
			n -= 2;
		}
		snprintf(buf, sizeof buf, "%.*s.%s", (int)n, c, name);
	}
	if (name)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	if (sig)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	return strdup(buf);
}

/* method returns id's index, registering it on first sight. */
static u32 method(jmethodID id) {
	u64 j = hash2((u64)(uintptr_t)id, 0) & mh_mask;
	for (;;) {
		u32 s = mh_slots[j];
		if (s == 0)
			break;
		if (methods[s - 1].id == id)
			return s - 1;
		j = (j + 1) & mh_mask;
	}
	if (m_count == m_cap) {
		m_cap *= 2;
		methods = grow(methods, m_cap, sizeof(method_t));
	}
	u32 m = m_count++;
	methods[m].id = id;
	methods[m].name = describe(id);
	methods[m].contexts = 0;
	methods[m].mark = 0;
	for (int i = 0; i < nmarks; i++)
		if (strcmp(methods[m].name, marks[i]) == 0)
			methods[m].mark = 1;
	mh_slots[j] = m + 1;
	if ((u64)m_count * 2 > mh_mask + 1) {
		u64 cap = (mh_mask + 1) * 2;
		free(mh_slots);
		mh_slots = calloc(cap, sizeof(u32));
		if (mh_slots == NULL)
			die("out of memory");
		mh_mask = cap - 1;
		for (u32 i = 0; i < m_count; i++) {
			u64 k = hash2((u64)(uintptr_t)methods[i].id, 0) & mh_mask;
			while (mh_slots[k] != 0)
				k = (k + 1) & mh_mask;
			mh_slots[k] = i + 1;
		}
	}
	return m;
}

static const char *method_name(u32 m) { return methods[m].name; }

static double elapsed(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
}

static void report(const char *what) {
	fprintf(out, "%s t=%.1f calls=%llu contexts=%u methods=%u maxdepth=%u threads=%llu resyncs=%llu excexits=%llu marks=%llu\n",
		what, elapsed(), (unsigned long long)calls, n_count - 1, m_count, n_depth[deepest],
		(unsigned long long)threads, (unsigned long long)resyncs, (unsigned long long)exc_exits,
		(unsigned long long)mark_count);
	fflush(out);
}

/* sync sets the thread's node from its stack; with lock held. */
static void sync_stack(jthread thread) {
	jint n = 0;
	if ((*jvmti)->GetFrameCount(jvmti, thread, &n) != JVMTI_ERROR_NONE)
		die("GetFrameCount failed");
	jvmtiFrameInfo *frames = malloc((size_t)(n + 16) * sizeof(jvmtiFrameInfo));
	jint got = 0;
	if (frames == NULL)
		die("out of memory");
	if ((*jvmti)->GetStackTrace(jvmti, thread, 0, n + 16, frames, &got) != JVMTI_ERROR_NONE)
		die("GetStackTrace failed");
	u32 node = 0;
	for (jint i = got - 1; i >= 0; i--)
		node = child(node, method(frames[i].method));
	free(frames);
	ts.node = node;
}

static void start_thread(jthread thread) {
	ts.started = 1;
	threads++;
	sync_stack(thread);
}

static void JNICALL on_method_entry(jvmtiEnv *env, JNIEnv *jni, jthread thread, jmethodID id) {
	pthread_mutex_lock(&lock);
	if (dead)
		goto done;
	calls++;
	if (!ts.started) {
		start_thread(thread); /* the stack holds the entered frame */
	} else {
		u32 m = method(id);
		ts.node = child(ts.node, m);
		if (methods[m].mark) {
			mark_count++;
			report("mark");
		}
		if (check_every && ++ts.events % check_every == 0) {
			jint n = 0;
			if ((*jvmti)->GetFrameCount(jvmti, thread, &n) == JVMTI_ERROR_NONE &&
			    (u32)n != n_depth[ts.node]) {
				resyncs++;
				sync_stack(thread);
			}
		}
	}
	if (calls % every == 0)
		report("calls");
done:
	pthread_mutex_unlock(&lock);
}

static void JNICALL on_method_exit(jvmtiEnv *env, JNIEnv *jni, jthread thread, jmethodID id,
			    jboolean popped_by_exception, jvalue value) {
	pthread_mutex_lock(&lock);
	if (dead)
		goto done;
	if (!ts.started)
		start_thread(thread); /* the stack still holds the exiting frame */
	if (popped_by_exception)
		exc_exits++;
	if (ts.node != 0)
		ts.node = n_parent[ts.node];
done:
	pthread_mutex_unlock(&lock);
}

static int by_contexts(const void *a, const void *b) {
	const method_t *x = a, *y = b;
	return x->contexts < y->contexts ? 1 : x->contexts > y->contexts ? -1 : 0;
}

static void JNICALL on_death(jvmtiEnv *env, JNIEnv *jni) {
	pthread_mutex_lock(&lock);
	dead = 1;
	report("end");
	fprintf(out, "deepest context (%u frames), leaf first:\n", n_depth[deepest]);
	u32 shown = 0;
	for (u32 n = deepest; n != 0 && shown < 40; n = n_parent[n], shown++)
		fprintf(out, "  %s\n", method_name(n_method[n]));
	if (n_depth[deepest] > shown)
		fprintf(out, "  ... %u more\n", n_depth[deepest] - shown);
	qsort(methods, m_count, sizeof(method_t), by_contexts);
	fprintf(out, "methods with the most contexts:\n");
	for (u32 i = 0; i < m_count && i < 20; i++)
		fprintf(out, "  %10u %s\n", methods[i].contexts, methods[i].name);
	fflush(out);
	pthread_mutex_unlock(&lock);
}

static void JNICALL on_init(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
	clock_gettime(CLOCK_MONOTONIC, &t0);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_METHOD_ENTRY, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_METHOD_EXIT, NULL);
}

static void parse(char *opts) {
	if (opts == NULL)
		return;
	for (char *save = NULL, *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (strncmp(o, "out=", 4) == 0) {
			out = fopen(o + 4, "w");
			if (out == NULL)
				die("cannot open out file");
		} else if (strncmp(o, "every=", 6) == 0) {
			every = strtoull(o + 6, NULL, 10) * 1000000ULL;
			if (every == 0)
				die("every must be positive");
		} else if (strncmp(o, "check=", 6) == 0) {
			check_every = strtoull(o + 6, NULL, 10);
		} else if (strncmp(o, "mark=", 5) == 0) {
			for (char *s2 = NULL, *m = strtok_r(o + 5, "+", &s2); m && nmarks < 16; m = strtok_r(NULL, "+", &s2))
				marks[nmarks++] = strdup(m);
		} else {
			die("unknown option (out=, every=, check=, mark=)");
		}
	}
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
	out = stderr;
	parse(options);
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK)
		die("no JVMTI");
	jvmtiCapabilities caps;
	memset(&caps, 0, sizeof caps);
	caps.can_generate_method_entry_events = 1;
	caps.can_generate_method_exit_events = 1;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE)
		die("cannot add method entry/exit capabilities");
	jvmtiEventCallbacks cb;
	memset(&cb, 0, sizeof cb);
	cb.VMInit = on_init;
	cb.VMDeath = on_death;
	cb.MethodEntry = on_method_entry;
	cb.MethodExit = on_method_exit;
	(*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);

	n_cap = 1 << 16;
	n_parent = grow(NULL, n_cap, sizeof(u32));
	n_method = grow(NULL, n_cap, sizeof(u32));
	n_depth = grow(NULL, n_cap, sizeof(u32));
	n_parent[0] = 0;
	n_method[0] = UINT32_MAX;
	n_depth[0] = 0;
	n_count = 1;
	h_mask = (1 << 17) - 1;
	h_slots = calloc(h_mask + 1, sizeof(u32));
	m_cap = 1 << 12;
	methods = grow(NULL, m_cap, sizeof(method_t));
	mh_mask = (1 << 13) - 1;
	mh_slots = calloc(mh_mask + 1, sizeof(u32));
	if (h_slots == NULL || mh_slots == NULL)
		die("out of memory");
	return JNI_OK;
}
