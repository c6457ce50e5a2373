/*
 * cg_math.h: the constants of cg_math.c's sin, cos, tanh, erf, log1p,
 * expm1, pow, atan and atan2, shared with tests/unit/math_model_test.c,
 * which checks them, and f64 fmod's step, shared with
 * tests/unit/fmod_model_test.c.  Polynomial coefficients come lowest
 * degree first, fitted for relative error (minimax) and rounded to f32.
 */
#ifndef TILEC_CG_MATH_H
#define TILEC_CG_MATH_H

/* tanh */
#define TANH_SPLIT 0x1.2p+0
static const float tanh_p[] = {-0x1.555548p-2f, 0x1.110e5ep-3f, -0x1.b9bac6p-5f, 0x1.62f788p-6f,
                               -0x1.119e54p-7f, 0x1.6f4906p-9f, -0x1.642d72p-11f, 0x1.5c7174p-14f};
/* erf */
#define ERF_SPLIT 0x1p+0
#define ERF_CLAMP 0x1p+2
static const float erf_p[] = {0x1.06eba8p-3f, -0x1.81273ep-2f, 0x1.ce2ce6p-4f, -0x1.b7f71ap-6f,
                              0x1.53f224p-8f, -0x1.a3515ep-11f, 0x1.4771fep-14f};
static const float erf_q[] = {-0x1.558eaep+1f, -0x1.e75306p+1f, -0x1.37666ap+0f, -0x1.e8d72ep-5f,
                              0x1.c73882p-7f, -0x1.318090p-9f, 0x1.7ddc96p-13f};
/* sin, cos: the short reduction up to SC_FAST_MAX, pi/2 = SC_PIO2_1 + SC_PIO2_2 + SC_PIO2_3 */
#define SC_FAST_MAX 0x1p+16
#define SC_TWO_OVER_PI 0x1.45f306p-1
#define SC_PIO2_1 0x1.921fb4p+0
#define SC_PIO2_2 0x1.4442d0p-24
#define SC_PIO2_3 0x1.84698ap-48
/* the long one: 2/pi = F_0 + F_1 + ..., F_0 of 15 bits, then 24 each; with x's biased exponent
 * at or above sc_exp_from[i], the first product that matters is x F_(i+1); sc_tail[i] is 2/pi
 * less F_0 .. F_(i+2), rounded */
static const double sc_f[] = {0x1.45fp-1, 0x1.836e4ep-16, 0x1.1054ap-42, 0x1.fc2756p-64,
                              0x1.d1f534p-88, 0x1.bb81b4p-113, 0x1.629598p-136};
static const double sc_tail[] = {0x1.fc2757d1f534ep-64, 0x1.d1f534ddc0db6p-88, 0x1.bb81b6c52b328p-113,
                                 0x1.6295993c43904p-136, 0x1.3c439041fe516p-160};
static const int sc_exp_from[] = {167, 191, 215, 239};
static const float sc_sin[] = {-0x1.555556p-3f, 0x1.111170p-7f, -0x1.a053fep-13f, 0x1.7a8d6cp-19f};
static const float sc_cos[] = {-0.5f, 0x1.555548p-5f, -0x1.6c0af4p-10f, 0x1.99911cp-16f};
/* log1p: 1 + x = 2^k (m + c 2^-k), m in [2/3, 4/3) (its bits less LOG1P_M0 shifted right by 23 are k),
 * f = m - 1; log1p(x) = k ln2 + f - f^2/2 + f^3 P(f) + c 2^-k / m, ln2 = LOG1P_LN2_HI + LOG1P_LN2_LO */
#define LOG1P_M0 0x3f2aaaab
#define LOG1P_LN2_HI 0x1.62e400p-1
#define LOG1P_LN2_LO 0x1.7f7d1cp-20
#define LOG1P_TINY 0x1p-25
static const float log1p_p[] = {0x1.555558p-2f, -0x1.fffefep-3f, 0x1.999684p-3f, -0x1.559c5ap-3f, 0x1.251448p-3f, -0x1.f3281cp-4f, 0x1.b55e96p-4f, -0x1.07f540p-3f, 0x1.f90560p-4f};
/* expm1: x = j ln2 + f, j = rint(x EXPM1_LOG2E), ln2 = EXPM1_LN2_HI + EXPM1_LN2_LO;
 * expm1(x) = 2^j (1 + f + f^2/2 + f^3 Q(f)) - 1; x clamped to [EXPM1_XMIN, EXPM1_XMAX], +inf above */
