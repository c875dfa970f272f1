package sim

import "fmt"

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evStart   eventKind = iota // a thread from the program's spec becomes runnable
	evWake                     // a blocked thread's I/O or sleep ends
	evSlice                    // a CPU's time slice ends
	evTimer                    // a registered TimerHandler fires
	evPreempt                  // a woken service thread takes a busy CPU
)

// event is stored by value in the queue: no allocation per event.
type event struct {
	at   Time
	seq  uint64 // insertion order: equal-time events fire FIFO
	kind eventKind
	a    int32 // thread, CPU or timer handler
	b    int64 // generation or timer argument
}

// eventQueue is a binary min-heap ordered by (at, seq). It is generic-free
// and value-typed so pushing and popping never allocates once grown.
type eventQueue struct {
	heap []event
	seq  uint64
}

func (q *eventQueue) len() int { return len(q.heap) }

func (q *eventQueue) less(i, j int) bool {
	a, b := &q.heap[i], &q.heap[j]
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

func (q *eventQueue) push(e event) {
	if e.at < 0 {
		panic(fmt.Sprintf("sim: event at negative time %d", e.at))
	}
	e.seq = q.seq
	q.seq++
	q.heap = append(q.heap, e)
	i := len(q.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.heap[i], q.heap[p] = q.heap[p], q.heap[i]
		i = p
	}
}

// peek returns the earliest event; the queue must not be empty.
func (q *eventQueue) peek() *event { return &q.heap[0] }

func (q *eventQueue) pop() event {
	top := q.heap[0]
	last := len(q.heap) - 1
	q.heap[0] = q.heap[last]
	q.heap = q.heap[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.less(l, m) {
			m = l
		}
		if r < last && q.less(r, m) {
			m = r
		}
		if m == i {
			return top
		}
		q.heap[i], q.heap[m] = q.heap[m], q.heap[i]
		i = m
	}
}
