// Shared by the LAPACK families' kernels (solver.cu, qr.cu): integer types, programmatic
// dependent launch, and arithmetic by overloads for float, double, float2 (c32) and double2
// (c64). Prepended to each of those sources (src/kernels.rs).

typedef long long i64;
typedef unsigned long long u64;

// Programmatic dependent launch: `pdl_trigger` lets the stream's next kernel start (its blocks
// then wait in `pdl_wait` until this kernel is done), `pdl_wait` waits for the stream's
// previous kernel and makes its writes visible. A kernel may read before waiting only what
// that previous kernel does not write (work ordered by events or full launches before it).
__device__ __forceinline__ void pdl_trigger() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_wait() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_enter() {
    pdl_trigger();
    pdl_wait();
}

// D = A B + C on FP64 tensor cores, one warp: m8n8k4, A 8 x 4 row-major (lane holds
// A[lane / 4][lane % 4]), B 4 x 8 column-major (B[lane % 4][lane / 4]), C/D 8 x 8 (lane holds
// C[lane / 4][2 (lane % 4) + {0, 1}]). Below sm_80 (where no plan runs its callers) by
// shuffles, so that the module compiles for every architecture.
__device__ __forceinline__ void dmma8844(double& c0, double& c1, double a, double b) {
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
#else
    const int lane = threadIdx.x & 31, r = lane >> 2, j = 2 * (lane & 3);
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const double ak = __shfl_sync(0xffffffffu, a, 4 * r + k);
        const double b0 = __shfl_sync(0xffffffffu, b, 4 * j + k), b1 = __shfl_sync(0xffffffffu, b, 4 * (j + 1) + k);
        c0 = __fma_rn(ak, b0, c0);
        c1 = __fma_rn(ak, b1, c1);
    }
#endif
}

// Arithmetic by overloads.
__device__ __forceinline__ float mag(float v) { return fabsf(v); }
__device__ __forceinline__ double mag(double v) { return fabs(v); }
__device__ __forceinline__ float mag(float2 v) { return fabsf(v.x) + fabsf(v.y); }
__device__ __forceinline__ double mag(double2 v) { return fabs(v.x) + fabs(v.y); }
__device__ __forceinline__ bool is0(float v) { return v == 0.f; }
__device__ __forceinline__ bool is0(double v) { return v == 0.0; }
__device__ __forceinline__ bool is0(float2 v) { return v.x == 0.f && v.y == 0.f; }
__device__ __forceinline__ bool is0(double2 v) { return v.x == 0.0 && v.y == 0.0; }
__device__ __forceinline__ float fms(float c, float a, float b) { return c - a * b; }
__device__ __forceinline__ double fms(double c, double a, double b) { return c - a * b; }
__device__ __forceinline__ float2 fms(float2 c, float2 a, float2 b) {
    return make_float2(c.x - (a.x * b.x - a.y * b.y), c.y - (a.x * b.y + a.y * b.x));
}
__device__ __forceinline__ double2 fms(double2 c, double2 a, double2 b) {
    return make_double2(c.x - (a.x * b.x - a.y * b.y), c.y - (a.x * b.y + a.y * b.x));
}
__device__ __forceinline__ float cj(float v) { return v; }
__device__ __forceinline__ double cj(double v) { return v; }
__device__ __forceinline__ float2 cj(float2 v) { return make_float2(v.x, -v.y); }
__device__ __forceinline__ double2 cj(double2 v) { return make_double2(v.x, -v.y); }
__device__ __forceinline__ float rpart(float v) { return v; }
__device__ __forceinline__ double rpart(double v) { return v; }
__device__ __forceinline__ float rpart(float2 v) { return v.x; }
__device__ __forceinline__ double rpart(double2 v) { return v.x; }
template <class T> __device__ __forceinline__ T real_of(double r);
template <> __device__ __forceinline__ float real_of<float>(double r) { return (float)r; }
template <> __device__ __forceinline__ double real_of<double>(double r) { return r; }
template <> __device__ __forceinline__ float2 real_of<float2>(double r) { return make_float2((float)r, 0.f); }
template <> __device__ __forceinline__ double2 real_of<double2>(double r) { return make_double2(r, 0.0); }
__device__ __forceinline__ float scl(float v, float s) { return v * s; }
__device__ __forceinline__ double scl(double v, double s) { return v * s; }
__device__ __forceinline__ float2 scl(float2 v, float s) { return make_float2(v.x * s, v.y * s); }
__device__ __forceinline__ double2 scl(double2 v, double s) { return make_double2(v.x * s, v.y * s); }
__device__ __forceinline__ float shf(float v, int l) { return __shfl_sync(0xffffffffu, v, l); }
__device__ __forceinline__ double shf(double v, int l) { return __shfl_sync(0xffffffffu, v, l); }
__device__ __forceinline__ float2 shf(float2 v, int l) {
    return make_float2(__shfl_sync(0xffffffffu, v.x, l), __shfl_sync(0xffffffffu, v.y, l));
}
__device__ __forceinline__ double2 shf(double2 v, int l) {
    return make_double2(__shfl_sync(0xffffffffu, v.x, l), __shfl_sync(0xffffffffu, v.y, l));
}
template <class T> __device__ __forceinline__ T zero_of() { return real_of<T>(0.0); }
__device__ __forceinline__ float addc(float a, float b) { return a + b; }
__device__ __forceinline__ double addc(double a, double b) { return a + b; }
__device__ __forceinline__ float2 addc(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ double2 addc(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
// The value of the lane `o` away by xor.
__device__ __forceinline__ float shd(float v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ double shd(double v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ float2 shd(float2 v, int o) {
    return make_float2(__shfl_xor_sync(0xffffffffu, v.x, o), __shfl_xor_sync(0xffffffffu, v.y, o));
}
__device__ __forceinline__ double2 shd(double2 v, int o) {
    return make_double2(__shfl_xor_sync(0xffffffffu, v.x, o), __shfl_xor_sync(0xffffffffu, v.y, o));
}

// An exact zero (both parts for complex values).
__device__ __forceinline__ bool is_zero(float v) { return v == 0.f; }
__device__ __forceinline__ bool is_zero(double v) { return v == 0.0; }
__device__ __forceinline__ bool is_zero(float2 v) { return v.x == 0.f && v.y == 0.f; }
__device__ __forceinline__ bool is_zero(double2 v) { return v.x == 0.0 && v.y == 0.0; }

// The first exact zero on the diagonal of the order-k matrix at A (k if none), for every
// thread of the block: getri's and gels's singularity test (LAPACK's trtri / trtrs check).
template <class T>
__device__ int first_zero_diagonal(const T* A, i64 ld, int k) {
    __shared__ int first;
    if (threadIdx.x == 0) first = k;
    __syncthreads();
    for (int i = threadIdx.x; i < k; i += blockDim.x)
        if (is_zero(A[i + i * ld])) atomicMin(&first, i);
    __syncthreads();
    return first;
}
