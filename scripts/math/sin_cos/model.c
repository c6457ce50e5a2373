/* Bit-exact C model of the f32 sin/cos design for the PTX code generator, plus its validation.
 * The algorithm is compiler/codegen/cg_math.c's; scripts/math/README.md has the measured numbers.
 *
 *   build:  gcc -O2 model.c -lm          (variant A, the design; glibc >= 2.34: no -lpthread needed)
 *           gcc -O2 -DVARIANT_B model.c -lm   (variant B: compensated fast path, THRESH = 2^18)
 *   run:    ./a.out all                  special + hard + fast + tiny + slow, all exhaustive
 *                                        (about 6 minutes on 2 cores)
 *           ./a.out special              (d) +-0, +-inf, NaNs, subnormals, neighbourhoods, symmetry
 *           ./a.out hard [hard.txt]      (c) the f32 nearest to multiples of pi/2 (from ./hardcases)
 *           ./a.out fast                 (a) every f32 with 2^-20 <= |x| <= THRESH, both signs
 *           ./a.out tiny                 every f32 with 0 < |x| < 2^-20, both signs
 *           ./a.out slow                 (b) every finite f32 with |x| > THRESH, both signs
 *           ./a.out sample N [seed]      (b') N random f32 above THRESH, exponent uniform, random sign
 *           ./a.out fastscan LO HI       forced fast path on every positive f32 in [LO,HI] (THRESH choice)
 *           ./a.out slowscan LO HI       forced slow path on every positive f32 in [LO,HI]
 *           ./a.out rmax LO HI           max |r| of the forced fast path on [LO,HI]
 *   threads: env NTHREADS (default: all online CPUs).
 *
 * Reference: glibc's double sin()/cos() of the (exact) f32 input.  Error is reported in ulps of
 * the f32 result: |got - ref| / 2^(max(floor(log2|ref|), -126) - 23).
 *
 * Only f32/f64 operations with a single rounding each (IEEE binary32/64, round to nearest even)
 * are used in the model functions; fmaf()/fma() are the fused multiply-adds.  On x86-64 the
 * baseline ISA has no FMA instruction, so gcc cannot contract a*b+c; the pragma below keeps it
 * that way under -march=native too.
 */
#pragma GCC optimize("fp-contract=off")
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

/* ------------------------------------------------------------------ constants */
/* Variant A (default): the design cg_math.c implements.  Variant B (-DVARIANT_B): the fast path also
   returns the low part of r (5 more f32 ops) and THRESH = 2^18. */
