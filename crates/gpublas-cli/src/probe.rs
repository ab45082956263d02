//! The host backend's benchmark peer: the machine's read bandwidth.

/// The host's practical read ceiling for a row that reads `bytes` bytes: every thread of
/// rayon's pool summing its share of a buffer of that size (eight accumulators per piece, so
/// the loop runs at memory speed). Returns seconds per pass (median of `reps`) and keeps
/// the buffer for the next row of the same size.
pub(crate) fn host_read_probe(bytes: f64, reps: usize) -> f64 {
    use rayon::prelude::*;
    use std::sync::Mutex;
    static BUF: Mutex<Vec<f64>> = Mutex::new(Vec::new());
    let words = ((bytes / 8.0) as usize).max(1);
    let mut buf = BUF.lock().unwrap_or_else(|p| p.into_inner());
    if buf.len() != words {
        *buf = (0..words).into_par_iter().map(|i| (i % 7) as f64).collect();
    }
    let pass = |b: &[f64]| -> f64 {
        b.par_chunks(1 << 15)
            .map(|c| {
                let mut s = [0.0f64; 8];
                let mut it = c.chunks_exact(8);
                for w in &mut it {
                    for k in 0..8 {
                        s[k] += w[k];
                    }
                }
                s.iter().sum::<f64>() + it.remainder().iter().sum::<f64>()
            })
            .sum()
    };
    std::hint::black_box(pass(&buf));
    let mut times: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let t = std::time::Instant::now();
            std::hint::black_box(pass(&buf));
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