#define EXPM1_LOG2E 0x1.715476p+0
#define EXPM1_LN2_HI 0x1.62e430p-1
#define EXPM1_LN2_LO -0x1.05c610p-29
#define EXPM1_XMAX 0x1.62e42ep+6
#define EXPM1_XMIN -0x1.000000p+5
#define EXPM1_TINY 0x1p-25
static const float expm1_q[] = {0x1.555554p-3f, 0x1.5554eep-5f, 0x1.111380p-7f, 0x1.6d4516p-10f, 0x1.9d0350p-13f};
/* pow: log2|x| = k + f Q(f), f = |x| 2^-k - 1 with |x| 2^-k in [POW_SPLIT, 2 POW_SPLIT), k found
 * by subtracting POW_SPLIT_BITS (POW_SPLIT as an f64) from |x|'s f64 bits; then 2^z, z = y log2|x|
 * clamped to +-POW_ZCLAMP, as 2^n E(z - n), n = rint(z).  Coefficients in f64, lowest degree first,
 * fitted for relative error: Q 2^-43.75, E 2^-43.56 (scripts/math/pow) */
#define POW_SPLIT 0x1.6a09e6p-1
#define POW_SPLIT_BITS 0x3fe6a09e60000000ull
#define POW_ZCLAMP 0x1.4p+7
/* Q(f) ~ log2(1 + f) / f, f in [POW_SPLIT - 1, 2 POW_SPLIT - 1] */
static const double pow_log2_p[] = {0x1.71547652b8477p+0, -0x1.71547652bd4aep-1, 0x1.ec709dc22443ep-2,
                                    -0x1.7154764378385p-2, 0x1.2776c601fb277p-2, -0x1.ec70abb05a62ep-3,
                                    0x1.a616f2ee47198p-3, -0x1.71519041858dep-3, 0x1.48564e27db04p-3,
                                    -0x1.27c70544d27e3p-3, 0x1.0c280bc42330fp-3, -0x1.e33fff4d69416p-4,
                                    0x1.c56a9d1ef1c48p-4, -0x1.e6e7a4f743e36p-4, 0x1.d983fa1a90fa9p-4,
                                    -0x1.d70149ba9bfcep-5};
/* E(r) ~ 2^r, r in [-1/2, 1/2], E(0) = 1 */
static const double pow_exp2_p[] = {0x1p+0, 0x1.62e42fefa08dcp-1, 0x1.ebfbdff823dfp-3,
                                    0x1.c6b08d7a950ddp-5, 0x1.3b2ab717fb0d1p-7, 0x1.5d87ebe422ecp-10,
                                    0x1.4308acc66eafbp-13, 0x1.fffd7531377a6p-17, 0x1.63d0ec3a1b2e1p-20,
                                    0x1.89c474b72b812p-24};
/* atan, atan2: k pi/4 + atan(r), |r| <= 1/2 after one division; atan(r) = r + r t P(t), t = r^2,
 * P of degree 5 (relative error 2^-31.7); pi/4 = ATAN_PIO4_HI + ATAN_PIO4_LO, HI of 22 bits so k HI
 * is exact for k = 0 .. 4; bitcast(ATAN_RCP_K - bits(h)) is 1/h within 5.1% (the division's
 * correction); atan rounds to ATAN_PIO2 from ATAN_HUGE on; atan2 scales both operands by ATAN2_DOWN
 * where the larger is >= ATAN2_BIG, else by ATAN2_UP, and drops the correction where t < ATAN2_TINY
 * (scripts/math/atan) */
static const float atan_p[] = {-0x1.555552p-2f, 0x1.999744p-3f, -0x1.245030p-3f, 0x1.c07268p-4f, -0x1.480d40p-4f, 0x1.3fd554p-5f};
#define ATAN_PIO4_HI 0x1.921fb8p-1
#define ATAN_PIO4_LO -0x1.5dde98p-24
#define ATAN_PIO2 0x1.921fb6p+0
#define ATAN_HUGE 0x1p+26
#define ATAN_RCP_K 0x7ef311c2
#define ATAN2_BIG 0x1p+64
#define ATAN2_DOWN 0x1p-32
#define ATAN2_UP 0x1p+60
#define ATAN2_TINY 0x1p-60
/* f64 fmod: bits of the exponent difference per step, mx = (mx << s) urem my with mx < 2^53 */
#define FMOD64_STEP 11

#endif
