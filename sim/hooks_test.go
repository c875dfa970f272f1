package sim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a hook and timer handler that logs where threads were.
type recorder struct {
	id     HandlerID
	log    []string
	rearm  Hook
	again  int // how many more times to re-arm
	action Action
	parked []ThreadID
}

func (r *recorder) where(vm View, t ThreadID) string {
	var s string
	for i, f := range vm.Stack(t, nil) {
		if i > 0 {
			s += ">"
		}
		s += fmt.Sprintf("%s:%d", vm.Image().Names[f.Method], f.Line)
	}
	return s
}

func (r *recorder) OnHook(vm Agent, t ThreadID, h Hook) Action {
	r.log = append(r.log, fmt.Sprintf("%v@%d %s", h, vm.Now(), r.where(vm, t)))
	if r.again > 0 {
		r.again--
		vm.Arm(r.id, t, r.rearm)
	}
	if r.action == Park {
		r.parked = append(r.parked, t)
	}
	return r.action
}

func (r *recorder) OnTimer(vm Agent, at Time, arg int64) {
	switch arg {
	case 0: // sample every thread's position
		for _, th := range vm.Threads() {
			if th.State == Running {
				r.log = append(r.log, fmt.Sprintf("timer@%d %s", at, r.where(vm, th.ID)))
			}
		}
	case 1: // release parked threads
		for _, t := range r.parked {
			vm.Unpark(t)
		}
		r.parked = nil
	}
}

const hookProgram = `
name: hooks
methods:
  - class: A
    name: main
    body:
      - work: {cycles: 100, bytecodes: 10}
      - loop:
          trips: 3
          body:
            - work: {cycles: 50, bytecodes: 5}
            - call: {method: A.leaf}
      - work: {cycles: 100, bytecodes: 10}
  - class: A
    name: leaf
    body:
      - work: {cycles: 20, bytecodes: 7}
threads: [{name: main, entry: A.main}]
`

func hookVM(t *testing.T) (*VM, *recorder) {
	vm := newVM(t, parse(t, hookProgram), func(c *Config) { c.ContextSwitch = 0 })
	r := &recorder{}
	id, err := vm.AddHookHandler(r)
	require.NoError(t, err)
	r.id = id
	return vm, r
}

func TestPollHookStopsAtTheNextPoll(t *testing.T) {
	vm, r := hookVM(t)
	vm.Arm(r.id, 0, HookPoll)
	r.rearm, r.again = HookPoll, 10
	res := vm.Run()
	// Lines: main 1 work, 2 loop, 3 work, 4 call, 5 work; leaf 1 work.
	// The first poll is leaf's return poll, seen in main at the call site
	// (line 4); then the back-edge poll at the loop's line 2; and so on.
	assert.Equal(t, []string{
		"poll@175 A.main:4", // 100 + 50 + 4 (call) + 20 + 1 (return poll)
		"poll@176 A.main:2", // back-edge poll
		"poll@251 A.main:4",
		"poll@252 A.main:2",
		"poll@327 A.main:4", // the last iteration exits: no back-edge poll
		"poll@427 ",         // exiting is a safe transition: reported, no stack
	}, r.log)
	// Stopping did not change the run.
	plain := newVM(t, parse(t, hookProgram), func(c *Config) { c.ContextSwitch = 0 }).Run()
	assert.Equal(t, plain.Truth.Nodes(), res.Truth.Nodes())
}

func TestEntryAndReturnHooks(t *testing.T) {
	vm, r := hookVM(t)
	vm.Arm(r.id, 0, HookEntry)
	vm.RunUntil(160) // inside the first call to leaf (entered at 154)
	require.Equal(t, []string{"entry@154 A.main:4>A.leaf:1"}, r.log)
	vm.ArmReturn(r.id, 0, 1) // leaf's frame
	vm.Run()
	assert.Equal(t, "return@174 A.main:4", r.log[1]) // at the pop, before main runs its return poll
	assert.Len(t, r.log, 2, "hooks are one-shot")
}

func TestBytecodeCounterHook(t *testing.T) {
	vm, r := hookVM(t)
	vm.SetBytecodeCounter(r.id, 0, 16)
	vm.Run()
	// 10 (main's first block) + 5 (loop body) = 15; leaf's 7 crosses 16.
	// The thread stops at that block before running its cycles.
	assert.Equal(t, []string{"bytecodes@154 A.main:4>A.leaf:1"}, r.log)
	assert.Equal(t, int64(16-10-5-7), vm.BytecodeCounter(0))
}

func TestBytecodeCounterInsideFastForwardedLoop(t *testing.T) {
	src := `
name: ff
methods:
  - class: A
    name: main
    body:
      - loop: {trips: 1000, body: [{work: {cycles: 10, bytecodes: 4}}]}
threads: [{name: main, entry: A.main}]
`
	vm := newVM(t, parse(t, src), func(c *Config) { c.ContextSwitch = 0 })
	r := &recorder{}
	id, _ := vm.AddHookHandler(r)
	vm.SetBytecodeCounter(id, 0, 401)
	vm.Run()
	// Block 101 brings the counter from 1 to −3: it starts after 100
	// iterations of 10 cycles + 1 back-edge poll each.
	assert.Equal(t, []string{"bytecodes@1100 A.main:2"}, r.log)
	assert.Equal(t, int64(-3), vm.BytecodeCounter(0))
}

func TestTimerSeesExactPositions(t *testing.T) {
	vm, r := hookVM(t)
	tid := vm.AddTimer(r)
	for _, at := range []Time{50, 154, 160, 175, 400} {
		vm.ScheduleTimer(tid, at, 0)
	}
	vm.Run()
	assert.Equal(t, []string{
		"timer@50 A.main:1",           // in the first work
		"timer@154 A.main:4>A.leaf:1", // just entered leaf
		"timer@160 A.main:4>A.leaf:1",
		"timer@175 A.main:2", // back in main after the return poll, at the back-edge
		"timer@400 A.main:5", // the final work
	}, r.log)
}

func TestParkAndUnpark(t *testing.T) {
	vm, r := hookVM(t)
	r.action = Park
	vm.Arm(r.id, 0, HookPoll)
	tid := vm.AddTimer(r)
	vm.ScheduleTimer(tid, 1000, 1) // unpark at 1 µs
	res := vm.Run()
	th := res.Threads[0]
	assert.Equal(t, Time(1000-175), th.States[Parked], "parked from the first poll until the timer")
	plain := newVM(t, parse(t, hookProgram), func(c *Config) { c.ContextSwitch = 0 }).Run()
	assert.Equal(t, plain.Threads[0].CPU(), th.CPU(), "parking costs no CPU")
	assert.Equal(t, plain.End+Time(1000-175), res.End)
}

func TestDisarmedHooksChangeNothing(t *testing.T) {
	vm, r := hookVM(t)
	vm.Arm(r.id, 0, HookPoll)
	vm.Disarm(r.id, 0, HookPoll)
	vm.Run()
	assert.Empty(t, r.log)
}
