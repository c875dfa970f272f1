package sim

// runQueue is the FIFO of runnable threads waiting for a CPU. Taking the
// head costs O(1) however long the queue is: a thread storm queues 10⁵
// threads, and shifting the slice at every dispatch made that quadratic.
type runQueue struct {
	ids  []ThreadID
	head int
}

func (q *runQueue) len() int { return len(q.ids) - q.head }

// push appends id at the tail.
func (q *runQueue) push(id ThreadID) { q.ids = append(q.ids, id) }

// pop removes and returns the head; the queue must not be empty.
func (q *runQueue) pop() ThreadID {
	id := q.ids[q.head]
	q.head++
	switch {
	case q.head == len(q.ids):
		q.ids, q.head = q.ids[:0], 0
	case q.head >= 1024 && 2*q.head >= len(q.ids):
		// Reuse the space before the head once it is half the slice:
		// amortized O(1), and the slice stays within twice the queue.
		n := copy(q.ids, q.ids[q.head:])
		q.ids, q.head = q.ids[:n], 0
	}
	return id
}

// pushFront puts id at the head.
func (q *runQueue) pushFront(id ThreadID) {
	if q.head > 0 {
		q.head--
		q.ids[q.head] = id
		return
	}
	q.ids = append(q.ids, 0)
	copy(q.ids[1:], q.ids)
	q.ids[0] = id
}

// moveToFront moves id, if queued, to the head, keeping the others' order.
func (q *runQueue) moveToFront(id ThreadID) {
	items := q.ids[q.head:]
	for i, x := range items {
		if x == id {
			copy(items[1:i+1], items[:i])
			items[0] = id
			return
		}
	}
}
