//! The bounded set of connections `animkit view` serves at once.
//!
//! At most [`MAX_CONNECTIONS`] connections hold a thread. When all are taken, a new connection
//! cuts the one that has waited longest for its request head, once that one has waited
//! [`SLOW_HEAD`] (a browser on the same machine sends its head at once: only a stalled or
//! trickling client waits that long); when every slot is sending a response, the new connection
//! waits up to [`QUEUE_WAIT`] for one to end, else it gets a 503.

use std::collections::BTreeMap;
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Connections served at once (each on its own thread).
pub const MAX_CONNECTIONS: usize = 16;

/// How long a connection may have waited for its request head before a new one may take its slot.
pub const SLOW_HEAD: Duration = Duration::from_millis(250);

/// How long a new connection waits for a slot when every slot is sending a response.
pub const QUEUE_WAIT: Duration = Duration::from_secs(1);

/// How often a waiting connection looks again for a slot it may take.
const RECHECK: Duration = Duration::from_millis(50);

#[derive(Default)]
pub struct Pool {
    slots: Mutex<Slots>,
    freed: Condvar,
}

#[derive(Default)]
struct Slots {
    taken: usize,
    next_id: u64,
    /// The connections still waiting for their request head, oldest first, with when they came.
    reading: BTreeMap<u64, (Instant, Arc<TcpStream>)>,
}

/// A connection's place in the pool, given back when dropped.
pub struct Slot<'a> {
    pool: &'a Pool,
    id: u64,
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for `stream`, or `None` when none frees up within [`QUEUE_WAIT`].
    pub fn acquire(&self, stream: &Arc<TcpStream>) -> Option<Slot<'_>> {
        let give_up = Instant::now() + QUEUE_WAIT;
        let mut slots = self.lock();
        loop {
            if slots.taken < MAX_CONNECTIONS {
                slots.taken += 1;
                let id = slots.next_id;
                slots.next_id += 1;
                slots.reading.insert(id, (Instant::now(), Arc::clone(stream)));
                return Some(Slot { pool: self, id });
            }
            cut_slowest(&mut slots);
            let left = give_up.checked_duration_since(Instant::now())?;
            slots = self.freed.wait_timeout(slots, left.min(RECHECK)).unwrap_or_else(PoisonError::into_inner).0;
        }
    }
}

/// Shuts the connection that has waited longest for its head down, if it has waited [`SLOW_HEAD`]:
/// its read ends at once, its thread returns and frees the slot.
fn cut_slowest(slots: &mut Slots) {
    let Some((&id, (since, _))) = slots.reading.first_key_value() else { return };
    if since.elapsed() >= SLOW_HEAD {
        if let Some((_, stream)) = slots.reading.remove(&id) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

impl Slot<'_> {
    /// The request head is read: from now on the connection is not cut for a newcomer.
    pub fn head_read(&self) {
        self.pool.lock().reading.remove(&self.id);
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut slots = self.pool.lock();
        slots.taken = slots.taken.saturating_sub(1);
        slots.reading.remove(&self.id);
        self.pool.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// `n` accepted connections (with their client ends, kept open).
    fn connections(n: usize) -> Vec<(Arc<TcpStream>, TcpStream)> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        (0..n)
            .map(|_| {
                let client = TcpStream::connect(("127.0.0.1", port)).unwrap();
                (Arc::new(listener.accept().unwrap().0), client)
            })
            .collect()
    }

    #[test]
    fn a_full_pool_of_responses_turns_a_newcomer_away_after_the_wait() {
        let pool = Pool::default();
        let conns = connections(MAX_CONNECTIONS + 1);
        let slots: Vec<Slot> = conns[..MAX_CONNECTIONS]
            .iter()
            .map(|(s, _)| {
                let slot = pool.acquire(s).unwrap();
                slot.head_read(); // sending a response: never cut
                slot
            })
            .collect();
        let start = Instant::now();
        assert!(pool.acquire(&conns[MAX_CONNECTIONS].0).is_none());
        assert!(start.elapsed() >= QUEUE_WAIT);
        drop(slots);
        assert!(pool.acquire(&conns[MAX_CONNECTIONS].0).is_some(), "a slot is free again");
    }

    #[test]
    fn a_newcomer_cuts_the_connection_slowest_to_send_its_head() {
        use std::io::Read;
        let pool = Pool::default();
        let mut conns = connections(MAX_CONNECTIONS + 1);
        let newcomer = conns.pop().unwrap();
        let mut slots: Vec<Slot> = conns.iter().map(|(s, _)| pool.acquire(s).unwrap()).collect();
        std::thread::sleep(SLOW_HEAD);
        std::thread::scope(|scope| {
            // The newcomer waits for a slot while the first connection is cut.
            let waiting = scope.spawn(|| pool.acquire(&newcomer.0).is_some());
            let mut first = &conns[0].1;
            first.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
            assert_eq!(first.read(&mut [0u8; 1]).unwrap(), 0, "the oldest connection is shut down");
            let mut second = &conns[1].1;
            second.set_nonblocking(true).unwrap();
            assert!(second.read(&mut [0u8; 1]).is_err(), "the others stay open");
            // Its thread ends and frees the slot.
            drop(slots.remove(0));
            assert!(waiting.join().unwrap());
        });
    }
}
