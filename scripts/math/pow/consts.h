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