#ifndef THRESH
#ifdef VARIANT_B
#define THRESH      0x1p+18f            /* 262144.0f */
#else
#define THRESH      0x1p+16f            /* 65536.0f  */
#endif
#endif
/* fast path */
#define TWO_OVER_PI 0x1.45f306p-1f      /* 6.36619747e-01f = RN32(2/pi)                  */
#define RND_MAGIC_F 0x1.8p+23f          /* 12582912.0f     = 1.5*2^23                    */
#define PIO2_1      0x1.921fb4p+0f      /* 1.57079625e+00f = RD32(pi/2)                  */
#define PIO2_2      0x1.4442d0p-24f     /* 7.54978942e-08f = RD32(pi/2-PIO2_1)           */
#define PIO2_3      0x1.84698ap-48f     /* 5.39030295e-15f = RN32(pi/2-PIO2_1-PIO2_2)    */
/* slow path: 2/pi = sum_j F_j, F_j = c_j * 2^-b_{j+1}, b = 0,15,39,63,87,111,135,159 */
#define F_0  0x1.45fp-1                 /* c_0 = 0x517c   (15 bits) * 2^-15  */
#define F_1  0x1.836e4ep-16             /* c_1 = 0xc1b727          * 2^-39  */
#define F_2  0x1.1054ap-42              /* c_2 = 0x220a94          * 2^-63  */
#define F_3  0x1.fc2756p-64             /* c_3 = 0xfe13ab          * 2^-87  */
#define F_4  0x1.d1f534p-88             /* c_4 = 0xe8fa9a          * 2^-111 */
#define F_5  0x1.bb81b4p-113            /* c_5 = 0x6ee06d          * 2^-135 */
#define F_6  0x1.629598p-136            /* c_6 = 0xb14acc          * 2^-159 */
/* TAIL_i = RN64(2/pi - (F_0+...+F_{i+2})) */
#define TAIL_0 0x1.fc2757d1f534ep-64
#define TAIL_1 0x1.d1f534ddc0db6p-88
#define TAIL_2 0x1.bb81b6c52b328p-113
#define TAIL_3 0x1.6295993c43904p-136
#define TAIL_4 0x1.3c439041fe516p-160
#define RND_MAGIC_D 0x1.8p+52           /* 6755399441055744.0 = 1.5*2^52 */
#define PIO2_D      0x1.921fb54442d18p+0 /* RN64(pi/2) */
/* core polynomials on |r| <= 0.8 (fitpoly.py): sin(r) = r + r*s*S(s), cos(r) = 1 + s*(-1/2 + s*C(s)) */
#define S1 -0x1.555556p-3f              /* -1.66666672e-01f */
#define S2  0x1.111170p-7f              /*  8.33337754e-03f */
#define S3 -0x1.a053fep-13f             /* -1.98520705e-04f */
#define S4  0x1.7a8d6cp-19f             /*  2.82043538e-06f */
#define C2  0x1.555548p-5f              /*  4.16666418e-02f */
#define C3 -0x1.6c0af4p-10f             /* -1.38871302e-03f */
#define C4  0x1.99911cp-16f             /*  2.44120856e-05f */

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t d2u(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

/* reduced argument: x = n*pi/2 + r + rl (mod 2*pi); only n mod 4 (low 2 bits) matters */
typedef struct { float r, rl; uint32_t n; } red_t;

/* ---- fast path: |x| <= THRESH */
static inline red_t reduce_fast(float x) {
  float j = fmaf(x, TWO_OVER_PI, RND_MAGIC_F);   /* 1.5*2^23 + rint(x*c), one rounding      */
  float q = j - RND_MAGIC_F;                     /* exact integer; +0 when x = -0           */
  float r1 = fmaf(q, -PIO2_1, x);                /* exact                                    */
#ifdef VARIANT_B
  float nch = q * -PIO2_2;                       /* RN(-q*P2)                                */
  float rh = r1 + nch;                           /* Fast2Sum: r1 is a multiple of ulp(nch)   */
  float z = rh - r1;                             /* exact                                    */
  float e = nch - z;                             /* exact: r1 + nch = rh + e                 */
  float m = fmaf(q, PIO2_2, nch);                /* exact: q*P2 + RN(-q*P2)                  */
  m = fmaf(q, PIO2_3, m);                        /* ~ q*P2 + nch + q*P3                      */
  float rl = e - m;                              /* rh + rl = r1 - q*(P2+P3)                 */
  red_t o = { rh, rl, f2u(j) };
#else
  float r = fmaf(q, -PIO2_2, r1);
  r = fmaf(q, -PIO2_3, r);
  red_t o = { r, -0.0f, f2u(j) };                /* rl = -0 keeps sin(-0) = -0               */
#endif
  return o;                                      /* low 2 bits of bits(j) = q mod 4          */
}

/* ---- slow path: |x| > THRESH (also inf/NaN); valid for every |x| >= 2^16 */
static inline red_t reduce_slow(float x) {
  uint32_t E = (f2u(x) >> 23) & 0xffu;           /* biased exponent, >= 143 here             */
  int g1 = E >= 167, g2 = E >= 191, g3 = E >= 215, g4 = E >= 239;   /* i0 = g1+g2+g3+g4     */
  double k0 = g4 ? F_4 : g3 ? F_3 : g2 ? F_2 : g1 ? F_1 : F_0;       /* F_{i0}              */
  double k1 = g4 ? F_5 : g3 ? F_4 : g2 ? F_3 : g1 ? F_2 : F_1;       /* F_{i0+1}            */
  double k2 = g4 ? F_6 : g3 ? F_5 : g2 ? F_4 : g1 ? F_3 : F_2;       /* F_{i0+2}            */
  double kt = g4 ? TAIL_4 : g3 ? TAIL_3 : g2 ? TAIL_2 : g1 ? TAIL_1 : TAIL_0;
  double xd = (double)x;                         /* exact                                    */
  double t0 = xd * k0;                           /* exact (24b x 24b)                        */
  double t1 = xd * k1;                           /* exact                                    */
  double t2 = xd * k2;                           /* exact                                    */
  double t3 = xd * kt;                           /* rounded, tiny                            */
  double a = fma(-4.0, floor(t0 * 0.25), t0);    /* t0 mod 4, exact, in [0,4)                */
  double b = fma(-4.0, floor(t1 * 0.25), t1);    /* t1 mod 4, exact, in [0,4)                */
  double h = a + b;                              /* exact, in [0,8)                          */
  double qm = (h + t2) + RND_MAGIC_D;            /* 1.5*2^52 + rint(h+t2)                    */
  double q = qm - RND_MAGIC_D;                   /* exact                                    */
  double f = ((h - q) + t2) + t3;                /* h-q exact; |f| <= 1/2 (+2^-50)           */
  double rd = f * PIO2_D;
  float rh = (float)rd;
  float rl = (float)(rd - (double)rh);           /* low part of r                            */
  red_t o = { rh, rl, (uint32_t)d2u(qm) };       /* low 2 bits = q mod 4                     */
  return o;
}

static inline red_t reduce(float x) {
  return fabsf(x) <= THRESH ? reduce_fast(x) : reduce_slow(x);   /* NaN -> slow */
}

static inline float sin_poly(float r, float rl, float s) {  /* sin(r + rl) */
  float p = fmaf(S4, s, S3);
  p = fmaf(p, s, S2);
  p = fmaf(p, s, S1);
  float t = fmaf(p, s, 0.0f);                    /* s*p, but +0 (not -0) when s = 0          */
  float u = fmaf(t, r, rl);                      /* r*s*S(s) + rl                            */
  return r + u;
}
static inline float cos_poly(float s) {           /* cos(r + rl), rl ignored */
  float p = fmaf(C4, s, C3);
  p = fmaf(p, s, C2);
  p = fmaf(p, s, -0.5f);
  return fmaf(p, s, 1.0f);
}
static inline float finish(red_t d, uint32_t add) {
  uint32_t n = (d.n + add) & 3u;
  float s = d.r * d.r;
  float vs = sin_poly(d.r, d.rl, s);
  float vc = cos_poly(s);
  float v = (n & 1u) ? vc : vs;
  return (n & 2u) ? -v : v;
}
float sinf_model(float x) { return finish(reduce(x), 0); }
float cosf_model(float x) { return finish(reduce(x), 1); }
/* forced-path variants (for choosing THRESH / checking the slow path's domain) */
static float sin_fast(float x) { return finish(reduce_fast(x), 0); }
static float cos_fast(float x) { return finish(reduce_fast(x), 1); }
static float sin_slow(float x) { return finish(reduce_slow(x), 0); }
static float cos_slow(float x) { return finish(reduce_slow(x), 1); }

/* ------------------------------------------------------------------ measurement */
static double ulp_err(float got, double ref) {
  if (isnan(ref)) return isnan(got) ? 0.0 : INFINITY;
  if (isnan(got)) return INFINITY;
  int ex; frexp(ref, &ex);
  int e = ex - 1; if (e < -126) e = -126;
  return fabs((double)got - ref) / ldexp(1.0, e - 23);
}

typedef float (*ffn)(float);
typedef struct {
  double max_s, max_c; float x_s, x_c; float g_s, g_c;
  uint64_t n, over1_s, over1_c, over15_s, over15_c;
  double bin_s[256], bin_c[256];                 /* per biased exponent of x */
} stats_t;

static void st_init(stats_t *s) { memset(s, 0, sizeof *s); }
static inline void st_add(stats_t *s, float x, ffn fs, ffn fc) {
  double xd = x;
  float gs = fs(x), gc = fc(x);
  double es = ulp_err(gs, sin(xd)), ec = ulp_err(gc, cos(xd));
  int E = (f2u(x) >> 23) & 0xff;
  s->n++;
  if (es > 1.0) s->over1_s++;
  if (ec > 1.0) s->over1_c++;
  if (es > 1.5) s->over15_s++;
  if (ec > 1.5) s->over15_c++;
  if (es > s->bin_s[E]) s->bin_s[E] = es;
  if (ec > s->bin_c[E]) s->bin_c[E] = ec;
  if (es > s->max_s) { s->max_s = es; s->x_s = x; s->g_s = gs; }
  if (ec > s->max_c) { s->max_c = ec; s->x_c = x; s->g_c = gc; }
}
static void st_merge(stats_t *a, const stats_t *b) {
  a->n += b->n; a->over1_s += b->over1_s; a->over1_c += b->over1_c;
  a->over15_s += b->over15_s; a->over15_c += b->over15_c;
  for (int i = 0; i < 256; i++) {
    if (b->bin_s[i] > a->bin_s[i]) a->bin_s[i] = b->bin_s[i];
    if (b->bin_c[i] > a->bin_c[i]) a->bin_c[i] = b->bin_c[i];
  }
  if (b->max_s > a->max_s) { a->max_s = b->max_s; a->x_s = b->x_s; a->g_s = b->g_s; }
  if (b->max_c > a->max_c) { a->max_c = b->max_c; a->x_c = b->x_c; a->g_c = b->g_c; }
}
static void st_print(const char *name, const stats_t *s, int bins) {
  printf("%s: %llu inputs\n", name, (unsigned long long)s->n);
  printf("  sin: max %.4f ulp at x=%a (%.9g) got %a ref %a; >1ulp: %llu, >1.5ulp: %llu\n",
         s->max_s, s->x_s, s->x_s, s->g_s, sin((double)s->x_s),
         (unsigned long long)s->over1_s, (unsigned long long)s->over15_s);
  printf("  cos: max %.4f ulp at x=%a (%.9g) got %a ref %a; >1ulp: %llu, >1.5ulp: %llu\n",
         s->max_c, s->x_c, s->x_c, s->g_c, cos((double)s->x_c),
         (unsigned long long)s->over1_c, (unsigned long long)s->over15_c);
  if (bins) {
    printf("  per binade of |x| (2^k <= |x| < 2^(k+1)): k  max_sin  max_cos\n");
    for (int i = 0; i < 256; i++)
      if (s->bin_s[i] > 0 || s->bin_c[i] > 0) printf("    %4d  %.4f  %.4f\n", i - 127, s->bin_s[i], s->bin_c[i]);
  }
  fflush(stdout);
}

/* ---- threaded exhaustive scan over the bit patterns [lo, hi] of positive floats (and negatives) */
typedef struct { uint32_t lo, hi, stride; int both_signs; ffn fs, fc; int tid, nt; stats_t st; } job_t;
static void *scan_worker(void *p) {
  job_t *j = p;
  st_init(&j->st);
  const uint32_t CH = 1u << 16;
  for (uint64_t base = j->lo + (uint64_t)j->tid * CH * j->stride; base <= j->hi; base += (uint64_t)j->nt * CH * j->stride)
    for (uint64_t u = base; u < base + (uint64_t)CH * j->stride && u <= j->hi; u += j->stride) {
      float x = u2f((uint32_t)u);
      st_add(&j->st, x, j->fs, j->fc);
      if (j->both_signs) st_add(&j->st, -x, j->fs, j->fc);
    }
  return NULL;
}
static int nthreads(void) {
  const char *e = getenv("NTHREADS");
  int n = e ? atoi(e) : (int)sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 256 ? 256 : n;
}
static stats_t scan(uint32_t lo, uint32_t hi, uint32_t stride, int both, ffn fs, ffn fc) {
  int nt = nthreads();
  job_t *jobs = calloc(nt, sizeof *jobs);
  pthread_t *th = calloc(nt, sizeof *th);
  for (int t = 0; t < nt; t++) {
    jobs[t] = (job_t){ lo, hi, stride, both, fs, fc, t, nt };
    pthread_create(&th[t], NULL, scan_worker, &jobs[t]);
  }
  stats_t tot; st_init(&tot);
  for (int t = 0; t < nt; t++) { pthread_join(th[t], NULL); st_merge(&tot, &jobs[t].st); }
  free(jobs); free(th);
  return tot;
}

/* ---- random sample above THRESH: exponent uniform, mantissa uniform, random sign */
static uint64_t rng_state;
static inline uint64_t rng(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
typedef struct { uint64_t n, seed; int tid; stats_t st; } sjob_t;
static void *sample_worker(void *p) {
  sjob_t *j = p; st_init(&j->st);
  uint64_t st = j->seed * 0x9e3779b97f4a7c15ull + (uint64_t)j->tid * 0x632be59bd9b4e019ull + 1, z;
  uint32_t Elo = (f2u(THRESH) >> 23);            /* binade of THRESH; values <= THRESH skipped */
  for (uint64_t i = 0; i < j->n; ) {
    z = (st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; z ^= z >> 31;
    uint32_t E = Elo + (uint32_t)((z >> 32) % (255 - Elo));
    uint32_t u = (E << 23) | ((uint32_t)z & 0x7fffffu) | ((uint32_t)(z >> 31) & 0x80000000u);
    float x = u2f(u);
    if (!(fabsf(x) > THRESH)) continue;
    st_add(&j->st, x, sinf_model, cosf_model); i++;
  }
  return NULL;
}

/* ------------------------------------------------------------------ special values */
static int special(void) {
  int bad = 0;
  struct { float x; } xs[] = { {0.0f}, {-0.0f}, {INFINITY}, {-INFINITY} };
  for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    float x = xs[i].x, s = sinf_model(x), c = cosf_model(x);
    printf("  x=%-6g sin=%-6g (sign %d)  cos=%-6g\n", x, s, signbit(s) ? 1 : 0, c);
  }
  float s0 = sinf_model(0.0f), sm0 = sinf_model(-0.0f);
  if (!(s0 == 0 && !signbit(s0))) { printf("  FAIL sin(+0)\n"); bad++; }
  if (!(sm0 == 0 && signbit(sm0))) { printf("  FAIL sin(-0)\n"); bad++; }
  if (cosf_model(0.0f) != 1.0f || cosf_model(-0.0f) != 1.0f) { printf("  FAIL cos(0)\n"); bad++; }
  float nans[] = { INFINITY, -INFINITY, NAN, -NAN, u2f(0x7f800001u), u2f(0x7fbfffffu), u2f(0xffc00001u), u2f(0x7fffffffu) };
  for (unsigned i = 0; i < 8; i++)
    if (!isnan(sinf_model(nans[i])) || !isnan(cosf_model(nans[i]))) { printf("  FAIL NaN for %08x\n", f2u(nans[i])); bad++; }
  /* subnormals / tiny: sin(x) must be x exactly (|x| < 2^-12 or so), cos(x) = 1 */
  for (uint32_t u = 1; u < 0x00800000u; u += 4093) {
    float x = u2f(u);
    if (sinf_model(x) != x || sinf_model(-x) != -x || cosf_model(x) != 1.0f) { printf("  FAIL tiny %a\n", x); bad++; break; }
  }
  /* around THRESH, FLT_MAX, powers of two near the i0 switches (E = 166/167, 190/191, 214/215, 238/239) */
  stats_t st; st_init(&st);
  float around[] = { THRESH, 0x1p16f, 0x1p17f, 0x1p24f, 0x1p25f, 0x1p39f, 0x1p40f, 0x1p63f, 0x1p64f,
                     0x1p87f, 0x1p88f, 0x1p111f, 0x1p112f, 0x1p127f, 3.4028235e38f };
  for (unsigned i = 0; i < sizeof around / sizeof around[0]; i++)
    for (int d = -4096; d <= 4096; d++) {
      uint32_t u = f2u(around[i]) + d;
      if (u >= 0x7f800000u) continue;
      float x = u2f(u);
      st_add(&st, x, sinf_model, cosf_model); st_add(&st, -x, sinf_model, cosf_model);
    }
  st_print("  neighbourhoods (+-4096 ulps) of THRESH, 2^16,2^17,2^24,2^25,2^39,2^40,2^63,2^64,2^87,2^88,2^111,2^112,2^127,FLT_MAX", &st, 0);
  /* symmetry: sin(-x) == -sin(x), cos(-x) == cos(x) on a sample */
  uint64_t asym = 0; rng_state = 7;
  for (int i = 0; i < 10000000; i++) {
    float x = u2f((uint32_t)rng() & 0x7f7fffffu);
    if (f2u(sinf_model(-x)) != (f2u(sinf_model(x)) ^ 0x80000000u) || f2u(cosf_model(-x)) != f2u(cosf_model(x))) asym++;
  }
  printf("  odd/even symmetry violations on 1e7 random finite inputs: %llu\n", (unsigned long long)asym);
  printf("special values: %s\n", bad ? "FAIL" : "all OK");
  return bad;
}

/* ------------------------------------------------------------------ hard cases */
static void hard(const char *file) {
  FILE *f = fopen(file, "r");
  if (!f) { perror(file); return; }
  stats_t fast, slow; st_init(&fast); st_init(&slow);
  int E; unsigned m; char hx[64]; double l2;
  while (fscanf(f, "%d %u %63s %lf", &E, &m, hx, &l2) == 4) {
    float x0 = ldexpf((float)m, E - 150);
    if (l2 < -27.4) {                            /* print the hardest ones themselves */
      red_t d0 = reduce(x0);
      printf("  hardest: x=%-15a |x*2/pi - k| = 2^%.2f  r=%-15a rl=%-15a sin=%-15a (%.3f ulp) cos=%-15a (%.3f ulp) [%s]\n",
             x0, l2, d0.r, d0.rl, sinf_model(x0), ulp_err(sinf_model(x0), sin((double)x0)),
             cosf_model(x0), ulp_err(cosf_model(x0), cos((double)x0)), fabsf(x0) <= THRESH ? "fast" : "slow");
    }
    for (int d = -2; d <= 2; d++)                /* the case and its neighbours, both signs */
      for (int sg = 0; sg < 2; sg++) {
        float y = u2f(f2u(x0) + d);
        if (sg) y = -y;
        st_add(fabsf(y) <= THRESH ? &fast : &slow, y, sinf_model, cosf_model);
      }
  }
  fclose(f);
  st_print("(c) hard cases on the fast path (x nearest to multiples of pi/2, +-2 ulps, both signs)", &fast, 0);
  st_print("(c) hard cases on the slow path", &slow, 0);
}

/* max |r| of the forced fast path over [lo,hi] (the polynomials are fitted on |r| <= 0.8) */
static void rmax(float lo, float hi) {
  double mx = 0; float at = 0;
  for (uint32_t u = f2u(lo); u <= f2u(hi); u++) {
    red_t d = reduce_fast(u2f(u));
    if (fabs((double)d.r + d.rl) > mx) { mx = fabs((double)d.r + d.rl); at = u2f(u); }
  }
  printf("forced fast path over [%a, %a]: max |r| = %.9g at x = %a (pi/4 = 0.785398163)\n", lo, hi, mx, at);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "all";
  const uint32_t U_2m20 = f2u(0x1p-20f), U_T = f2u(THRESH), U_MAX = 0x7f7fffffu;
  int all = !strcmp(mode, "all");
  printf("THRESH = %a (%.9g), threads = %d\n", THRESH, THRESH, nthreads());
  if (all || !strcmp(mode, "special")) { printf("(d) special values\n"); special(); }
  if (all || !strcmp(mode, "hard")) hard(argc > 2 && !all ? argv[2] : "hard.txt");
  if (all || !strcmp(mode, "fast")) {
    stats_t s = scan(U_2m20, U_T, 1, 1, sinf_model, cosf_model);
    st_print("(a) fast path: every f32 with 2^-20 <= |x| <= THRESH (both signs)", &s, 1);
  }
  if (all || !strcmp(mode, "tiny")) {
    stats_t s = scan(1, U_2m20 - 1, 1, 1, sinf_model, cosf_model);
    st_print("every f32 with 0 < |x| < 2^-20 (both signs)", &s, 0);
  }
  if (all || !strcmp(mode, "slow")) {
    stats_t s = scan(U_T + 1, U_MAX, 1, 1, sinf_model, cosf_model);
    st_print("(b) slow path: every finite f32 with |x| > THRESH (both signs)", &s, 1);
  }
  if (!strcmp(mode, "sample")) {
    uint64_t N = argc > 2 ? strtoull(argv[2], 0, 0) : 100000000ull, seed = argc > 3 ? strtoull(argv[3], 0, 0) : 1;
    int nt = nthreads(); sjob_t *j = calloc(nt, sizeof *j); pthread_t *th = calloc(nt, sizeof *th);
    for (int t = 0; t < nt; t++) { j[t].n = N / nt + (t < (int)(N % nt)); j[t].seed = seed; j[t].tid = t;
      pthread_create(&th[t], NULL, sample_worker, &j[t]); }
    stats_t tot; st_init(&tot);
    for (int t = 0; t < nt; t++) { pthread_join(th[t], NULL); st_merge(&tot, &j[t].st); }
    st_print("(b') random sample above THRESH (exponent uniform, random sign)", &tot, 0);
  }
  if (!strcmp(mode, "rmax")) rmax(strtof(argv[2], 0), strtof(argv[3], 0));
  if (!strcmp(mode, "fastscan") || !strcmp(mode, "slowscan")) {
    float lo = strtof(argv[2], 0), hi = strtof(argv[3], 0);
    uint32_t stride = argc > 4 ? (uint32_t)atoi(argv[4]) : 1;
    int fast = !strcmp(mode, "fastscan");
    stats_t s = scan(f2u(lo), f2u(hi), stride, 0, fast ? sin_fast : sin_slow, fast ? cos_fast : cos_slow);
    printf("%s over [%a, %a] stride %u (positive x only)\n", mode, lo, hi, stride);
    st_print(fast ? "forced fast path" : "forced slow path", &s, 1);
  }
  return 0;
}
