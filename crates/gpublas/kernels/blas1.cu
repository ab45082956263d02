// Level-1 reductions: asum, nrm2, dot, dotc, iamax, iamin (+ dot_ex, nrm2_ex inputs).
//
// One templated body serves every op, element type and batch form:
//   pass 1: grid = g blocks per vector x nvec vectors; g == 1 writes the final result,
//           g > 1 writes one partial state per block into the handle's workspace;
//   pass 2: one block per vector folds its g partials and writes the result.
// Vectors are addressed by a base + stride (single / strided-batched) or by a pointer list
// passed as a kernel parameter (batched), so no pointer array ever needs uploading.
// Compiled by NVRTC with -DGPUBLAS_FAMILY_<X> so each family builds on its own.

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned short u16;

#define BLOCK 256
#define LIST_MAX 3968

struct VecArg { u64 base; i64 stride; i64 inc; i64 off0; };
struct Job { VecArg x; VecArg y; i64 n; u64 part; u64 out; u64 xlist; u64 ylist; int g; int nvec; };
struct List { u64 p[LIST_MAX]; };

struct h16 { u16 v; };
struct b16 { u16 v; };

// ---- element access -------------------------------------------------------------------
template <class T> struct Tr;
template <> struct Tr<float>   { typedef float  real; enum { cplx = 0 }; };
template <> struct Tr<double>  { typedef double real; enum { cplx = 0 }; };
template <> struct Tr<float2>  { typedef float  real; enum { cplx = 1 }; };
template <> struct Tr<double2> { typedef double real; enum { cplx = 1 }; };
template <> struct Tr<h16>     { typedef float  real; enum { cplx = 0 }; };
template <> struct Tr<b16>     { typedef float  real; enum { cplx = 0 }; };

