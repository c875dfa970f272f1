/*
 * caps.c: a JVMTI agent that requests a set of capabilities at
 * Agent_OnLoad and does nothing else — no events, no threads, no
 * callbacks — so that what a profiler's capabilities alone do to the JVM
 * (its JIT above all) can be measured apart from its sampling, bookkeeping
 * and output (issue 38; tools/agents/README.md).
 *
 *   java -agentpath:libcaps.so=SET ...
 *
 * SET is a preset (none, hprof-cpu-samples, async-profiler, jdwp) or a
 * list of capability names joined by '+' (can_access_local_variables+
 * can_tag_objects). The agent prints to stderr the capabilities it asked
 * for and those it holds after AddCapabilities, and refuses to load
 * (JNI_ERR, the JVM exits) on an unknown name or a capability the VM
 * cannot give: a measurement never runs with a set other than the one it
 * names.
 */
#include <jvmti.h>
#include <stdio.h>
#include <string.h>

/* CAPS lists every capability of JDK 17's jvmtiCapabilities this agent
 * can request by name. */
#define CAPS(X) \
	X(can_tag_objects) \
	X(can_generate_field_modification_events) \
	X(can_generate_field_access_events) \
	X(can_get_bytecodes) \
	X(can_get_synthetic_attribute) \
	X(can_get_owned_monitor_info) \
	X(can_get_current_contended_monitor) \
	X(can_get_monitor_info) \
	X(can_pop_frame) \
	X(can_redefine_classes) \
	X(can_signal_thread) \
	X(can_get_source_file_name) \
	X(can_get_line_numbers) \
	X(can_get_source_debug_extension) \
	X(can_access_local_variables) \
	X(can_maintain_original_method_order) \
	X(can_generate_single_step_events) \
	X(can_generate_exception_events) \
	X(can_generate_frame_pop_events) \
	X(can_generate_breakpoint_events) \
	X(can_suspend) \
	X(can_redefine_any_class) \
	X(can_get_current_thread_cpu_time) \
	X(can_get_thread_cpu_time) \
	X(can_generate_method_entry_events) \
	X(can_generate_method_exit_events) \
	X(can_generate_all_class_hook_events) \
	X(can_generate_compiled_method_load_events) \
	X(can_generate_monitor_events) \
	X(can_generate_vm_object_alloc_events) \
	X(can_generate_native_method_bind_events) \
	X(can_generate_garbage_collection_events) \
	X(can_generate_object_free_events) \
	X(can_force_early_return) \
	X(can_get_owned_monitor_stack_depth_info) \
	X(can_get_constant_pool) \
	X(can_set_native_method_prefix) \
	X(can_retransform_classes) \
	X(can_retransform_any_class) \
	/* end */

static int set_by_name(jvmtiCapabilities *c, const char *name) {
#define SET(n) if (strcmp(name, #n) == 0) { c->n = 1; return 1; }
	CAPS(SET)
#undef SET
	return 0;
}

static void print(const char *what, const jvmtiCapabilities *c) {
	fprintf(stderr, "caps: %s:", what);
#define PRINT(n) if (c->n) fprintf(stderr, " %s", #n);
	CAPS(PRINT)
#undef PRINT
	fprintf(stderr, "\n");
}

/* The presets: each profiler's own AddCapabilities, from its source.
 * hprof-cpu-samples: JDK 8's hprof (src/share/demo/jvmti/hprof/
 *   hprof_init.c, getCapabilities) with cpu=samples and neither heap
 *   tracking by bytecode injection nor monitor=y: its "must have" set for
 *   CPU sampling and the two it takes when available.
 * async-profiler: async-profiler 4.x (src/vmEntry.cpp, VM::init) on
 *   HotSpot.
 * jdwp: JDK 17's debugger back end (src/jdk.jdwp.agent/share/native/
 *   libjdwp/debugInit.c, DEF_Agent_OnLoad): its needed set and the
 *   potential ones it takes, each of which HotSpot 17 offers at OnLoad. */
static const char *preset(const char *name) {
	if (strcmp(name, "none") == 0)
		return "";
	if (strcmp(name, "hprof-cpu-samples") == 0)
		return "can_generate_garbage_collection_events+can_tag_objects+can_generate_exception_events+"
		       "can_get_source_file_name+can_get_line_numbers";
	if (strcmp(name, "async-profiler") == 0)
		return "can_generate_all_class_hook_events+can_retransform_classes+can_retransform_any_class+"
		       "can_get_bytecodes+can_get_constant_pool+can_get_source_file_name+can_get_line_numbers+"
		       "can_generate_compiled_method_load_events+can_generate_monitor_events+"
		       "can_generate_garbage_collection_events+can_tag_objects";
	if (strcmp(name, "jdwp") == 0)
		return "can_access_local_variables+can_generate_single_step_events+can_generate_exception_events+"
		       "can_generate_frame_pop_events+can_generate_breakpoint_events+can_suspend+"
		       "can_generate_method_entry_events+can_generate_method_exit_events+"
		       "can_generate_garbage_collection_events+can_maintain_original_method_order+"
		       "can_generate_monitor_events+can_tag_objects+can_force_early_return+"
		       "can_generate_field_modification_events+can_generate_field_access_events+can_get_bytecodes+"
		       "can_get_synthetic_attribute+can_get_owned_monitor_info+can_get_current_contended_monitor+"
		       "can_get_monitor_info+can_pop_frame+can_redefine_classes+can_redefine_any_class+"
		       "can_get_owned_monitor_stack_depth_info+can_get_constant_pool+can_get_source_debug_extension+"
		       "can_get_source_file_name+can_get_line_numbers+can_signal_thread";
	return NULL;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
	(void)reserved;
	jvmtiEnv *jvmti;
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
		fprintf(stderr, "caps: no JVMTI environment\n");
		return JNI_ERR;
	}
	const char *set = options ? options : "none";
	const char *list = preset(set);
	if (list == NULL)
		list = set;
	jvmtiCapabilities want;
	memset(&want, 0, sizeof want);
	char buf[4096];
	if (strlen(list) >= sizeof buf) {
		fprintf(stderr, "caps: option too long\n");
		return JNI_ERR;
	}
	strcpy(buf, list);
	for (char *tok = strtok(buf, "+"); tok != NULL; tok = strtok(NULL, "+")) {
		if (!set_by_name(&want, tok)) {
			fprintf(stderr, "caps: unknown capability or preset %s (presets: none, hprof-cpu-samples, async-profiler, jdwp)\n", tok);
			return JNI_ERR;
		}
	}
	print(set, &want);
	jvmtiError err = (*jvmti)->AddCapabilities(jvmti, &want);
	if (err != JVMTI_ERROR_NONE) {
		fprintf(stderr, "caps: AddCapabilities failed: error %d\n", err);
		return JNI_ERR;
	}
	jvmtiCapabilities have;
	(*jvmti)->GetCapabilities(jvmti, &have);
	print("held", &have);
	return JNI_OK;
}
