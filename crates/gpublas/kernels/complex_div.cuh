// Division without spurious overflow or underflow, shared by every kernel module (kernels.rs
// puts this file in front of each source; the solver harness includes it before solver.cu).
//
// The textbook complex quotient (a conj(b)) / |b|^2 forms |b|^2 unscaled: it overflows past
// the square root of the range (|b| = 1e160 in double, 1e20 in float) and underflows below
// it (1e-300, 1e-20), giving NaN where the quotient is an ordinary number. Divisor<T> is a
// divisor prepared once (a pivot, a diagonal entry) for many quotients, range-reduced as
// LAPACK's ?ladiv (Baudin & Smith, "A Robust Complex Division in Scilab", 2012): Smith's
// ratio r = d / c (parts swapped so that |d| <= |c|) and den = c + d r replace |b|^2, and
// operands near overflow or underflow are first scaled by powers of two (exact). A quotient's
// parts are then (a + b r) / den and (b - a r) / den: two divisions, as the textbook formula,
// so a real-valued divisor divides each part exactly as real division does. Left out of
// ?ladiv: its special cases for b r or r underflowing, which change the quotient by less than
// an ulp of its larger part (componentwise accuracy, not normwise). The host backend runs the
// same steps (ComplexDivisor in src/common/elem.rs).
//
// Real types keep the value and divide by it (the same bits as a / b). Divisor is a plain
// aggregate (no constructor), so arrays of it can live in shared memory.

template <class R> struct DivRange;
template <> struct DivRange<float> {
    static __device__ __forceinline__ float half_max() { return 0x1.fffffep+126f; }
    // LAPACK's 2 safmin / eps (eps the unit roundoff): values at or below it are scaled up.
    static __device__ __forceinline__ float small() { return 0x1p-101f; }
    // 2 / eps^2, the factor they are scaled up by.
    static __device__ __forceinline__ float be() { return 0x1p49f; }
};
template <> struct DivRange<double> {
    static __device__ __forceinline__ double half_max() { return 0x1.fffffffffffffp+1022; }
    static __device__ __forceinline__ double small() { return 0x1p-968; }
    static __device__ __forceinline__ double be() { return 0x1p107; }
};

template <class C, class R> struct ComplexDivisor {
    R ratio, den; // Smith's d / c and c + d ratio, of the parts swapped and scaled
    R scale;      // the power of two every quotient is multiplied by for the divisor's scaling
    bool swapped; // |im| > |re|: the parts were swapped, and the quotient is conjugated back

    static __device__ __forceinline__ ComplexDivisor of(C b) {
        ComplexDivisor v;
        v.swapped = fabs(b.y) > fabs(b.x);
        R c = v.swapped ? b.y : b.x, d = v.swapped ? b.x : b.y;
        const R big = fmax(fabs(c), fabs(d));
        // x / (f y) = f^-1 (x / y): the quotient is multiplied back by f.
        const R f = big >= DivRange<R>::half_max() ? (R)0.5 : (big <= DivRange<R>::small() ? DivRange<R>::be() : (R)1);
        c *= f;
        d *= f;
        v.scale = f;
        v.ratio = d / c;
        v.den = c + d * v.ratio;
        return v;
    }
    // Branch-free (selects only), so that the many unrolled call sites stay small.
    __device__ __forceinline__ C apply(C x) const {
        R a = swapped ? x.y : x.x, b = swapped ? x.x : x.y;
        const R big = fmax(fabs(a), fabs(b));
        const bool hi = big >= DivRange<R>::half_max(), lo = big <= DivRange<R>::small();
        const R g = hi ? (R)0.5 : (lo ? DivRange<R>::be() : (R)1);
        const R s = scale * (hi ? (R)2 : (lo ? (R)1 / DivRange<R>::be() : (R)1));
        a *= g;
        b *= g;
        const R p = (a + b * ratio) / den;
        R q = (b - a * ratio) / den;
        // Swapped parts divide i conj(x) by i conj(y): the conjugate of the quotient.
        if (swapped) q = -q;
        C r;
        r.x = p * s;
        r.y = q * s;
        return r;
    }
};

template <class T> struct Divisor;
template <> struct Divisor<float> {
    float v;
    static __device__ __forceinline__ Divisor of(float b) { Divisor r; r.v = b; return r; }
    __device__ __forceinline__ float apply(float x) const { return x / v; }
};
template <> struct Divisor<double> {
    double v;
    static __device__ __forceinline__ Divisor of(double b) { Divisor r; r.v = b; return r; }
    __device__ __forceinline__ double apply(double x) const { return x / v; }
};
template <> struct Divisor<float2> : ComplexDivisor<float2, float> {
    static __device__ __forceinline__ Divisor of(float2 b) {
        Divisor r; static_cast<ComplexDivisor<float2, float>&>(r) = ComplexDivisor<float2, float>::of(b); return r;
    }
};
template <> struct Divisor<double2> : ComplexDivisor<double2, double> {
    static __device__ __forceinline__ Divisor of(double2 b) {
        Divisor r; static_cast<ComplexDivisor<double2, double>&>(r) = ComplexDivisor<double2, double>::of(b); return r;
    }
};

// a / b for a single quotient.
template <class T> __device__ __forceinline__ T quotient(T a, T b) { return Divisor<T>::of(b).apply(a); }