__device__ __forceinline__ float h2f(u16 h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ float b2f(u16 b) { return __uint_as_float(((unsigned)b) << 16); }

template <class A> __device__ __forceinline__ void parts(float v, A& re, A& im) { re = (A)v; im = 0; }
template <class A> __device__ __forceinline__ void parts(double v, A& re, A& im) { re = (A)v; im = 0; }
template <class A> __device__ __forceinline__ void parts(float2 v, A& re, A& im) { re = (A)v.x; im = (A)v.y; }
template <class A> __device__ __forceinline__ void parts(double2 v, A& re, A& im) { re = (A)v.x; im = (A)v.y; }
template <class A> __device__ __forceinline__ void parts(h16 v, A& re, A& im) { re = (A)h2f(v.v); im = 0; }
template <class A> __device__ __forceinline__ void parts(b16 v, A& re, A& im) { re = (A)b2f(v.v); im = 0; }

template <class T> __device__ __forceinline__ T ld(const T* p) { return __ldg(p); }
template <> __device__ __forceinline__ h16 ld<h16>(const h16* p) { h16 r; r.v = __ldg((const u16*)p); return r; }
template <> __device__ __forceinline__ b16 ld<b16>(const b16* p) { b16 r; r.v = __ldg((const u16*)p); return r; }

// 16 bytes as E elements.
template <class T> union Pack {
    uint4 q;
    T e[16 / sizeof(T)];
};
template <class T> __device__ __forceinline__ Pack<T> ld16(const T* p) {
    Pack<T> r;
    r.q = __ldg((const uint4*)p);
    return r;
}

// ---- ops ------------------------------------------------------------------------------
// Each op: T (element), S (state), O (output), TWO (reads y), id(), step(), comb(), shfl(),
// fin() (state -> output). A is the accumulation type.

template <class T, class A> struct Asum {
    typedef T elem; typedef typename Tr<T>::real O; enum { TWO = 0 };
    struct S { A v; };
    static __device__ __forceinline__ S id() { S s; s.v = 0; return s; }
    static __device__ __forceinline__ void step(S& s, T x, T, i64) {
        A re, im; parts<A>(x, re, im);
        s.v += fabs(re) + fabs(im);
    }
    static __device__ __forceinline__ void comb(S& s, const S& o) { s.v += o.v; }
    static __device__ __forceinline__ S shfl(const S& s, int d) { S o; o.v = __shfl_down_sync(0xffffffffu, s.v, d); return o; }
    static __device__ __forceinline__ O fin(const S& s, u64) { return (O)s.v; }
};

// Blue's scaled sum of squares (as LAPACK's dnrm2): the scale factors are constants, so the
// three accumulators of different threads add up directly.
template <class A> struct Blue;
template <> struct Blue<double> {
    static __device__ __forceinline__ double tsml() { return 0x1p-511; }
    static __device__ __forceinline__ double tbig() { return 0x1p486; }
    static __device__ __forceinline__ double ssml() { return 0x1p537; }
    static __device__ __forceinline__ double sbig() { return 0x1p-538; }
};
template <> struct Blue<float> {
    static __device__ __forceinline__ float tsml() { return 0x1p-63f; }
    static __device__ __forceinline__ float tbig() { return 0x1p52f; }
    static __device__ __forceinline__ float ssml() { return 0x1p75f; }
    static __device__ __forceinline__ float sbig() { return 0x1p-76f; }
};

template <class T, class A, class OUT> struct Nrm2 {
    typedef T elem; typedef OUT O; enum { TWO = 0 };
    struct S { A big, med, sml; };
    static __device__ __forceinline__ S id() { S s; s.big = 0; s.med = 0; s.sml = 0; return s; }
    static __device__ __forceinline__ void one(S& s, A v) {
        if (sizeof(typename Tr<T>::real) == 4 && sizeof(A) == 8) { s.med = fma(v, v, s.med); return; }
        A ax = fabs(v);
        if (ax > Blue<A>::tbig()) { A t = ax * Blue<A>::sbig(); s.big += t * t; }
        else if (ax < Blue<A>::tsml()) { A t = ax * Blue<A>::ssml(); s.sml += t * t; }
        else s.med += ax * ax;  // NaN lands here and propagates
    }
    static __device__ __forceinline__ void step(S& s, T x, T, i64) {
        A re, im; parts<A>(x, re, im);
        one(s, re);
        if (Tr<T>::cplx) one(s, im);
    }
    static __device__ __forceinline__ void comb(S& s, const S& o) { s.big += o.big; s.med += o.med; s.sml += o.sml; }
    static __device__ __forceinline__ S shfl(const S& s, int d) {
        S o;
        o.big = __shfl_down_sync(0xffffffffu, s.big, d);
        o.med = __shfl_down_sync(0xffffffffu, s.med, d);
        o.sml = __shfl_down_sync(0xffffffffu, s.sml, d);
        return o;
    }
    static __device__ O fin(S s, u64) {
        if (s.big > 0) {
            if (s.med > 0 || isnan(s.med)) s.big += (s.med * Blue<A>::sbig()) * Blue<A>::sbig();
            return (O)(sqrt(s.big) / Blue<A>::sbig());
        }
        if (s.sml > 0) {
            if (s.med > 0 || isnan(s.med)) {
                A m = sqrt(s.med), l = sqrt(s.sml) / Blue<A>::ssml();
                A ymin = l > m ? m : l, ymax = l > m ? l : m;
                A r = ymin / ymax;
                return (O)(ymax * sqrt(1 + r * r));
            }
            return (O)(sqrt(s.sml) / Blue<A>::ssml());
        }
        return (O)sqrt(s.med);
    }
};

template <class O, class A> __device__ __forceinline__ O out2(A re, A im);
template <> __device__ __forceinline__ float out2<float, double>(double re, double) { return (float)re; }
template <> __device__ __forceinline__ float out2<float, float>(float re, float) { return re; }
template <> __device__ __forceinline__ double out2<double, double>(double re, double) { return re; }
template <> __device__ __forceinline__ float2 out2<float2, double>(double re, double im) { return make_float2((float)re, (float)im); }
template <> __device__ __forceinline__ double2 out2<double2, double>(double re, double im) { return make_double2(re, im); }

template <class T, class A, class OUT, bool CONJ> struct Dot {
    typedef T elem; typedef OUT O; enum { TWO = 1 };
    struct S { A re, im; };
    static __device__ __forceinline__ S id() { S s; s.re = 0; s.im = 0; return s; }
    static __device__ __forceinline__ void step(S& s, T x, T y, i64) {
        A xr, xi, yr, yi;
        parts<A>(x, xr, xi);
        parts<A>(y, yr, yi);
        if (Tr<T>::cplx) {
            if (CONJ) xi = -xi;
            s.re = fma(xr, yr, s.re);
            s.re = fma(-xi, yi, s.re);
            s.im = fma(xr, yi, s.im);
            s.im = fma(xi, yr, s.im);
        } else {
            s.re = fma(xr, yr, s.re);
        }
    }
    static __device__ __forceinline__ void comb(S& s, const S& o) { s.re += o.re; s.im += o.im; }
    static __device__ __forceinline__ S shfl(const S& s, int d) {
        S o;
        o.re = __shfl_down_sync(0xffffffffu, s.re, d);
        o.im = Tr<T>::cplx ? __shfl_down_sync(0xffffffffu, s.im, d) : s.im;
        return o;
    }
    static __device__ __forceinline__ O fin(const S& s, u64) { return out2<O, A>(s.re, s.im); }
};

// iamax / iamin: 0-based index in the state, 1-based in the output; ties go to the first index;
// NaN is never chosen, except that reference BLAS answers 1 when x(1) is NaN. A thread visits its
// indices in increasing order, so a strict comparison keeps the first; NONE marks "nothing yet"
// (and answers 1, as reference BLAS does when no element beats x(1), e.g. all NaN or all Inf).
#define NONE 0x7fffffffffffffffLL
template <class T, bool MAX> struct Iamx {
    typedef T elem; typedef i64 O; enum { TWO = 0 };
    typedef typename Tr<T>::real R;
    struct S { R v; i64 i; };
    static __device__ __forceinline__ S id() { S s; s.v = 0; s.i = NONE; return s; }
    static __device__ __forceinline__ R mag(T x) { R re, im; parts<R>(x, re, im); return fabs(re) + fabs(im); }
    static __device__ __forceinline__ void step(S& s, T x, T, i64 i) {
        R m = mag(x);
        if (s.i == NONE ? !isnan(m) : (MAX ? m > s.v : m < s.v)) { s.v = m; s.i = i; }
    }
    static __device__ __forceinline__ void comb(S& s, const S& o) {
        if (o.i == NONE) return;
        if (s.i == NONE || (MAX ? o.v > s.v : o.v < s.v) || (o.v == s.v && o.i < s.i)) s = o;
    }
    static __device__ __forceinline__ S shfl(const S& s, int d) {
        S o;
        o.v = __shfl_down_sync(0xffffffffu, s.v, d);
        o.i = __shfl_down_sync(0xffffffffu, s.i, d);
        return o;
    }
    static __device__ O fin(const S& s, u64 xaddr) {
        if (s.i == NONE || isnan(mag(ld((const T*)xaddr)))) return 1;
        return s.i + 1;
    }
};

// ---- the body -------------------------------------------------------------------------

// Programmatic dependent launch (sm_90+): the host launches every kernel with programmatic
// stream serialisation, so a kernel may start while its predecessor drains. Each kernel first
// lets its own successor be scheduled, then waits for its predecessor's completion and memory
// before touching any memory. Before sm_90 both are no-ops.
__device__ __forceinline__ void pdl_enter() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

template <class Op>
__device__ __forceinline__ typename Op::S block_reduce(typename Op::S s) {
    typedef typename Op::S S;
    __shared__ S sm[BLOCK / 32];
    for (int d = 16; d > 0; d >>= 1) Op::comb(s, Op::shfl(s, d));
    int w = threadIdx.x >> 5, l = threadIdx.x & 31;
    if (l == 0) sm[w] = s;
    __syncthreads();
    if (w == 0) {
        s = l < (int)(blockDim.x >> 5) ? sm[l] : Op::id();
        for (int d = 16; d > 0; d >>= 1) Op::comb(s, Op::shfl(s, d));
    }
    return s;
}

// Block `b` of `g` folds its share of vector (xa, ya) into a state.
template <class Op>
__device__ __forceinline__ typename Op::S partial(const Job& j, int b, u64 xa, u64 ya) {
    typedef typename Op::elem T;
    typedef typename Op::S S;
    S s = Op::id();
    const T* x = (const T*)xa;
    const T* y = (const T*)ya;
    const i64 n = j.n;
    const i64 t = (i64)b * blockDim.x + threadIdx.x;
    const i64 st = (i64)j.g * blockDim.x;
    const bool vec = j.x.inc == 1 && (xa & 15) == 0 &&
                     (!Op::TWO || (j.y.inc == 1 && (ya & 15) == 0));
    if (vec) {
        const int E = 16 / sizeof(T);
        const i64 nv = n / E;
        i64 k = t;
        // Four independent 16-byte loads per operand in flight.
        for (; k + 3 * st < nv; k += 4 * st) {
            Pack<T> a0 = ld16(x + k * E), a1 = ld16(x + (k + st) * E);
            Pack<T> a2 = ld16(x + (k + 2 * st) * E), a3 = ld16(x + (k + 3 * st) * E);
            Pack<T> c0, c1, c2, c3;
            if (Op::TWO) {
                c0 = ld16(y + k * E); c1 = ld16(y + (k + st) * E);
                c2 = ld16(y + (k + 2 * st) * E); c3 = ld16(y + (k + 3 * st) * E);
            } else {
                c0 = a0; c1 = a1; c2 = a2; c3 = a3;
            }
#pragma unroll
            for (int e = 0; e < E; e++) Op::step(s, a0.e[e], c0.e[e], k * E + e);
#pragma unroll
            for (int e = 0; e < E; e++) Op::step(s, a1.e[e], c1.e[e], (k + st) * E + e);
#pragma unroll
            for (int e = 0; e < E; e++) Op::step(s, a2.e[e], c2.e[e], (k + 2 * st) * E + e);
#pragma unroll
            for (int e = 0; e < E; e++) Op::step(s, a3.e[e], c3.e[e], (k + 3 * st) * E + e);
        }
        for (; k < nv; k += st) {
            Pack<T> a = ld16(x + k * E);
            Pack<T> c = Op::TWO ? ld16(y + k * E) : a;
#pragma unroll
            for (int e = 0; e < E; e++) Op::step(s, a.e[e], c.e[e], k * E + e);
        }
        for (i64 i = nv * E + t; i < n; i += st) {
            T a = ld(x + i);
            Op::step(s, a, Op::TWO ? ld(y + i) : a, i);
        }
    } else {
        for (i64 i = t; i < n; i += st) {
            T a = ld(x + j.x.off0 + i * j.x.inc);
            Op::step(s, a, Op::TWO ? ld(y + j.y.off0 + i * j.y.inc) : a, i);
        }
    }
    return block_reduce<Op>(s);
}

template <class Op>
__device__ __forceinline__ void pass1(const Job& j, u64 xa, u64 ya) {
    typedef typename Op::S S;
    typedef typename Op::O O;
    const int v = blockIdx.x / j.g, b = blockIdx.x % j.g;
    pdl_enter();
    S s = partial<Op>(j, b, xa, ya);
    if (threadIdx.x == 0) {
        if (j.g == 1) ((O*)j.out)[v] = Op::fin(s, xa);
        else ((S*)j.part)[(i64)v * j.g + b] = s;
    }
}

template <class Op>
__device__ __forceinline__ void pass2(const Job& j, u64 xa) {
    typedef typename Op::S S;
    typedef typename Op::O O;
    const int v = blockIdx.x;
    pdl_enter();
    const S* p = (const S*)j.part + (i64)v * j.g;
    S s = Op::id();
    for (int i = threadIdx.x; i < j.g; i += blockDim.x) Op::comb(s, p[i]);
    s = block_reduce<Op>(s);
    if (threadIdx.x == 0) ((O*)j.out)[v] = Op::fin(s, xa);
}

template <class Op> __device__ __forceinline__ u64 addr_x(const Job& j, int v) {
    return j.x.base + (u64)((i64)v * j.x.stride * (i64)sizeof(typename Op::elem));
}
template <class Op> __device__ __forceinline__ u64 addr_y(const Job& j, int v) {
    return j.y.base + (u64)((i64)v * j.y.stride * (i64)sizeof(typename Op::elem));
}

// Six entry points per (op, type): pass 1 or pass 2, with vectors found by base + stride,
// by a pointer list in the parameters (l), or by an address table in global memory (a).
#define GPUBLAS_KERNELS(NAME, ...)                                                             \
    extern "C" __global__ void __launch_bounds__(BLOCK) NAME##_p1(Job j) {                     \
        typedef __VA_ARGS__ Op;                                                                \
        int v = blockIdx.x / j.g;                                                              \
        pass1<Op>(j, addr_x<Op>(j, v), Op::TWO ? addr_y<Op>(j, v) : 0);                         \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(BLOCK) NAME##_p1l(Job j, List l) {            \
        typedef __VA_ARGS__ Op;                                                                \
        int v = blockIdx.x / j.g;                                                              \
        pass1<Op>(j, l.p[v], Op::TWO ? l.p[j.nvec + v] : 0);                                   \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(BLOCK) NAME##_p2(Job j) {                     \
        typedef __VA_ARGS__ Op;                                                                \
        pass2<Op>(j, addr_x<Op>(j, blockIdx.x));                                               \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(BLOCK) NAME##_p2l(Job j, List l) {            \
        typedef __VA_ARGS__ Op;                                                                \
        pass2<Op>(j, l.p[blockIdx.x]);                                                         \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(BLOCK) NAME##_p1a(Job j) {                    \
        typedef __VA_ARGS__ Op;                                                                \
        int v = blockIdx.x / j.g;                                                              \
        pdl_enter();                                                                           \
        pass1<Op>(j, ((const u64*)j.xlist)[v], Op::TWO ? ((const u64*)j.ylist)[v] : 0);        \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(BLOCK) NAME##_p2a(Job j) {                    \
        typedef __VA_ARGS__ Op;                                                                \
        pdl_enter();                                                                           \
        pass2<Op>(j, ((const u64*)j.xlist)[blockIdx.x]);                                       \
    }

