//! cuBLASLt, the GEMM engine of the CUDA backend: matrix products whose workspace comes from
//! the handle's lease. Descriptors and the heuristic's answer are cached per handle and shape,
//! so a steady-state call is one hash lookup and one `cublasLtMatmul`.

use std::collections::HashMap;
use std::ffi::c_void;

use cudarc::cublaslt::sys;

use super::{libs, DeviceKind, Stream, StreamKind};
use crate::{Device, Error, Op};

/// Most bytes cuBLASLt may use per product (NVIDIA's recommendation for Hopper).
pub(crate) const LT_MAX_WORKSPACE: usize = 32 << 20;

/// Most cached shapes per handle; the cache is cleared when full.
const CACHE_MAX: usize = 4096;

/// Element types of products (an implementation detail of `gemm_ex`'s type traits).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dt {
    F16,
    Bf16,
    F32,
    F64,
    C32,
    C64,
}

impl Dt {
    fn cuda(self) -> sys::cudaDataType {
        use sys::cudaDataType::*;
        match self {
            Dt::F16 => CUDA_R_16F,
            Dt::Bf16 => CUDA_R_16BF,
            Dt::F32 => CUDA_R_32F,
            Dt::F64 => CUDA_R_64F,
            Dt::C32 => CUDA_C_32F,
            Dt::C64 => CUDA_C_64F,
        }
    }
}

/// Arithmetic of a product.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Compute {
    F32,
    F32FastTf32,
    F32FastF16,
    F32FastBf16,
    F64,
}

impl Compute {
    fn cublas(self) -> sys::cublasComputeType_t {
        use sys::cublasComputeType_t::*;
        match self {
            Compute::F32 => CUBLAS_COMPUTE_32F,
            Compute::F32FastTf32 => CUBLAS_COMPUTE_32F_FAST_TF32,
            Compute::F32FastF16 => CUBLAS_COMPUTE_32F_FAST_16F,
            Compute::F32FastBf16 => CUBLAS_COMPUTE_32F_FAST_16BF,
            Compute::F64 => CUBLAS_COMPUTE_64F,
        }
    }
}

/// Everything that determines a product's descriptors and algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Shape {
    pub ab: Dt,
    pub c: Dt,
    pub scale: Dt,
    pub compute: Compute,
    pub ta: Op,
    pub tb: Op,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
    pub batch: usize,
    /// Element strides between batch entries.
    pub sa: i64,
    pub sb: i64,
    pub sc: i64,
    /// Guaranteed alignment (bytes) of A, B, C over all entries.
    pub align: [u32; 3],
    /// Scalars in device memory (else host values).
    pub device_scalars: bool,
    /// Most workspace bytes the algorithm may use.
    pub limit: usize,
}

/// A scalar operand: host bytes (the value) or a device address.
#[derive(Clone, Copy)]
pub(crate) enum ScalarPtr<'a> {
    Host(&'a [u8]),
    Device(u64),
}

struct Cached {
    desc: sys::cublasLtMatmulDesc_t,
    la: sys::cublasLtMatrixLayout_t,
    lb: sys::cublasLtMatrixLayout_t,
    lc: sys::cublasLtMatrixLayout_t,
    algo: sys::cublasLtMatmulAlgo_t,
    ws: usize,
}

/// A cuBLASLt handle with its shape cache.
pub(crate) struct Lt {
    handle: sys::cublasLtHandle_t,
    dev: Device,
    cache: HashMap<Shape, Cached>,
}

// SAFETY: a cuBLASLt handle and its descriptors may be used from any thread as long as no two
// threads use them at once, which `&mut self` on every method guarantees.
unsafe impl Send for Lt {}

fn check(op: &str, s: sys::cublasStatus_t) -> Result<(), Error> {
    if s == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::Unsupported(format!("cuBLASLt {op} failed: {s:?}")))
    }
}

fn op_code(op: Op) -> i32 {
    match op {
        Op::N => 0,
        Op::T => 1,
        Op::C => 2,
    }
}

impl Lt {
    /// A cuBLASLt handle on `dev` (its context current), or `LibraryMissing`.
    pub(crate) fn new(dev: &Device) -> Result<Lt, Error> {
        let DeviceKind::Cuda(d) = &dev.0 else {
            return Err(Error::Unsupported("cuBLASLt on the host backend".into()));
        };
        libs::ensure_cublaslt()?;
        d.bind()?;
        let mut handle = std::ptr::null_mut();
        // SAFETY: plain handle creation; the library is present (checked above).
        check("create", unsafe { sys::cublasLtCreate(&mut handle) })?;
        Ok(Lt {
            handle,
            dev: dev.clone(),
            cache: HashMap::new(),
        })
    }

