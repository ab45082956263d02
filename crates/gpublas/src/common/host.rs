//! Helpers every family's host backend uses: reference-BLAS vector indexing, scalars read
//! per batch entry, and the error for an operand that is not host memory.

use crate::{Coef, Error, Scalar};

/// The error of a host call given memory that is not host memory (the checks before the
/// call make this unreachable through the public API).
pub(crate) fn not_host() -> Error {
    Error::InvalidPointer("an operand of a host call is not host memory".into())
}

/// The first exact zero on the diagonal of the order-`k` matrix at `off` (leading dimension
/// `ld`) of `c`: getri's and gels's singularity test, as their kernels'.
pub(crate) fn first_zero_diagonal<T: Scalar>(
    c: &[T],
    off: usize,
    ld: usize,
    k: usize,
) -> Option<usize> {
    (0..k).find(|&i| c[off + i * (ld + 1)] == T::zero())
}

/// The value of a scalar for batch entry `e`.
pub(crate) fn coef_value<T: Scalar>(c: &Coef<'_, T>, e: usize) -> Result<T, Error> {
    match c {
        Coef::Host(v) => Ok(*v),
        Coef::Device(b) => b.host_slice().map(|s| s[0]).ok_or_else(not_host),
        Coef::DevicePerEntry(b) => b.host_slice().map(|s| s[e]).ok_or_else(not_host),
    }
}

/// Index of logical element `i` of a vector of `len` at a non-zero increment `inc` (reference
/// BLAS: a negative increment walks the vector backwards).
pub(crate) fn at(len: usize, inc: isize, i: usize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (len - 1 - i) * inc.unsigned_abs()
    }
}

/// How a host call spreads its pieces over threads: not at all, over rayon's global pool, or
/// over a pool of the handle's own. The pieces themselves never depend on it, so results are
/// the same bit for bit.
#[derive(Clone)]
pub(crate) struct Par {
    parallel: bool,
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
}

impl Par {
    /// rayon's global pool (`RAYON_NUM_THREADS`, else one thread per core).
    pub(crate) fn global() -> Par {
        Par {
            parallel: true,
            pool: None,
        }
    }

    /// The calling thread only.
    pub(crate) fn single() -> Par {
        Par {
            parallel: false,
            pool: None,
        }
    }

    /// A pool of `n` threads of its own.
    pub(crate) fn pool(n: usize) -> Result<Par, Error> {
        let p = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("gpublas-host-{i}"))
            .build()
            .map_err(|e| {
                Error::Unsupported(format!("could not start a pool of {n} host threads: {e}"))
            })?;
        Ok(Par {
            parallel: true,
            pool: Some(std::sync::Arc::new(p)),
        })
    }

    pub(crate) fn threads(&self) -> usize {
        match (&self.pool, self.parallel) {
            (_, false) => 1,
            (Some(p), _) => p.current_num_threads(),
            (None, _) => rayon::current_num_threads(),
        }
    }

    /// Runs `f` where rayon's parallel iterators use this setting's threads.
    pub(crate) fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    /// `f(0), …, f(n - 1)`, in order, over the threads when there is more than one piece.
    pub(crate) fn map<R: Send>(&self, n: usize, f: impl Fn(usize) -> R + Sync + Send) -> Vec<R> {
        use rayon::prelude::*;
        if !self.parallel || n <= 1 {
            return (0..n).map(f).collect();
        }
        self.install(|| (0..n).into_par_iter().map(f).collect())
    }

    /// `f` on each of `items`, results in order, over the threads when there is more than one.
    pub(crate) fn map_items<I: Send, R: Send>(
        &self,
        items: Vec<I>,
        f: impl Fn(I) -> R + Sync + Send,
    ) -> Vec<R> {
        use rayon::prelude::*;
        if !self.parallel || items.len() <= 1 {
            return items.into_iter().map(f).collect();
        }
        self.install(|| items.into_par_iter().map(f).collect())
    }

    /// `f` on each chunk of `len` elements of `data` (the last may be shorter), with its
    /// index, over the threads.
    pub(crate) fn chunks_mut<T: Send>(
        &self,
        data: &mut [T],
        len: usize,
        f: impl Fn(usize, &mut [T]) + Sync + Send,
    ) {
        use rayon::prelude::*;
        let len = len.max(1);
        if !self.parallel || data.len() <= len {
            data.chunks_mut(len).enumerate().for_each(|(i, c)| f(i, c));
            return;
        }
        self.install(|| {
            data.par_chunks_mut(len)
                .enumerate()
                .for_each(|(i, c)| f(i, c))
        })
    }

    /// faer's parallelism for this setting.
    pub(crate) fn faer(&self) -> faer::Par {
        if self.parallel {
            faer::Par::rayon(self.threads())
        } else {
            faer::Par::Seq
        }
    }
}

thread_local! {
    /// The setting of the handle whose host call runs on this thread (set by [`Par::enter`]),
    /// for code deep in a call (faer's products) that has no handle at hand.
    static CURRENT: std::cell::RefCell<Option<Par>> = const { std::cell::RefCell::new(None) };
}

/// Restores the previous setting when a host call ends.
pub(crate) struct ParGuard(Option<Par>);

impl Drop for ParGuard {
    fn drop(&mut self) {
        let prev = self.0.take();
        CURRENT.with(|c| *c.borrow_mut() = prev);
    }
}

impl Par {
    /// Makes this the setting of the host call running on this thread until the guard drops.
    pub(crate) fn enter(&self) -> ParGuard {
        ParGuard(CURRENT.with(|c| c.borrow_mut().replace(self.clone())))
    }
}

/// The setting of the host call running on this thread (rayon's global pool outside one).
pub(crate) fn current_par() -> Par {
    CURRENT
        .with(|c| c.borrow().clone())
        .unwrap_or_else(Par::global)
}

/// Products and triangular algorithms with fewer multiply-adds than this stay on the calling
/// thread.
pub(crate) const PAR_MIN_FLOPS: usize = 1 << 21;

/// Runs `f` with faer's element type for `T` (the same layout, by tag), with the slices cast.
macro_rules! with_faer_type {
    ($t:ty, $f:ident, $($args:expr),*) => {
        match <$t as crate::common::elem::Blas1Elem>::TAG {
            "s" => $f::<f32>($($args),*),
            "d" => $f::<f64>($($args),*),
            "c" => $f::<faer::c32>($($args),*),
            _ => $f::<faer::c64>($($args),*),
        }
    };
}
pub(crate) use with_faer_type;
