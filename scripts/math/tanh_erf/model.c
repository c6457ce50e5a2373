/* Bit-exact C model of branch-free f32 tanhf / erff for an NVIDIA PTX code generator.
 *
 * Build & run:   gcc -O2 model.c -lm && ./a.out          (exhaustive, 2 threads)
 *                ./a.out STRIDE                            (every STRIDE-th bit pattern)
 *
 * GPU primitives are modelled as:
 *   ex2.approx.ftz.f32  -> exp2f(x), results < FLT_MIN flushed to 0       (mode 0, nominal)
 *                          pessimistic: f32 farthest above/below 2^x within rel. err 2^-22 (modes 1,2)
 *   rcp.approx.ftz.f32  -> 1.0f/x                                          (mode 0, nominal)
 *                          pessimistic: f32 farthest above/below 1/x within 1 ulp  (modes 1,2)
 * "pessimistic-hw max" = max over all combinations of these modes (worst case the PTX spec allows).
 * Reference: glibc double tanh()/erf().  Error in ulps of the exact result
 * (ulp(y) = 2^(floor(log2|y|)-23), 2^-149 below FLT_MIN).
 * No double arithmetic is used inside the models (only in the error measurement).
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coeffs.h" /* gen.py's output: the coefficients cg_math.h holds */
/* tanh large-branch constant: 2*log2(e) rounded to f32 */
#define TANH_K 0x1.715476p+1f /* 2.88539004f */

/* Pessimistic modes simulate the worst results the PTX spec allows: the f32 value farthest
 * from the exact result that is still within 2^-22 relative (ex2) / within 1 ulp (rcp).
 * (double is used here only to simulate the hardware primitive, not by the algorithms.) */
static inline float ex2_approx(float x, int mode) {
    float r = exp2f(x);
    if (mode != 0 && isfinite(r) && r != 0.0f) {
        double v = exp2((double)x);
        double w = v * (mode == 1 ? 1.0 + 0x1p-22 : 1.0 - 0x1p-22);
        r = (float)w;
        if (mode == 1 && (double)r > w) r = nextafterf(r, 0.0f);
        if (mode == 2 && (double)r < w) r = nextafterf(r, INFINITY);
    }
    if (r < FLT_MIN) r = 0.0f; /* .ftz */
    return r;
}
static inline float rcp_approx(float x, int mode) {
    float r = 1.0f / x;
    if (mode != 0 && isfinite(r) && r != 0.0f && fabsf(r) >= FLT_MIN) {
        double v = 1.0 / (double)x;
        int ex;
        frexp(v, &ex);
        double ulp = ldexp(1.0, ex - 24);
        double w = v + (mode == 1 ? ulp : -ulp);
        r = (float)w;
        if (mode == 1 && (double)r > w) r = nextafterf(r, -INFINITY);
        if (mode == 2 && (double)r < w) r = nextafterf(r, INFINITY);
    }
    return r;
}

/* ---------------- tanh ---------------- */
static inline float tanh_model(float x, int emode, int rmode) {
    float a = fabsf(x);                               /* 1  fabs            */
    float t = a * a;                                  /* 2  mul             */
    float p = TANH_P[TANH_N];                         /*    Horner: TANH_N fma */
    for (int i = TANH_N - 1; i >= 0; i--) p = fmaf(p, t, TANH_P[i]);
    float at = a * t;                                 /*    mul             */
    float rs = fmaf(at, p, a);                        /*    fma  small result */
    float y = a * TANH_K;                             /*    mul             */
    float e = ex2_approx(y, emode);                   /*    ex2             */
    float d = e + 1.0f;                               /*    add             */
    float r = rcp_approx(d, rmode);                   /*    rcp             */
    float rl = fmaf(-2.0f, r, 1.0f);                  /*    fma  large result */
    float sel = (a < TANH_T) ? rs : rl;               /*    fcmp olt + select */
    return copysignf(sel, x);                         /*    copysign        */
}

