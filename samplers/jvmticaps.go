package samplers

import (
	"fmt"
	"slices"
	"strings"
)

// JVMTI capabilities a JVMTI agent holds (the safepoint family's
// capabilities key). HotSpot changes what it does for the whole run from
// the set agents hold, whether or not they use them
// (JvmtiManageCapabilities::update, prims/jvmtiManageCapabilities.cpp,
// sets JvmtiExport's flags); profsim models the effects measured on
// OpenJDK 17 (tools/agents, docs/CALIBRATION.md) and accepts every
// capability by name so that a profiler's set can be written whole.

// jvmtiCapabilities are the capabilities of JDK 17's jvmtiCapabilities,
// in the header's order (as tools/agents/caps.c requests them).
var jvmtiCapabilities = []string{
	"can_tag_objects", "can_generate_field_modification_events", "can_generate_field_access_events",
	"can_get_bytecodes", "can_get_synthetic_attribute", "can_get_owned_monitor_info",
	"can_get_current_contended_monitor", "can_get_monitor_info", "can_pop_frame", "can_redefine_classes",
	"can_signal_thread", "can_get_source_file_name", "can_get_line_numbers", "can_get_source_debug_extension",
	"can_access_local_variables", "can_maintain_original_method_order", "can_generate_single_step_events",
	"can_generate_exception_events", "can_generate_frame_pop_events", "can_generate_breakpoint_events",
	"can_suspend", "can_redefine_any_class", "can_get_current_thread_cpu_time", "can_get_thread_cpu_time",
	"can_generate_method_entry_events", "can_generate_method_exit_events", "can_generate_all_class_hook_events",
	"can_generate_compiled_method_load_events", "can_generate_monitor_events", "can_generate_vm_object_alloc_events",
	"can_generate_native_method_bind_events", "can_generate_garbage_collection_events",
	"can_generate_object_free_events", "can_force_early_return", "can_get_owned_monitor_stack_depth_info",
	"can_get_constant_pool", "can_set_native_method_prefix", "can_retransform_classes", "can_retransform_any_class",
	"can_generate_resource_exhaustion_heap_events", "can_generate_resource_exhaustion_threads_events",
	"can_generate_early_vmstart", "can_generate_early_class_hook_events", "can_generate_sampled_object_alloc_events",
}

// jvmtiPresets are profilers' own capability sets, read from their
// sources: the presets of tools/agents/caps.c.
var jvmtiPresets = map[string][]string{
	"none": nil,
	// JDK 8's hprof (src/share/demo/jvmti/hprof/hprof_init.c,
	// getCapabilities) with cpu=samples, no bytecode injection, no
	// monitor=y: its "must have" set and the two it takes when available.
	"hprof-cpu-samples": {"can_generate_garbage_collection_events", "can_tag_objects", "can_generate_exception_events",
		"can_get_source_file_name", "can_get_line_numbers"},
	// async-profiler 4.x (src/vmEntry.cpp, VM::init) on HotSpot.
	"async-profiler": {"can_generate_all_class_hook_events", "can_retransform_classes", "can_retransform_any_class",
		"can_get_bytecodes", "can_get_constant_pool", "can_get_source_file_name", "can_get_line_numbers",
		"can_generate_compiled_method_load_events", "can_generate_monitor_events",
		"can_generate_garbage_collection_events", "can_tag_objects"},
	// JDK 17's debugger back end (src/jdk.jdwp.agent/share/native/libjdwp/
	// debugInit.c, DEF_Agent_OnLoad): its needed set and every potential
	// one it takes that HotSpot 17 offers at OnLoad.
	"jdwp": {"can_access_local_variables", "can_generate_single_step_events", "can_generate_exception_events",
		"can_generate_frame_pop_events", "can_generate_breakpoint_events", "can_suspend",
		"can_generate_method_entry_events", "can_generate_method_exit_events",
		"can_generate_garbage_collection_events", "can_maintain_original_method_order",
		"can_generate_monitor_events", "can_tag_objects", "can_force_early_return",
		"can_generate_field_modification_events", "can_generate_field_access_events", "can_get_bytecodes",
		"can_get_synthetic_attribute", "can_get_owned_monitor_info", "can_get_current_contended_monitor",
		"can_get_monitor_info", "can_pop_frame", "can_redefine_classes", "can_redefine_any_class",
		"can_get_owned_monitor_stack_depth_info", "can_get_constant_pool", "can_get_source_debug_extension",
		"can_get_source_file_name", "can_get_line_numbers", "can_signal_thread"},
}

// jvmtiCapabilitySet reads a capabilities key: "" (none), a preset name,
// or capability names joined by '+'. An unknown name is an error naming
// it and the presets.
func jvmtiCapabilitySet(spec string) (map[string]bool, error) {
	set := map[string]bool{}
	if spec == "" {
		return set, nil
	}
	if p, ok := jvmtiPresets[spec]; ok {
		for _, c := range p {
			set[c] = true
		}
		return set, nil
	}
	for _, c := range strings.Split(spec, "+") {
		if !slices.Contains(jvmtiCapabilities, c) {
			presets := make([]string, 0, len(jvmtiPresets))
			for p := range jvmtiPresets {
				presets = append(presets, p)
			}
			slices.Sort(presets)
			return nil, fmt.Errorf("capabilities: %q is neither a JVMTI capability of JDK 17 (can_...) nor a preset (%s)", c, strings.Join(presets, ", "))
		}
		set[c] = true
	}
	return set, nil
}

// postsOnExceptions reports whether HotSpot posts on exceptions for an
// agent holding set: JvmtiManageCapabilities::update sets
// JvmtiExport::can_post_on_exceptions from exception, frame-pop and
// method-exit events, and with it every compiled frame an exception
// enters from a callee deoptimizes (sim.VM.SetCatchDeopt).
func postsOnExceptions(set map[string]bool) bool {
	return set["can_generate_exception_events"] || set["can_generate_frame_pop_events"] || set["can_generate_method_exit_events"]
}