#ifdef GPUBLAS_FAMILY_ASUM
GPUBLAS_KERNELS(asum_s, Asum<float, double>)
GPUBLAS_KERNELS(asum_d, Asum<double, double>)
GPUBLAS_KERNELS(asum_c, Asum<float2, double>)
GPUBLAS_KERNELS(asum_z, Asum<double2, double>)
#endif

#ifdef GPUBLAS_FAMILY_NRM2
GPUBLAS_KERNELS(nrm2_s, Nrm2<float, double, float>)
GPUBLAS_KERNELS(nrm2_d, Nrm2<double, double, double>)
GPUBLAS_KERNELS(nrm2_c, Nrm2<float2, double, float>)
GPUBLAS_KERNELS(nrm2_z, Nrm2<double2, double, double>)
GPUBLAS_KERNELS(nrm2ex_hs, Nrm2<h16, float, float>)
GPUBLAS_KERNELS(nrm2ex_hd, Nrm2<h16, double, double>)
GPUBLAS_KERNELS(nrm2ex_bs, Nrm2<b16, float, float>)
GPUBLAS_KERNELS(nrm2ex_bd, Nrm2<b16, double, double>)
GPUBLAS_KERNELS(nrm2ex_ss, Nrm2<float, float, float>)
GPUBLAS_KERNELS(nrm2ex_sd, Nrm2<float, double, double>)
#endif

