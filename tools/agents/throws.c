/*
 * throws.c: a JVMTI agent that counts the exceptions a program throws and
 * where they are caught, by the exception's class, so that what a
 * profiler's exception events cost (docs/CALIBRATION.md, "JVMTI
 * capabilities") can be set against how often the program really throws —
 * which JFR's throwable events, emitted when a Throwable is constructed,
 * do not tell when a program throws one instance many times.
 *
 *   java -agentpath:libthrows.so=FILE ...
 *
 * It holds can_generate_exception_events and can_tag_objects and enables
 * the Exception and ExceptionCatch events. Every throw is one of:
 *   new      the first throw of its object;
 *   rethrow  the object the same thread caught last, thrown again from the
 *            frame that caught it (a catch that rethrows, a finally block);
 *   again    any other throw of an object thrown before (a shared
 *            instance, as javac's SharedInapplicableMethodException).
 * For each, the frames between the throw and the frame that catches it
 * (GetFrameCount at the throw less at the catch: interpreted, compiled and
 * inlined frames alike). At the VM's death FILE (default stderr) gets a
 * TSV: class, new, rethrow, again, caught, mean frames unwound by a catch.
 * Its own cost is large (a JVMTI event every throw and catch): use it for
 * counts, never for time.
 */
#include <jvmti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CLASSES 4096
#define OBJECT_TAG_BASE 1000000000LL

struct class_count {
	char *sig;
	long long fresh, rethrow, again, caught, unwound;
};

static struct class_count classes[MAX_CLASSES];
static int nclasses;
static long long next_object_tag = OBJECT_TAG_BASE;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char out_path[4096];

/* Per thread: the depth of the last throw, and the object and depth of
 * the last catch. */
static __thread jint throw_depth;
static __thread jlong last_caught_tag;
static __thread jint last_caught_depth = -1;

/* class_index returns the index of exception's class in classes, tagging
 * the class object with index+1 on first sight; -1 when full. */
static int class_index(jvmtiEnv *jvmti, JNIEnv *jni, jobject exception)
{
	jclass k = (*jni)->GetObjectClass(jni, exception);
	jlong tag = 0;
	(*jvmti)->GetTag(jvmti, k, &tag);
	if (tag > 0 && tag <= MAX_CLASSES) {
		(*jni)->DeleteLocalRef(jni, k);
		return (int)tag - 1;
	}
	int i = -1;
	char *sig = NULL;
	if ((*jvmti)->GetClassSignature(jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE) {
		pthread_mutex_lock(&mu);
		if (nclasses < MAX_CLASSES) {
			i = nclasses++;
			classes[i].sig = strdup(sig);
			(*jvmti)->SetTag(jvmti, k, i + 1);
		}
		pthread_mutex_unlock(&mu);
		(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	}
	(*jni)->DeleteLocalRef(jni, k);
	return i;
}

static void JNICALL on_exception(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method,
				 jlocation location, jobject exception, jmethodID catch_method,
				 jlocation catch_location)
{
	(void)method, (void)location, (void)catch_method, (void)catch_location;
	int i = class_index(jvmti, jni, exception);
	jint depth = 0;
	(*jvmti)->GetFrameCount(jvmti, thread, &depth);
	throw_depth = depth;
	jlong tag = 0;
	(*jvmti)->GetTag(jvmti, exception, &tag);
	pthread_mutex_lock(&mu);
	if (tag < OBJECT_TAG_BASE) {
		tag = next_object_tag++;
		pthread_mutex_unlock(&mu);
		(*jvmti)->SetTag(jvmti, exception, tag);
		pthread_mutex_lock(&mu);
		if (i >= 0)
			classes[i].fresh++;
	} else if (i >= 0) {
		if (tag == last_caught_tag && depth == last_caught_depth)
			classes[i].rethrow++;
		else
			classes[i].again++;
	}
	pthread_mutex_unlock(&mu);
}

static void JNICALL on_catch(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method,
			     jlocation location, jobject exception)
{
	(void)method, (void)location;
	int i = class_index(jvmti, jni, exception);
	jint depth = 0;
	(*jvmti)->GetFrameCount(jvmti, thread, &depth);
	jlong tag = 0;
	(*jvmti)->GetTag(jvmti, exception, &tag);
	last_caught_tag = tag;
	last_caught_depth = depth;
	if (i < 0)
		return;
	pthread_mutex_lock(&mu);
	classes[i].caught++;
	if (throw_depth >= depth)
		classes[i].unwound += throw_depth - depth;
	pthread_mutex_unlock(&mu);
}

static void JNICALL on_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	(void)jvmti, (void)jni;
	FILE *f = out_path[0] ? fopen(out_path, "w") : stderr;
	if (f == NULL) {
		fprintf(stderr, "throws: cannot write %s\n", out_path);
		return;
	}
	fprintf(f, "class\tnew\trethrow\tagain\tcaught\tmean_frames_unwound\n");
	pthread_mutex_lock(&mu);
	for (int i = 0; i < nclasses; i++) {
		struct class_count *c = &classes[i];
		fprintf(f, "%s\t%lld\t%lld\t%lld\t%lld\t%.2f\n", c->sig, c->fresh, c->rethrow, c->again,
			c->caught, c->caught ? (double)c->unwound / (double)c->caught : 0.0);
	}
	pthread_mutex_unlock(&mu);
	if (f != stderr)
		fclose(f);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	if (options != NULL) {
		if (strlen(options) >= sizeof out_path) {
			fprintf(stderr, "throws: file name too long\n");
			return JNI_ERR;
		}
		strcpy(out_path, options);
	}
	jvmtiEnv *jvmti;
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
		fprintf(stderr, "throws: no JVMTI 1.2\n");
		return JNI_ERR;
	}
	jvmtiCapabilities caps = {0};
	caps.can_generate_exception_events = 1;
	caps.can_tag_objects = 1;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
		fprintf(stderr, "throws: the VM refuses exception events or object tags\n");
		return JNI_ERR;
	}
	jvmtiEventCallbacks cb = {0};
	cb.Exception = on_exception;
	cb.ExceptionCatch = on_catch;
	cb.VMDeath = on_death;
	if ((*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_EXCEPTION, NULL) !=
		    JVMTI_ERROR_NONE ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_EXCEPTION_CATCH,
					       NULL) != JVMTI_ERROR_NONE ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL) !=
		    JVMTI_ERROR_NONE) {
		fprintf(stderr, "throws: cannot enable the events\n");
		return JNI_ERR;
	}
	return JNI_OK;
}
