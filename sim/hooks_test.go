package sim

import (
	"fmt"
	"strings"
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

// stackIDs records, at every timer, each running thread's StackID with
// its stack of methods and the IDs its frames give their prefixes.
type stackIDs struct {
	seen []stackIDSeen
}

type stackIDSeen struct {
	thread  ThreadID
	id      int64
	methods string
	prefix  []int64 // 2·f.Node + (id & 1), frame by frame
}

func (r *stackIDs) OnTimer(vm Agent, at Time, _ int64) {
	for _, th := range vm.Threads() {
		if th.State != Running {
			continue
		}
		id := vm.StackID(th.ID)
		s := stackIDSeen{thread: th.ID, id: id}
		for _, f := range vm.Stack(th.ID, nil) {
			s.methods += vm.Image().Names[f.Method] + ">"
			s.prefix = append(s.prefix, 2*int64(f.Node)+id&1)
		}
		r.seen = append(r.seen, s)
	}
}

const stackIDProgram = `
name: stackids
methods:
  - class: A
    name: main
    body:
      - loop:
          trips: 40
          body:
            - call: {method: A.f}
            - call: {method: A.g}
            - work: {cycles: 30, bytecodes: 3}
  - class: A
    name: f
    body: [{work: {cycles: 40, bytecodes: 4}}, {call: {method: A.g}}]
  - class: A
    name: g
    body: [{work: {cycles: 25, bytecodes: 2}}]
threads: [{name: t0, entry: A.main}, {name: t1, entry: A.main}]
`

// StackID is one number per stack of methods, on every thread: equal
// IDs are equal stacks, different stacks different IDs, a frame's Node
// gives its prefix's ID, a thread the run does not profile has IDs of
// its own (odd), and with the truth per method there are none.
func TestStackIDIdentifiesTheStack(t *testing.T) {
	sample := func(tweak func(*Config), perMethod bool) []stackIDSeen {
		vm := newVM(t, parse(t, stackIDProgram), func(c *Config) {
			c.ContextSwitch, c.CPUs = 0, 2
			if tweak != nil {
				tweak(c)
			}
		})
		if perMethod {
			require.NoError(t, vm.TruthPerMethod())
		}
		r := &stackIDs{}
		tid := vm.AddTimer(r)
		for at := Time(1); at < 8000; at += 7 {
			vm.ScheduleTimer(tid, at, 0)
		}
		vm.Run()
		require.NotEmpty(t, r.seen)
		return r.seen
	}
	byID, byStack := map[int64]string{}, map[string]int64{}
	threads := map[ThreadID]bool{}
	for _, s := range sample(nil, false) {
		require.GreaterOrEqual(t, s.id, int64(0), s.methods)
		assert.Zero(t, s.id&1, "a profiled thread's ID is even")
		if m, ok := byID[s.id]; ok {
			assert.Equal(t, m, s.methods, "one ID, one stack")
		}
		if id, ok := byStack[s.methods]; ok {
			assert.Equal(t, id, s.id, "one stack, one ID, on threads %v", threads)
		}
		byID[s.id], byStack[s.methods] = s.methods, s.id
		assert.Equal(t, s.id, s.prefix[len(s.prefix)-1], "the top frame's Node gives the ID")
		threads[s.thread] = true
	}
	assert.Len(t, threads, 2)
	assert.Len(t, byStack, 4, "main, main>f, main>g, main>f>g") // and main>f>g is not main>g
	// Every prefix seen as a stack of its own has the ID its frame gives.
	for _, s := range sample(nil, false) {
		parts := strings.SplitAfter(s.methods, ">")
		for k := range s.prefix {
			if id, ok := byStack[strings.Join(parts[:k+1], "")]; ok {
				assert.Equal(t, id, s.prefix[k], "%s, prefix %d", s.methods, k)
			}
		}
	}
	// t1 not profiled: its IDs are odd, t0's even.
	for _, s := range sample(func(c *Config) { c.ProfileThreads = "t0" }, false) {
		assert.Equal(t, int64(s.thread), s.id&1, "thread %d: %s", s.thread, s.methods)
	}
	for _, s := range sample(nil, true) {
		assert.Equal(t, int64(-1), s.id, "truth per method: %s", s.methods)
	}
}

// stackTops compares, at every timer, each running thread's StackTop
// with the last frames of its Stack, for n from 0 to one past the depth.
type stackTops struct {
	checked, deepest int
	failed           []string
}

func (r *stackTops) OnTimer(vm Agent, at Time, _ int64) {
	for _, th := range vm.Threads() {
		if th.State != Running {
			continue
		}
		full := vm.Stack(th.ID, nil)
		for n := 0; n <= len(full)+1; n++ {
			top, depth := vm.StackTop(th.ID, n, nil)
			want := full[max(len(full)-n, 0):]
			if depth != len(full) || fmt.Sprint(top) != fmt.Sprint(want) {
				r.failed = append(r.failed, fmt.Sprintf("@%d thread %d n=%d: %v (%d frames), want %v (%d)", at, th.ID, n, top, depth, want, len(full)))
			}
			r.checked++
		}
		r.deepest = max(r.deepest, len(full))
	}
}

// StackTop is Stack's last n frames (all of them when n is larger) and
// Stack's length, on every running thread at every moment sampled.
func TestStackTopIsTheStacksTop(t *testing.T) {
	vm := newVM(t, parse(t, stackIDProgram), func(c *Config) { c.ContextSwitch, c.CPUs = 0, 2 })
	r := &stackTops{}
	tid := vm.AddTimer(r)
	for at := Time(1); at < 8000; at += 7 {
		vm.ScheduleTimer(tid, at, 0)
	}
	vm.Run()
	assert.Empty(t, r.failed)
	assert.Positive(t, r.checked)
	assert.Equal(t, 3, r.deepest, "main>f>g was met")
}
