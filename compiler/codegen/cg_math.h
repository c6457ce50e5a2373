/*
 * cg_math.h: the constants of cg_math.c's sin, cos, tanh and erf, shared
 * with tests/unit/math_model_test.c, which checks them, and f64 fmod's
 * step, shared with tests/unit/fmod_model_test.c.  Polynomial
 * coefficients come lowest degree first, fitted for relative error
 * (minimax) and rounded to f32.
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
/* f64 fmod: bits of the exponent difference per step, mx = (mx << s) urem my with mx < 2^53 */
#define FMOD64_STEP 11

#endif
