// Level 1 updates: axpy, scal, copy, swap, rot, rotm (elementwise over vectors) and the
// rotation set-ups rotg, rotmg (one thread per batch entry). No workspace: list batches pass
// their addresses as a kernel parameter, LIST_MAX at a time. An output increment of 0 (UJob.seq)
// runs reference BLAS's sequential loop, one thread per batch entry.

typedef long long i64;
typedef unsigned long long u64;
#define THREADS 256
#define LIST_MAX 3968

struct UVec { u64 base; i64 stride; i64 inc; i64 off0; };
struct UJob {
    UVec x, y;
    u64 param; i64 param_stride;     // rotm: 5 values per entry
    u64 alpha_p, c_p; i64 alpha_s, c_s;
    double ar, ai, cr;
    i64 n;
    int e0, nent, blocks_per, list;
    int seq, pad;                    // seq: one thread per entry runs the steps in order
};
struct List { u64 p[LIST_MAX]; };

#define OP_AXPY 0
#define OP_SCAL 1
#define OP_COPY 2
#define OP_SWAP 3
#define OP_ROT 4
#define OP_ROTM 5

template <class T> struct Real;
template <> struct Real<float> { typedef float t; };
template <> struct Real<double> { typedef double t; };
template <> struct Real<float2> { typedef float t; };
template <> struct Real<double2> { typedef double t; };

