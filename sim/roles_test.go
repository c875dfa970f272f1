package sim

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgentCannotReachTheTruth: the Agent a run hands to profilers and to
// every handler is not the VM, and neither it nor the JIT's CompilerHost
// has a method that reads the ground truth or drives the run.
func TestAgentCannotReachTheTruth(t *testing.T) {
	vm := newVM(t, parse(t, hookProgram), nil)
	a := vm.Agent()
	_, isVM := a.(*VM)
	assert.False(t, isVM, "an Agent must not be a *VM (a type assertion would reach the truth)")
	_, isHost := a.(CompilerHost)
	assert.False(t, isHost, "an Agent must not be a CompilerHost")

	ownerOnly := []string{"Truth", "Result", "Run", "RunUntil", "Done", "Install",
		"Statements", "Footprint", "NoTruthProfile", "TruthPerMethod", "CheckProfile", "SetContext", "Err", "Reached"}
	for _, role := range []reflect.Type{
		reflect.TypeFor[Agent](), reflect.TypeFor[CompilerHost](),
	} {
		for _, name := range ownerOnly {
			_, has := role.MethodByName(name)
			assert.False(t, has, "%v has %s, which only the run's owner may call", role, name)
		}
	}
	// The roles are disjoint: View reads, Controller acts, CodeManager is
	// the JIT's.
	view, ctl, code := reflect.TypeFor[View](), reflect.TypeFor[Controller](), reflect.TypeFor[CodeManager]()
	for i := 0; i < view.NumMethod(); i++ {
		name := view.Method(i).Name
		_, inCtl := ctl.MethodByName(name)
		_, inCode := code.MethodByName(name)
		assert.False(t, inCtl || inCode, "View's %s is also in another role", name)
	}
	// Handlers are called with the Agent, not the VM.
	var got Agent
	id := vm.AddTimer(timerFunc(func(a Agent, _ Time, _ int64) { got = a }))
	vm.ScheduleTimer(id, 10, 0)
	vm.Run()
	require.NotNil(t, got)
	_, isVM = got.(*VM)
	assert.False(t, isVM, "a timer handler was called with the *VM")
}

type timerFunc func(Agent, Time, int64)

func (f timerFunc) OnTimer(a Agent, at Time, arg int64) { f(a, at, arg) }
