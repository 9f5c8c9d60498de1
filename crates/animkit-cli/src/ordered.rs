//! Work on many files on every core, with results in input order.
//!
//! Files are taken in chunks of a few per core; each chunk runs in parallel and its results are
//! handed on in order before the next chunk starts, so output streams and memory stays bounded by
//! one chunk's results.

use rayon::prelude::*;

/// Files per chunk, per core.
const PER_CORE: usize = 16;

/// Runs `work` on every item on every core and passes the results to `emit` in input order.
pub fn for_each<T, R, W, E>(items: &[T], work: W, mut emit: E) -> anyhow::Result<()>
where
    T: Sync,
    R: Send,
    W: Fn(&T) -> R + Sync,
    E: FnMut(R) -> anyhow::Result<()>,
{
    let chunk = PER_CORE * rayon::current_num_threads().max(1);
    for items in items.chunks(chunk) {
        let results: Vec<R> = items.par_iter().map(&work).collect();
        for r in results {
            emit(r)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_in_input_order() {
        let items: Vec<u64> = (0..1000).collect();
        let mut seen = Vec::new();
        // Uneven work, so that later items often finish first.
        super::for_each(
            &items,
            |&i| {
                std::thread::sleep(std::time::Duration::from_micros((1000 - i) % 7));
                i * 2
            },
            |r| {
                seen.push(r);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, items.iter().map(|i| i * 2).collect::<Vec<_>>());
    }
}