__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ float2 mul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
__device__ __forceinline__ double2 mul(double2 a, double2 b) { return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ double2 add(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float sub(float a, float b) { return a - b; }
__device__ __forceinline__ double sub(double a, double b) { return a - b; }
__device__ __forceinline__ float2 sub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ double2 sub(double2 a, double2 b) { return make_double2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float scl(float a, float r) { return a * r; }
__device__ __forceinline__ double scl(double a, double r) { return a * r; }
__device__ __forceinline__ float2 scl(float2 a, float r) { return make_float2(a.x * r, a.y * r); }
__device__ __forceinline__ double2 scl(double2 a, double r) { return make_double2(a.x * r, a.y * r); }
__device__ __forceinline__ float cj(float v) { return v; }
__device__ __forceinline__ double cj(double v) { return v; }
__device__ __forceinline__ float2 cj(float2 v) { return make_float2(v.x, -v.y); }
__device__ __forceinline__ double2 cj(double2 v) { return make_double2(v.x, -v.y); }
template <class T> __device__ __forceinline__ T mk(double re, double im);
template <> __device__ __forceinline__ float mk<float>(double re, double) { return (float)re; }
template <> __device__ __forceinline__ double mk<double>(double re, double) { return re; }
template <> __device__ __forceinline__ float2 mk<float2>(double re, double im) { return make_float2((float)re, (float)im); }
template <> __device__ __forceinline__ double2 mk<double2>(double re, double im) { return make_double2(re, im); }
__device__ __forceinline__ double re_of(float v) { return v; }
__device__ __forceinline__ double re_of(double v) { return v; }

template <class T> union Pack { uint4 q; T e[16 / sizeof(T)]; };

__device__ __forceinline__ void pdl_enter() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The coefficients of one entry.
template <class T> struct Coefs {
    T alpha; typename Real<T>::t c; T h11, h21, h12, h22; bool identity;
};

template <int OP, class T>
__device__ __forceinline__ void apply(const Coefs<T>& k, T& x, T& y) {
    if (OP == OP_AXPY) y = add(mul(k.alpha, x), y);
    else if (OP == OP_SCAL) x = mul(k.alpha, x);
    else if (OP == OP_COPY) y = x;
    else if (OP == OP_SWAP) { T t = x; x = y; y = t; }
    else if (OP == OP_ROT) {
        T nx = add(scl(x, k.c), mul(k.alpha, y));
        T ny = sub(scl(y, k.c), mul(cj(k.alpha), x));
        x = nx; y = ny;
    } else {
        T nx = add(mul(k.h11, x), mul(k.h12, y));
        T ny = add(mul(k.h21, x), mul(k.h22, y));
        x = nx; y = ny;
    }
}

// Which operands an op reads and writes.
template <int OP> struct Uses {
    enum { READ_Y = OP != OP_SCAL && OP != OP_COPY, HAS_Y = OP != OP_SCAL, WRITE_X = OP == OP_SCAL || OP >= OP_SWAP };
};

// Entry e's vectors and coefficients; false when there is nothing to do (rotm's flag -2).
template <int OP, class T>
__device__ __forceinline__ bool entry(const UJob& j, const u64* list, int e, T*& x, T*& y, Coefs<T>& k) {
    typedef typename Real<T>::t R;
    x = list ? (T*)list[e] : (T*)j.x.base + (i64)e * j.x.stride;
    y = Uses<OP>::HAS_Y ? (list ? (T*)list[j.nent + e] : (T*)j.y.base + (i64)e * j.y.stride) : x;
    const int ge = j.e0 + e;
    k.alpha = j.alpha_p ? ((const T*)j.alpha_p)[ge * j.alpha_s] : mk<T>(j.ar, j.ai);
    k.c = j.c_p ? ((const R*)j.c_p)[ge * j.c_s] : (R)j.cr;
    if (OP == OP_ROTM) {
        const R* p = list ? (const R*)list[2 * j.nent + e] : (const R*)j.param + (i64)e * j.param_stride;
        const double flag = re_of(p[0]);
        if (flag == -2.0) return false;
        const R one = 1;
        if (flag < 0) { k.h11 = mk<T>(p[1], 0); k.h21 = mk<T>(p[2], 0); k.h12 = mk<T>(p[3], 0); k.h22 = mk<T>(p[4], 0); }
        else if (flag == 0) { k.h11 = mk<T>(one, 0); k.h21 = mk<T>(p[2], 0); k.h12 = mk<T>(p[3], 0); k.h22 = mk<T>(one, 0); }
        else { k.h11 = mk<T>(p[1], 0); k.h21 = mk<T>(-one, 0); k.h12 = mk<T>(one, 0); k.h22 = mk<T>(p[4], 0); }
    }
    return true;
}

// Reference BLAS's loop, one thread per entry, for an output increment of 0: every step reads
// what the step before wrote, so the steps run in order (i = 0..n-1, element off0 + i * inc).
// copy keeps only the last step's value, so it runs that step alone.
template <int OP, class T>
__device__ __forceinline__ void upd_seq(const UJob& j, const u64* list) {
    const i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    pdl_enter();
    if (e >= j.nent) return;
    T* x; T* y; Coefs<T> k;
    if (!entry<OP, T>(j, list, (int)e, x, y, k)) return;
    const i64 n = j.n;
    const i64 first = (OP == OP_COPY && j.y.inc == 0) ? n - 1 : 0;
    for (i64 i = first; i < n; i++) {
        const i64 ix = j.x.off0 + i * j.x.inc, iy = j.y.off0 + i * j.y.inc;
        T xv = x[ix], yv = Uses<OP>::READ_Y ? y[iy] : xv;
        apply<OP, T>(k, xv, yv);
        if (Uses<OP>::WRITE_X) x[ix] = xv;
        if (Uses<OP>::HAS_Y) y[iy] = yv;
    }
}

template <int OP, class T>
__device__ __forceinline__ void upd(const UJob& j, const u64* list) {
    if (j.seq) { upd_seq<OP, T>(j, list); return; }
    const int V = 16 / sizeof(T);
    const int e = blockIdx.x / j.blocks_per, b = blockIdx.x % j.blocks_per;
    pdl_enter();
    T* xe; T* ye; Coefs<T> k;
    if (!entry<OP, T>(j, list, e, xe, ye, k)) return;
    T* __restrict__ x = xe;
    T* __restrict__ y = ye;
    const i64 n = j.n;
    const i64 t0 = (i64)b * blockDim.x + threadIdx.x;
    const i64 st = (i64)j.blocks_per * blockDim.x;
    const bool ya = !Uses<OP>::HAS_Y || (j.y.inc == 1 && ((u64)y & 15) == 0);
    if (j.x.inc == 1 && ((u64)x & 15) == 0 && ya) {
        const i64 nv = n / V;
        i64 q = t0;
        // Streaming hints (evict-first): every byte is touched once, so neither the reads nor
        // the writes should hold L2 lines another stream could use.
        for (; q + 3 * st < nv; q += 4 * st) {
            Pack<T> px[4], py[4];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                px[u].q = __ldcs((const uint4*)(x + (q + u * st) * V));
                if (Uses<OP>::READ_Y) py[u].q = __ldcs((const uint4*)(y + (q + u * st) * V));
            }
#pragma unroll
            for (int u = 0; u < 4; u++) {
#pragma unroll
                for (int v = 0; v < V; v++) apply<OP, T>(k, px[u].e[v], py[u].e[v]);
                if (Uses<OP>::WRITE_X) __stcs((uint4*)(x + (q + u * st) * V), px[u].q);
                if (Uses<OP>::HAS_Y) __stcs((uint4*)(y + (q + u * st) * V), py[u].q);
            }
        }
        for (; q < nv; q += st) {
            Pack<T> px, py;
            px.q = __ldcs((const uint4*)(x + q * V));
            if (Uses<OP>::READ_Y) py.q = __ldcs((const uint4*)(y + q * V));
#pragma unroll
            for (int v = 0; v < V; v++) apply<OP, T>(k, px.e[v], py.e[v]);
            if (Uses<OP>::WRITE_X) __stcs((uint4*)(x + q * V), px.q);
            if (Uses<OP>::HAS_Y) __stcs((uint4*)(y + q * V), py.q);
        }
        for (i64 i = nv * V + t0; i < n; i += st) {
            T xv = x[i], yv = Uses<OP>::READ_Y ? y[i] : xv;
            apply<OP, T>(k, xv, yv);
            if (Uses<OP>::WRITE_X) x[i] = xv;
            if (Uses<OP>::HAS_Y) y[i] = yv;
        }
    } else {
        for (i64 i = t0; i < n; i += st) {
            const i64 ix = j.x.off0 + i * j.x.inc, iy = j.y.off0 + i * j.y.inc;
            T xv = x[ix], yv = Uses<OP>::READ_Y ? y[iy] : xv;
            apply<OP, T>(k, xv, yv);
            if (Uses<OP>::WRITE_X) x[ix] = xv;
            if (Uses<OP>::HAS_Y) y[iy] = yv;
        }
    }
}

// ---- rotation set-up ------------------------------------------------------------------
struct SJob { u64 base[5]; i64 stride[5]; int nent; int pad; };

template <class T> __device__ __forceinline__ T* sop(const SJob& j, const u64* list, int k, int e) {
    if (list) return (T*)list[k * j.nent + e];
    return (T*)j.base[k] + (i64)e * j.stride[k];
}

__device__ __forceinline__ double cabs2(double re, double im) { return hypot(re, im); }

// Reference BLAS ?rotg (classic; complex a = 0 as reference 3.10+): operands a, b, s, c (c
// real); real b <- z.
template <class T, bool CPLX>
__device__ __forceinline__ void rotg(const SJob& j, const u64* list) {
    typedef typename Real<T>::t R;
    pdl_enter();
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= j.nent) return;
    T* pa = sop<T>(j, list, 0, e);
    T* pb = sop<T>(j, list, 1, e);
    T* ps = sop<T>(j, list, 2, e);
    R* pc = sop<R>(j, list, 3, e);
    if (CPLX) {
        const R* a = (const R*)pa;
        const R* b = (const R*)pb;
        R ar = a[0], ai = a[1], br = b[0], bi = b[1];
        R na = (R)cabs2(ar, ai), nb = (R)cabs2(br, bi);
        if (na == (R)0) {
            // Reference BLAS 3.10+: r = |b|, s = conj(b) / |b|, c = 0; the identity when b = 0.
            if (nb == (R)0) {
                *pc = 1; ((R*)ps)[0] = 0; ((R*)ps)[1] = 0; ((R*)pa)[0] = 0; ((R*)pa)[1] = 0;
                return;
            }
            *pc = 0; ((R*)ps)[0] = br / nb; ((R*)ps)[1] = -bi / nb;
            ((R*)pa)[0] = nb; ((R*)pa)[1] = 0;
            return;
        }
        R scale = na + nb;
        R sa = (R)cabs2(ar / scale, ai / scale), sb = (R)cabs2(br / scale, bi / scale);
        R norm = scale * sqrt(sa * sa + sb * sb);
        R alr = ar / na, ali = ai / na;
        *pc = na / norm;
        // s = alpha * conj(b) / norm
        ((R*)ps)[0] = (alr * br + ali * bi) / norm;
        ((R*)ps)[1] = (ali * br - alr * bi) / norm;
        ((R*)pa)[0] = alr * norm; ((R*)pa)[1] = ali * norm;
    } else {
        R a = *(R*)pa, b = *(R*)pb;
        R roe = fabs(a) > fabs(b) ? a : b;
        R scale = fabs(a) + fabs(b);
        if (scale == (R)0) { *pc = 1; *(R*)ps = 0; *(R*)pa = 0; *(R*)pb = 0; return; }
        R qa = a / scale, qb = b / scale;
        R r = scale * sqrt(qa * qa + qb * qb);
        if (roe < (R)0) r = -r;
        R c = a / r, s = b / r, z = 1;
        if (fabs(a) > fabs(b)) z = s;
        if (fabs(b) >= fabs(a) && c != (R)0) z = (R)1 / c;
        *pc = c; *(R*)ps = s; *(R*)pa = r; *(R*)pb = z;
    }
}

// Reference BLAS drotmg, computed in double; operands d1, d2, x1, param, y1.
template <class R>
__device__ __forceinline__ void rotmg(const SJob& j, const u64* list) {
    pdl_enter();
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= j.nent) return;
    R* pd1 = sop<R>(j, list, 0, e);
    R* pd2 = sop<R>(j, list, 1, e);
    R* px1 = sop<R>(j, list, 2, e);
    R* pp = sop<R>(j, list, 3, e);
    const R* py1 = sop<R>(j, list, 4, e);
    const double GAM = 4096.0, GAMSQ = 16777216.0, RGAMSQ = 5.9604645e-8;
    double d1 = *pd1, d2 = *pd2, x1 = *px1, y1 = *py1;
    double h11 = 0, h12 = 0, h21 = 0, h22 = 0, flag;
    if (d1 < 0) {
        flag = -1; d1 = 0; d2 = 0; x1 = 0;
    } else {
        double p2 = d2 * y1;
        if (p2 == 0) { pp[0] = (R)-2.0; return; }  // only the flag, as reference BLAS
        double p1 = d1 * x1, q2 = p2 * y1, q1 = p1 * x1;
        if (fabs(q1) > fabs(q2)) {
            h21 = -y1 / x1; h12 = p2 / p1;
            double u = 1.0 - h12 * h21;
            if (u > 0) { flag = 0; d1 /= u; d2 /= u; x1 *= u; }
            else { flag = -1; h11 = h12 = h21 = h22 = 0; d1 = d2 = x1 = 0; }
        } else if (q2 < 0) {
            flag = -1; h11 = h12 = h21 = h22 = 0; d1 = d2 = x1 = 0;
        } else {
            flag = 1; h11 = p1 / p2; h22 = x1 / y1;
            double u = 1.0 + h11 * h22, t = d2 / u;
            d2 = d1 / u; d1 = t; x1 = y1 * u;
        }
        if (d1 != 0) {
            while (d1 <= RGAMSQ || d1 >= GAMSQ) {
                if (flag == 0) { h11 = 1; h22 = 1; flag = -1; } else { h21 = -1; h12 = 1; flag = -1; }
                if (d1 <= RGAMSQ) { d1 *= GAM * GAM; x1 /= GAM; h11 /= GAM; h12 /= GAM; }
                else { d1 /= GAM * GAM; x1 *= GAM; h11 *= GAM; h12 *= GAM; }
            }
        }
        if (d2 != 0) {
            while (fabs(d2) <= RGAMSQ || fabs(d2) >= GAMSQ) {
                if (flag == 0) { h11 = 1; h22 = 1; flag = -1; } else { h21 = -1; h12 = 1; flag = -1; }
                if (fabs(d2) <= RGAMSQ) { d2 *= GAM * GAM; h21 /= GAM; h22 /= GAM; }
                else { d2 /= GAM * GAM; h21 *= GAM; h22 *= GAM; }
            }
        }
    }
    *pd1 = (R)d1; *pd2 = (R)d2; *px1 = (R)x1;
    // The flag and the entries of H it does not imply (reference BLAS leaves the others).
    pp[0] = (R)flag;
    if (flag < 0) { pp[1] = (R)h11; pp[2] = (R)h21; pp[3] = (R)h12; pp[4] = (R)h22; }
    else if (flag == 0) { pp[2] = (R)h21; pp[3] = (R)h12; }
    else { pp[1] = (R)h11; pp[4] = (R)h22; }
}