    /// Multiprocessors of the handle's device (how many blocks a product should offer).
    pub(crate) fn multiprocessors(&self) -> usize {
        self.dev.multiprocessor_count()
    }

    /// Whether this handle belongs to `dev`.
    pub(crate) fn is_for(&self, dev: &Device) -> bool {
        self.dev.same_as(dev)
    }

    /// The workspace bytes the chosen algorithm for `s` needs (at most `s.limit`), choosing
    /// and caching it on first sight. `Unsupported` when cuBLASLt has no algorithm.
    pub(crate) fn prepare(&mut self, s: &Shape) -> Result<usize, Error> {
        if let Some(c) = self.cache.get(s) {
            return Ok(c.ws);
        }
        if self.cache.len() >= CACHE_MAX {
            self.clear();
        }
        let c = self.create(s)?;
        let ws = c.ws;
        self.cache.insert(*s, c);
        Ok(ws)
    }

    fn create(&self, s: &Shape) -> Result<Cached, Error> {
        let mut c = Cached {
            desc: std::ptr::null_mut(),
            la: std::ptr::null_mut(),
            lb: std::ptr::null_mut(),
            lc: std::ptr::null_mut(),
            algo: sys::cublasLtMatmulAlgo_t { data: [0; 8] },
            ws: 0,
        };
        // SAFETY: descriptor creation and attribute setting with pointers to live locals of
        // the documented types and sizes; on any failure `destroy` frees what was created.
        let r = unsafe { self.fill(s, &mut c) };
        if let Err(e) = r {
            // SAFETY: only non-null descriptors created above are destroyed, once.
            unsafe { destroy(&c) };
            return Err(e);
        }
        Ok(c)
    }

    /// # Safety
    /// `c`'s descriptors must be null or owned by `c`.
    unsafe fn fill(&self, s: &Shape, c: &mut Cached) -> Result<(), Error> {
        use sys::cublasLtMatmulDescAttributes_t as DA;
        use sys::cublasLtMatmulPreferenceAttributes_t as PA;
        use sys::cublasLtMatrixLayoutAttribute_t as LA;
        check(
            "MatmulDescCreate",
            sys::cublasLtMatmulDescCreate(&mut c.desc, s.compute.cublas(), s.scale.cuda()),
        )?;
        let set = |attr: DA, v: i32| {
            check(
                "MatmulDescSetAttribute",
                sys::cublasLtMatmulDescSetAttribute(
                    c.desc,
                    attr,
                    &v as *const i32 as *const c_void,
                    4,
                ),
            )
        };
        set(DA::CUBLASLT_MATMUL_DESC_TRANSA, op_code(s.ta))?;
        set(DA::CUBLASLT_MATMUL_DESC_TRANSB, op_code(s.tb))?;
        let mode = if s.device_scalars {
            sys::cublasLtPointerMode_t::CUBLASLT_POINTER_MODE_DEVICE
        } else {
            sys::cublasLtPointerMode_t::CUBLASLT_POINTER_MODE_HOST
        };
        set(DA::CUBLASLT_MATMUL_DESC_POINTER_MODE, mode as i32)?;
        let (ar, ac) = if s.ta == Op::N {
            (s.m, s.k)
        } else {
            (s.k, s.m)
        };
        let (br, bc) = if s.tb == Op::N {
            (s.k, s.n)
        } else {
            (s.n, s.k)
        };
        let layouts = [
            (&mut c.la, s.ab, ar, ac, s.lda, s.sa),
            (&mut c.lb, s.ab, br, bc, s.ldb, s.sb),
            (&mut c.lc, s.c, s.m, s.n, s.ldc, s.sc),
        ];
        for (l, dt, r, cols, ld, stride) in layouts {
            check(
                "MatrixLayoutCreate",
                sys::cublasLtMatrixLayoutCreate(l, dt.cuda(), r as u64, cols as u64, ld as i64),
            )?;
            if s.batch > 1 {
                let count = s.batch as i32;
                check(
                    "MatrixLayoutSetAttribute",
                    sys::cublasLtMatrixLayoutSetAttribute(
                        *l,
                        LA::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                        &count as *const i32 as *const c_void,
                        4,
                    ),
                )?;
                check(
                    "MatrixLayoutSetAttribute",
                    sys::cublasLtMatrixLayoutSetAttribute(
                        *l,
                        LA::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                        &stride as *const i64 as *const c_void,
                        8,
                    ),
                )?;
            }
        }
        let mut pref = std::ptr::null_mut();
        check(
            "MatmulPreferenceCreate",
            sys::cublasLtMatmulPreferenceCreate(&mut pref),
        )?;
        let limit = s.limit as u64;
        let mut prefs = vec![(
            PA::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            limit.to_ne_bytes().to_vec(),
        )];
        for (attr, al) in [
            PA::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
            PA::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
            PA::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
            PA::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
        ]
        .into_iter()
        .zip([s.align[0], s.align[1], s.align[2], s.align[2]])
        {
            prefs.push((attr, al.to_ne_bytes().to_vec()));
        }
        let mut r = Ok(());
        for (attr, bytes) in &prefs {
            r = r.and_then(|_| {
                check(
                    "MatmulPreferenceSetAttribute",
                    sys::cublasLtMatmulPreferenceSetAttribute(
                        pref,
                        *attr,
                        bytes.as_ptr() as *const c_void,
                        bytes.len(),
                    ),
                )
            });
        }
        let mut result: sys::cublasLtMatmulHeuristicResult_t = std::mem::zeroed();
        let mut found = 0i32;
        if r.is_ok() {
            r = check(
                "MatmulAlgoGetHeuristic",
                sys::cublasLtMatmulAlgoGetHeuristic(
                    self.handle,
                    c.desc,
                    c.la,
                    c.lb,
                    c.lc,
                    c.lc,
                    pref,
                    1,
                    &mut result,
                    &mut found,
                ),
            );
        }
        sys::cublasLtMatmulPreferenceDestroy(pref);
        r?;
        if found < 1 {
            return Err(Error::Unsupported(format!(
                "cuBLASLt has no algorithm for {:?}×{:?} {}×{}×{} of {:?} (batch {}, {} bytes of workspace allowed)",
                s.ta, s.tb, s.m, s.n, s.k, s.ab, s.batch, s.limit
            )));
        }
        c.algo = result.algo;
        c.ws = result.workspaceSize;
        Ok(())
    }