/* ---------------- erf ---------------- */
static inline float erf_model(float x, int emode) {
    float a = fabsf(x);                               /* fabs               */
    float t = a * a;                                  /* mul                */
    float q = ERF_S[ERF_NS];                          /* Horner: ERF_NS fma */
    for (int i = ERF_NS - 1; i >= 0; i--) q = fmaf(q, t, ERF_S[i]);
    float rs = fmaf(a, q, a);                         /* fma  small result  */
    float ac = fminf(a, ERF_C);                       /* min                */
    float s = ac - ERF_B;                             /* sub (exact)        */
    float Q = ERF_L[ERF_NL];                          /* Horner: ERF_NL fma */
    for (int i = ERF_NL - 1; i >= 0; i--) Q = fmaf(Q, s, ERF_L[i]);
    float e = ex2_approx(Q, emode);                   /* ex2                */
    float rl = 1.0f - e;                              /* sub  large result  */
    float sel = (a >= ERF_B) ? rl : rs;               /* fcmp oge + select (NaN -> rs = NaN) */
    return copysignf(sel, x);                         /* copysign           */
}

/* ---------------- measurement ---------------- */
static double ulp_err(float f, double ref) {
    double ar = fabs(ref);
    int ex;
    frexp(ar, &ex);
    double ulp = (ex - 24 < -149) ? 0x1p-149 : ldexp(1.0, ex - 24);
    return fabs((double)f - ref) / ulp;
}
static float bits2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

#define NRANGE 3
typedef struct {
    int fn;                 /* 0 tanh, 1 erf */
    uint32_t lo, hi, stride, start;
    int nthreads;
    /* [range][0 nominal, 1 pessimistic] */
    double maxe[NRANGE][2];
    float  argx[NRANGE][2];
    uint64_t n_gt1[NRANGE];     /* nominal errors > 1 ulp */
    uint64_t count[NRANGE];
} Job;

static uint32_t R_lo[NRANGE], R_hi[NRANGE];

static void *worker(void *vp) {
    Job *J = (Job *)vp;
    for (uint64_t u = (uint64_t)J->lo + (uint64_t)J->start * J->stride; u <= J->hi;
         u += (uint64_t)J->stride * J->nthreads) {
        float x = bits2f((uint32_t)u);
        double ref, e0, ep = 0;
        if (J->fn == 0) {
            ref = tanh((double)x);
            e0 = ulp_err(tanh_model(x, 0, 0), ref);
            for (int em = 0; em < 3; em++)
                for (int rm = 0; rm < 3; rm++) {
                    double ee = ulp_err(tanh_model(x, em, rm), ref);
                    if (ee > ep) ep = ee;
                }
        } else {
            ref = erf((double)x);
            e0 = ulp_err(erf_model(x, 0), ref);
            for (int em = 0; em < 3; em++) {
                double ee = ulp_err(erf_model(x, em), ref);
                if (ee > ep) ep = ee;
            }
        }
        for (int r = 0; r < NRANGE; r++) {
            if (u < R_lo[r] || u > R_hi[r]) continue;
            J->count[r]++;
            if (e0 > 1.0) J->n_gt1[r]++;
            if (e0 > J->maxe[r][0]) { J->maxe[r][0] = e0; J->argx[r][0] = x; }
            if (ep > J->maxe[r][1]) { J->maxe[r][1] = ep; J->argx[r][1] = x; }
        }
    }
    return NULL;
}

