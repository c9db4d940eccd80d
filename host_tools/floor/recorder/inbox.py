"""The recorder's messages from the broker, waiting to be stored: put by
paho's thread as each arrives, taken by the recorder's loop all together
(whatever is waiting when it turns to them, one transaction), each with the
call that acknowledges it to the broker once that transaction is committed.

A batch is never waited for: the first message is taken as soon as it
comes, the rest only if they are there already. How many are there is the
broker's doing: mosquitto sends a connected session at most its in-flight
window unacknowledged (max_inflight_messages, 20 by default, which the
floor's broker keeps), and a backlog queued while the recorder was away
all at once when it comes back; a batch takes at most MOST of them, so the
first record of a batch waits for the commit of at most MOST.
"""

import queue

BROKER_WINDOW = 20  # mosquitto's max_inflight_messages (its default, which the floor's broker keeps)
MOST = 100  # a batch's bound: past some tens of records a commit's cost is spread thin already


class Inbox:
    def __init__(self):
        self._queue = queue.SimpleQueue()

    def put(self, topic, payload, retained, ack):
        self._queue.put((topic, payload, retained, ack))

    def take(self, timeout):
        """[(topic, payload, retained, ack)]: the first to come within `timeout` seconds and
        every one waiting behind it, in the order they came; [] when none came."""
        try:
            batch = [self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()]
        except queue.Empty:
            return []
        while len(batch) < MOST:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return batch
