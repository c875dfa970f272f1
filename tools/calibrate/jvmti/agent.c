/*
 * A JVMTI agent that calls GetAllStackTraces N times, as a JVMTI sampling
 * profiler does (Hofer et al.'s JVMTI sampler; profsim's jvmti sampler),
 * and prints the threads and frames each call returned. Calibrate.java runs
 * it with -Xlog:safepoint, which times the VM operation at the safepoint.
 *
 * Options: n=CALLS,delay=MS,interval=US,depth=FRAMES
 * (defaults 60, 1500, 5000, 256).
 */
#include <jvmti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int n_calls = 60, delay_ms = 1500, interval_us = 5000, depth = 256;

static long since(struct timespec a) {
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec);
}

static void JNICALL agent(jvmtiEnv *env, JNIEnv *jni, void *arg) {
	struct timespec d = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
	struct timespec iv = {interval_us / 1000000, (interval_us % 1000000) * 1000L};
	nanosleep(&d, NULL);
	for (int i = 0; i < n_calls; i++) {
		nanosleep(&iv, NULL);
		jvmtiStackInfo *info;
		jint count;
		struct timespec a;
		clock_gettime(CLOCK_MONOTONIC, &a);
		jvmtiError err = (*env)->GetAllStackTraces(env, depth, &info, &count);
		long ns = since(a);
		if (err != JVMTI_ERROR_NONE) {
			fprintf(stderr, "calib agent: GetAllStackTraces failed: %d\n", err);
			exit(1);
		}
		long frames = 0;
		for (int t = 0; t < count; t++)
			frames += info[t].frame_count;
		(*env)->Deallocate(env, (unsigned char *)info);
		printf("JVMTI threads=%d frames=%ld call_ns=%ld\n", count, frames, ns);
		fflush(stdout);
	}
	printf("JVMTI_DONE\n");
	fflush(stdout);
}

static void JNICALL vminit(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
	jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
	jmethodID init = (*jni)->GetMethodID(jni, tc, "<init>", "(Ljava/lang/String;)V");
	jthread t = (*jni)->NewObject(jni, tc, init, (*jni)->NewStringUTF(jni, "calib-agent"));
	if (t == NULL || (*env)->RunAgentThread(env, t, agent, NULL, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
		fprintf(stderr, "calib agent: cannot start the agent thread\n");
		exit(1);
	}
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
	for (char *o = options ? strtok(options, ",") : NULL; o; o = strtok(NULL, ",")) {
		if (sscanf(o, "n=%d", &n_calls) == 1 || sscanf(o, "delay=%d", &delay_ms) == 1 ||
		    sscanf(o, "interval=%d", &interval_us) == 1 || sscanf(o, "depth=%d", &depth) == 1)
			continue;
		fprintf(stderr, "calib agent: unknown option %s\n", o);
		return JNI_ERR;
	}
	jvmtiEnv *env;
	if ((*vm)->GetEnv(vm, (void **)&env, JVMTI_VERSION_1_2) != JNI_OK)
		return JNI_ERR;
	jvmtiEventCallbacks cb;
	memset(&cb, 0, sizeof cb);
	cb.VMInit = vminit;
	if ((*env)->SetEventCallbacks(env, &cb, sizeof cb) != JVMTI_ERROR_NONE ||
	    (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL) != JVMTI_ERROR_NONE)
		return JNI_ERR;
	return JNI_OK;
}