    /// Runs product `s` (prepared or not) on `stream`: `C = alpha op(A) op(B) + beta C` with
    /// `ws` bytes of workspace at `ws_ptr` (at least what `prepare` answered).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn matmul(
        &mut self,
        s: &Shape,
        stream: &Stream,
        alpha: ScalarPtr<'_>,
        a: u64,
        b: u64,
        beta: ScalarPtr<'_>,
        c: u64,
        ws_ptr: u64,
        ws: usize,
    ) -> Result<(), Error> {
        let StreamKind::Cuda(st, _) = &stream.0 else {
            return Err(Error::Unsupported("cuBLASLt on the host backend".into()));
        };
        self.prepare(s)?;
        let Some(e) = self.cache.get(s) else {
            return Err(Error::Unsupported("cuBLASLt descriptor cache".into()));
        };
        if ws < e.ws {
            return Err(Error::Unsupported(format!(
                "cuBLASLt algorithm needs {} workspace bytes, {ws} given",
                e.ws
            )));
        }
        let ptr = |p: ScalarPtr<'_>| match p {
            ScalarPtr::Host(b) => b.as_ptr() as *const c_void,
            ScalarPtr::Device(d) => d as usize as *const c_void,
        };
        if matches!(alpha, ScalarPtr::Device(_)) != s.device_scalars
            || matches!(beta, ScalarPtr::Device(_)) != s.device_scalars
        {
            return Err(Error::Unsupported("cuBLASLt scalar pointer mode".into()));
        }
        // SAFETY: the descriptors describe the operands the caller checked against their
        // buffers; host scalars outlive the call (cuBLASLt reads them before returning), device
        // addresses are live device memory of this context, ordered on `st`.
        check("Matmul", unsafe {
            sys::cublasLtMatmul(
                self.handle,
                e.desc,
                ptr(alpha),
                a as usize as *const c_void,
                e.la,
                b as usize as *const c_void,
                e.lb,
                ptr(beta),
                c as usize as *const c_void,
                e.lc,
                c as usize as *mut c_void,
                e.lc,
                &e.algo,
                ws_ptr as usize as *mut c_void,
                e.ws,
                st.cu_stream() as sys::cudaStream_t,
            )
        })
    }

    fn clear(&mut self) {
        for (_, c) in self.cache.drain() {
            // SAFETY: every cached descriptor was created by `create` and is destroyed once.
            unsafe { destroy(&c) };
        }
    }
}

/// # Safety
/// Each non-null descriptor of `c` must be live and not used afterwards.
unsafe fn destroy(c: &Cached) {
    if !c.desc.is_null() {
        sys::cublasLtMatmulDescDestroy(c.desc);
    }
    for l in [c.la, c.lb, c.lc] {
        if !l.is_null() {
            sys::cublasLtMatrixLayoutDestroy(l);
        }
    }
}

impl Drop for Lt {
    fn drop(&mut self) {
        self.clear();
        if let DeviceKind::Cuda(d) = &self.dev.0 {
            let _ = d.bind();
        }
        // SAFETY: the handle was created by `new` and is destroyed once, here.
        unsafe {
            sys::cublasLtDestroy(self.handle);
        }
    }
}