#ifdef GPUBLAS_FAMILY_DOT
GPUBLAS_KERNELS(dot_s, Dot<float, double, float, false>)
GPUBLAS_KERNELS(dot_d, Dot<double, double, double, false>)
GPUBLAS_KERNELS(dot_c, Dot<float2, double, float2, false>)
GPUBLAS_KERNELS(dot_z, Dot<double2, double, double2, false>)
GPUBLAS_KERNELS(dotc_c, Dot<float2, double, float2, true>)
GPUBLAS_KERNELS(dotc_z, Dot<double2, double, double2, true>)
GPUBLAS_KERNELS(dotex_hs, Dot<h16, float, float, false>)
GPUBLAS_KERNELS(dotex_hd, Dot<h16, double, double, false>)
GPUBLAS_KERNELS(dotex_bs, Dot<b16, float, float, false>)
GPUBLAS_KERNELS(dotex_bd, Dot<b16, double, double, false>)
GPUBLAS_KERNELS(dotex_ss, Dot<float, float, float, false>)
GPUBLAS_KERNELS(dotex_sd, Dot<float, double, double, false>)
#endif

#ifdef GPUBLAS_FAMILY_IAMAX
GPUBLAS_KERNELS(iamax_s, Iamx<float, true>)
GPUBLAS_KERNELS(iamax_d, Iamx<double, true>)
GPUBLAS_KERNELS(iamax_c, Iamx<float2, true>)
GPUBLAS_KERNELS(iamax_z, Iamx<double2, true>)
GPUBLAS_KERNELS(iamin_s, Iamx<float, false>)
GPUBLAS_KERNELS(iamin_d, Iamx<double, false>)
GPUBLAS_KERNELS(iamin_c, Iamx<float2, false>)
GPUBLAS_KERNELS(iamin_z, Iamx<double2, false>)
#endif