static void run(int fn, uint32_t stride, const char *name) {
    enum { NT = 2 };
    Job J[NT];
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) {
        memset(&J[i], 0, sizeof J[i]);
        J[i].fn = fn; J[i].lo = 0x00000001u; J[i].hi = 0x7f7fffffu; /* all positive finite */
        J[i].stride = stride; J[i].start = i; J[i].nthreads = NT;
        pthread_create(&th[i], NULL, worker, &J[i]);
    }
    for (int i = 0; i < NT; i++) pthread_join(th[i], NULL);
    const char *rn[NRANGE] = {"required range", "all positive finite f32", "required range"};
    for (int r = 0; r < 2; r++) {
        double m0 = 0, mp = 0; float x0 = 0, xp = 0; uint64_t n1 = 0, cnt = 0;
        for (int i = 0; i < NT; i++) {
            if (J[i].maxe[r][0] > m0) { m0 = J[i].maxe[r][0]; x0 = J[i].argx[r][0]; }
            if (J[i].maxe[r][1] > mp) { mp = J[i].maxe[r][1]; xp = J[i].argx[r][1]; }
            n1 += J[i].n_gt1[r]; cnt += J[i].count[r];
        }
        printf("%s %-24s [%a, %a] (%llu inputs): max err %.4f ulp at x=%.9g (%a); "
               "pessimistic-hw max %.4f ulp at x=%.9g (%a); #>1ulp %llu\n",
               name, rn[r], bits2f(R_lo[r]), bits2f(R_hi[r]), (unsigned long long)cnt, m0, x0, x0, mp,
               xp, xp, (unsigned long long)n1);
    }
}

static int check_specials(void) {
    int bad = 0;
    struct { float x; } sp[] = {{0.0f}, {-0.0f}, {INFINITY}, {-INFINITY}, {NAN}, {-NAN},
                                {FLT_MAX}, {-FLT_MAX}, {0x1p-149f}, {-0x1p-149f}, {FLT_MIN}, {-FLT_MIN},
                                {1.0f}, {-1.0f}, {TANH_T}, {ERF_B}, {ERF_C}, {100.0f}, {-100.0f}};
    for (unsigned i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        float x = sp[i].x;
        float ft = tanh_model(x, 0, 0), fe = erf_model(x, 0);
        float rt = (float)tanh((double)x), re = (float)erf((double)x);
        int okt = (isnan(rt) && isnan(ft)) || (f2bits(rt) == f2bits(ft)) || ulp_err(ft, tanh((double)x)) <= 2.0;
        int oke = (isnan(re) && isnan(fe)) || (f2bits(re) == f2bits(fe)) || ulp_err(fe, erf((double)x)) <= 2.0;
        /* signed zero must be exact */
        if (x == 0.0f) { okt = f2bits(ft) == f2bits(x); oke = f2bits(fe) == f2bits(x); }
        printf("special x=%-14a tanh=%-14a (ref %-14a) %s   erf=%-14a (ref %-14a) %s\n", x, ft, rt,
               okt ? "ok" : "BAD", fe, re, oke ? "ok" : "BAD");
        bad += !okt + !oke;
    }
    /* odd symmetry on a sample of negative inputs: f(-x) must be exactly -f(x) */
    uint64_t nbad = 0, n = 0;
    for (uint64_t u = 0x80000001u; u <= 0xff7fffffu; u += 97) {
        float x = bits2f((uint32_t)u);
        float ft = tanh_model(x, 0, 0), fe = erf_model(x, 0);
        float gt = tanh_model(-x, 0, 0), ge = erf_model(-x, 0);
        if (f2bits(ft) != (f2bits(gt) ^ 0x80000000u)) nbad++;
        if (f2bits(fe) != (f2bits(ge) ^ 0x80000000u)) nbad++;
        n++;
    }
    printf("negative mirror check (%llu negative inputs, every 97th pattern): %llu mismatches\n",
           (unsigned long long)n, (unsigned long long)nbad);
    return bad + (nbad != 0);
}

int main(int argc, char **argv) {
    uint32_t stride = argc > 1 ? (uint32_t)atoi(argv[1]) : 1;
    int which = argc > 2 ? atoi(argv[2]) : 3; /* bit0 tanh, bit1 erf */
    printf("stride %u (1 = exhaustive)\n", stride);
    int bad = check_specials();
    R_lo[1] = 0x00000001u; R_hi[1] = 0x7f7fffffu;
    if (which & 1) {
        R_lo[0] = f2bits(0x1p-30f); R_hi[0] = f2bits(10.0f);
        run(0, stride, "tanh");
    }
    if (which & 2) {
        R_lo[0] = f2bits(0x1p-30f); R_hi[0] = f2bits(5.0f);
        run(1, stride, "erf ");
    }
    return bad != 0;
}