#define UPD(NAME, OP, TAG, T)                                                                  \
    extern "C" __global__ void __launch_bounds__(THREADS) u_##NAME##_##TAG(UJob j) { upd<OP, T>(j, 0); } \
    extern "C" __global__ void __launch_bounds__(THREADS) u_##NAME##_##TAG##_l(UJob j, List l) { upd<OP, T>(j, l.p); }
#define UPD_ALL(TAG, T) UPD(axpy, OP_AXPY, TAG, T) UPD(scal, OP_SCAL, TAG, T) UPD(copy, OP_COPY, TAG, T) \
    UPD(swap, OP_SWAP, TAG, T) UPD(rot, OP_ROT, TAG, T)
UPD_ALL(s, float)
UPD_ALL(d, double)
UPD_ALL(c, float2)
UPD_ALL(z, double2)
UPD(rotm, OP_ROTM, s, float)
UPD(rotm, OP_ROTM, d, double)

#define SETUP(NAME, BODY, TAG)                                                                 \
    extern "C" __global__ void __launch_bounds__(THREADS) u_##NAME##_##TAG(SJob j) { BODY(j, 0); } \
    extern "C" __global__ void __launch_bounds__(THREADS) u_##NAME##_##TAG##_l(SJob j, List l) { BODY(j, l.p); }
#define ROTG_S(j, l) rotg<float, false>(j, l)
#define ROTG_D(j, l) rotg<double, false>(j, l)
#define ROTG_C(j, l) rotg<float2, true>(j, l)
#define ROTG_Z(j, l) rotg<double2, true>(j, l)
#define ROTMG_S(j, l) rotmg<float>(j, l)
#define ROTMG_D(j, l) rotmg<double>(j, l)
SETUP(rotg, ROTG_S, s)
SETUP(rotg, ROTG_D, d)
SETUP(rotg, ROTG_C, c)
SETUP(rotg, ROTG_Z, z)
SETUP(rotmg, ROTMG_S, s)
SETUP(rotmg, ROTMG_D, d)
